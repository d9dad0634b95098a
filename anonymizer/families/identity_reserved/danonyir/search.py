"""Algorithm 1 lines 7-8 of paper 004 without a scan of D per step: an exact pruned search.

Algorithm 1 scans D and D* once per step (section 4.4.2: "we need to scan q - 1 times D and
D*"), so a run costs O(d n^2). The growing class Q only widens (its identity element is a
union, section 2.2), and while Q is formed D and D* only lose members. So for an individual p,
u(p) = the normalized spans of r̄_p ∪ r̄_q (Eqs. 11, 12) never falls, nor does the same figure
for a class, and Eqs. (17) and (18) give lower bounds that hold for the whole formation:

- Dist(p, Q) = (|R(p)| + |Q|) * u(p) - |Q| * S_Q >= (n + |Q|) * max(u, S_Q) - |Q| * S_Q for
  every individual with |R(p)| = n and u(p) >= u, S_Q being the sum of Q's normalized spans;
- Dist(Q', Q) = |Q'| * (u - sn') + |Q| * (u - S_Q) >= own + |Q| * (max(u', S_Q) - S_Q) for
  every class with |Q'| * (u - sn') >= own and u >= u' (the classes' "front" of (own, u')
  pairs: those no other class is below in both).

When Q is drawn, :class:`Search` takes its candidates from a batch (:mod:`.batch`: one
statement, ``batch.sql.j2``, scans D and D* for the next seeds of line 3 in draw order, as many
as :func:`.batch.seeds_for` the table): the :data:`CANDIDATES` individuals and classes nearest
to Q = {seed} (a top-k aggregate, at most k rows per seed whatever the table's size), and for
the ones left out the figures of those bounds (per |R(p)|, the least u); the classes stored
since the batch's statement are candidates too. Each step then computes the candidates' distances in Python
(:class:`People`, :class:`Classes`: vectorized, with the statements' arithmetic in the same
order), and accepts the nearest when the bounds
certify it: the nearest candidate individual lies below every left-out individual's bound, and
the nearest candidate class below every left-out class's bound, or else the individual lies
below every class's bound and line 9 chooses it whatever the nearest class is
(:meth:`Search.nearest` returns no class then; at the classes' bound too, as line 9 keeps the
individual on a tie, up to :data:`.state.TIE`, far wider than float rounding). Nothing else is
certified within :data:`.columns.MARGIN` (relative) of a bound, of line 9's threshold, or of
another candidate's distance unless equal (float rounding could order those either way); equal
distances go to the smaller Id_num or class id, here as in SQL. When a step cannot be certified, the candidates
are chosen again for the current Q (``candidates.sql.j2``, one statement, :data:`RESCAN` of
them: their bounds are for Q as it is now, so fewer serve than for a seed), and if even those
cannot certify it, the rest of this Q's steps run the plain scan of D and D*
(:meth:`.state.Tables.nearest`: two rows into Python a step; wider candidates cost more than
they certified, README, "Measurements behind the constants"). On large tables the batch and
the scans for Q as it is read only the cells of D that can hold a candidate, and bound the
others by their boxes (:mod:`.cells`: ``cell_batch.sql.j2``, ``cell_candidates.sql.j2``).
Every step therefore finds what the plain scan finds: the releases are the same, row for row
(tests/families/identity_reserved/test_danonyir_search.py, test_danonyir_batch.py).
``CANDIDATES = 0`` runs the plain scan at every step (and draws the seeds one at a time).
Why 512 candidates, 64 at a scan and batches of seeds: README, "Measurements behind the constants".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from anonymizer.families.identity_reserved.danonyir import batch as batches, cells
from anonymizer.families.identity_reserved.danonyir.batch import Batch
from anonymizer.families.identity_reserved.danonyir.columns import Classes, People, below as _below, near as _near
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.families.identity_reserved.danonyir.state import TIE, Growing, Tables

#: Individuals (and classes) kept as candidates per seed of a batch; 0 runs the plain scan every step.
CANDIDATES = 512
#: Individuals (and classes) a scan of D and D* for Q as it is now keeps: it bounds the rest for
#: Q as it is, so fewer serve than for a seed (issue 40: each is read into Python).
RESCAN = 64


def class_distance(e: Element, sq: float, nq: int, row: dict) -> float:
    """Eq. (18) for one class's row (:meth:`.columns.Classes.distances`)."""
    return float(Classes.of([row], e).distances(e, sq, nq)[0])


@dataclass
class Search:
    """Lines 7-8 for one run: the candidates of the growing Q, their bounds, and the scans."""

    t: Tables
    k: int = field(default_factory=lambda: CANDIDATES)
    seeds: int = 0                        # seeds a batch (0: batch.seeds_for the individuals)
    people: People | None = None          # candidate individuals (None: not chosen for this Q)
    width: int = 0                        # how many candidates a scan of this Q keeps (0: plain scans)
    floor: list[dict] = field(default_factory=list)
    classes: Classes | None = None
    front: list[dict] = field(default_factory=list)
    batch: Batch | None = None
    entry: dict | None = None             # the batch's entry of the seed drawn last
    mark: int = 0                         # the candidates exclude t.taken[:mark]
    counts: dict = field(default_factory=lambda: {"scans": 0, "rescans": 0, "plain": 0, "batches": 0,
                                                  "fresh": 0, "absorbed": 0})

    def __post_init__(self) -> None:
        self.seeds = self.seeds or batches.seeds_for(self.t.remaining)

    def draw(self) -> dict | None:
        """Line 3: the next seed in draw order, taken out of D (:meth:`.state.Tables.draw`); with
        candidates, from a batch (:mod:`.batch`), chosen again when it is spent."""
        if not self.k:
            return self.t.draw()
        gone = set(self.t.taken)              # taken since the batch statement (D's table flushed there)
        self.entry = self.batch.next(gone, self.counts) if self.batch else None
        if self.entry is None:
            self.counts["batches"] += 1
            self.batch = Batch.choose(self.t, self.k, self.seeds)
            self.entry = self.batch.next(set(), self.counts)
            if self.entry is None:
                return None
        assert self.batch is not None   # the entry came from it
        row = self.batch.seed(self.entry)
        self.t.take(row["pid"])
        return row

    def start(self, q: Growing) -> None:
        """A new Q = {seed} (lines 3-5): its candidates and bounds from the batch's entry, less
        the individuals taken and the classes merged since the statement, plus the classes
        stored since (:mod:`.batch`)."""
        self.people = None
        if not self.k:
            return
        self.counts["scans"] += 1
        e = self.entry
        assert self.batch is not None and e is not None   # draw took the seed from the batch
        self.width = min(RESCAN, self.k)
        self.people, self.classes = self.batch.candidates(e, self.t.taken, q.element)
        self.floor, self.front = e["floor"] or [], e["front"] or []
        self.counts["fresh"] += len(self.batch.fresh)
        self.mark = len(self.t.taken)

    def stored(self, cid: int, q: Growing) -> None:
        """Line 17: class ``cid`` joined D*; the batch's later seeds see it as a candidate."""
        if self.batch is not None:
            self.batch.stored(cid, q)

    def drop(self, cid: int) -> None:
        """Line 12: class ``cid`` left D*; it leaves the candidates too."""
        if self.classes is not None:
            self.classes.drop(cid)
        if self.batch is not None:
            self.batch.drop(cid)

    def nearest(self, q: Growing) -> tuple[dict, dict | None]:
        """Lines 7-8: the nearest remaining individual and the nearest formed class, as
        :meth:`Tables.nearest` finds them; the class is None when D* is empty or when no class
        can win line 9."""
        if self.width:
            found = self._certified(q)
            if found is None:                 # the candidates chosen again for Q as it is now
                self._scan(q)
                found = self._certified(q)
            if found is not None:
                return found
            self.width = 0      # even those could not certify it: plain scans for the rest of this Q
        self.counts["plain"] += 1
        p, c = self.t.nearest(q)
        assert p is not None   # D is not empty: Q grows while individuals remain (t.remaining)
        return p, c

    def _scan(self, q: Growing) -> None:
        """Choose the candidates for Q as it is now: one statement, scanning D and D* once."""
        self.counts["scans"] += 1
        self.counts["rescans"] += 1
        self.mark = len(self.t.taken)
        self.t.flush()
        self.t.sync()
        params = {**q.params(), "k": self.width, "div": self.t.div,
                  "mc": cells.near_groups(self.t, max(cells.CLASSES, self.width))}
        if self.t.grid and self.t.remaining >= cells.RESCAN_FROM:   # D's cells nearest Q (cells.py)
            found = self.t.rows("families/identity_reserved/danonyir/cell_candidates.sql.j2",
                                {**params, "m": cells.near(self.t, max(cells.RESCAN, self.width))}, rest=self.t.rest,
                                classes=self.t.classes, cells=self.t.cells)[0]
        else:
            found = self.t.rows("families/identity_reserved/danonyir/candidates.sql.j2", params, rest=self.t.rest,
                                classes=self.t.classes)[0]
        self.people, self.floor = People.of(found["people"] or [], q.element), found["floor"] or []
        self.classes, self.front = Classes.of(found["classes"] or [], q.element), found["front"] or []

    def _certified(self, q: Growing) -> tuple[dict, dict | None] | None:
        """The nearest candidates, if the bounds prove them the nearest of D and D* (or prove
        that no class wins line 9); None otherwise."""
        nq, sq = q.nrec, q.element.span()
        assert self.people is not None and self.classes is not None   # chosen for Q (start, _scan) with width
        p = self.people.nearest(q, sq, self.t.taken[self.mark:])
        if not p:
            return None
        d, row = p
        if not _below(d, min(((f["nrec"] + nq) * max(f["u"], sq) - nq * sq for f in self.floor), default=math.inf)):
            return None
        # every class, candidate or not, by the bound of the module docstring: most steps stop here.
        # Line 9 keeps the individual on a tie (TIE), so one at the bound (not only below it) wins
        # line 9 whatever the class: an identical individual (d = 0) against a class bound of 0
        low = min((f["own"] + nq * (max(f["u"], sq) - sq) for f in self.front), default=math.inf)
        if d <= min(low, self.classes.bound(nq, sq)):
            return {**row, "d": d}, None
        nearest = self.classes.nearest(q.element, sq, nq)
        if nearest is None:
            return None
        dc, c = nearest
        line9 = dc + TIE * max(1.0, abs(dc))
        if _near(d, line9) or not (_below(dc, low) or (d < line9 and _below(d, low))):
            return None
        return {**row, "d": d}, ({**c, "d": dc} if _below(dc, low) else None)
