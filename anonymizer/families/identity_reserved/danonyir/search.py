"""Algorithm 1 lines 7-8 of paper 004 without a scan of D per step: an exact pruned search.

Algorithm 1 scans D and D* once per step (section 4.4.2: "we need to scan q - 1 times D and
D*"), so a run costs O(d n^2). The growing class Q only widens (its identity element is a
union, section 2.2), and while Q is formed D and D* only lose members. So for an individual p,
u(p) = the normalized spans of r̄_p ∪ r̄_q (Eqs. 11, 12) never falls, nor does the same figure
for a class, and Eqs. (17) and (18) give lower bounds that hold for the whole formation:

- Dist(p, Q) = (|R(p)| + |Q|) * u(p) - |Q| * S_Q >= (n + |Q|) * max(u, S_Q) - |Q| * S_Q for
  every individual with |R(p)| = n and u(p) >= u, S_Q being the sum of Q's normalized spans;
- Dist(Q', Q) = |Q'| * (u - sn') + |Q| * (u - S_Q) >= own + |Q| * (max(u_min, S_Q) - S_Q) for
  every class with |Q'| * (u - sn') >= own and u >= u_min.

:class:`Search` scans D and D* when Q is drawn (``candidates.sql.j2``, one statement): the :data:`CANDIDATES` individuals and classes nearest to Q (a
top-k aggregate, at most k rows whatever the table's size), and for the ones left out the
figures of those bounds (per |R(p)|, the least u). Each step then computes the candidates'
distances in Python, with the statements' arithmetic, and accepts the nearest when the bounds
certify it: the nearest candidate individual lies below every left-out individual's bound, and
the nearest candidate class below every left-out class's bound, or else the individual lies
below every class's bound and line 9 chooses it whatever the nearest class is
(:meth:`Search.nearest` returns no class then). Nothing is certified within :data:`MARGIN`
(relative) of a bound, of line 9's threshold, or of another candidate's distance unless
equal (float rounding could order those either way); equal distances go to the smaller
Id_num, here as in SQL. When a step cannot be certified, the candidates
are chosen again for the current Q, then 8 and 64 times as many (values that repeat a lot put
more individuals than candidates at the bound, in a tie), and if even those cannot certify it,
the steps of this Q run the plain scan of D and D* (:meth:`.state.Tables.nearest`). Every step therefore finds what the
plain scan finds: the releases are the same, row for row
(tests/families/identity_reserved/test_danonyir_search.py). ``CANDIDATES = 0`` runs the plain
scan at every step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from anonymizer.families.identity_reserved.danonyir import batch as batches
from anonymizer.families.identity_reserved.danonyir.batch import Batch, union_spans
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.families.identity_reserved.danonyir.state import TIE, Growing, Tables

#: Individuals (and classes) kept as candidates per scan; 0 runs the plain scan every step.
CANDIDATES = 128
#: When the candidates cannot certify a step, they widen (8 times, twice) up to this many times
#: CANDIDATES: more individuals than candidates can tie at the bound when values repeat a lot.
WIDEST = 64
#: A figure this close to a bound, threshold or rival (relative) is not certified.
MARGIN = 1e-9


def _near(x: float, y: float) -> bool:
    return x == y or abs(x - y) <= MARGIN * max(1.0, abs(x), abs(y)) < math.inf


def _below(x: float, bound: float) -> bool:
    return x < bound and not _near(x, bound)


def _first(d: np.ndarray, ids: np.ndarray, ties: bool) -> int | None | bool:
    """The index of the least (d, id), None when there is none, False when another distance
    lies within the margin of it (and is not equal to it, if ``ties``: an exact tie goes to the
    smaller id, here as in SQL: the same operations on the same numbers)."""
    if not len(d):
        return None
    order = np.lexsort((ids, d))
    best = order[0]
    for j in order[1:]:
        if not _near(d[j], d[best]):
            break
        if not ties or d[j] != d[best]:
            return False
    return int(best)


def class_distance(e: Element, sq: float, nq: int, row: dict) -> float:
    """Eq. (18) for one class's row (:meth:`Classes.distances`)."""
    return float(Classes.of([row], e.attrs).distances(e, sq, nq)[0])


@dataclass
class People:
    """The candidate individuals as columns: Id_num, |R(p)|, and per QI the value (numeric) or
    code (categorical); ``rows`` are their rows for Algorithm 1 line 10."""

    rows: list[dict]
    pid: np.ndarray
    nrec: np.ndarray
    values: dict[int, np.ndarray]

    @classmethod
    def of(cls, rows: list[dict], e: Element) -> "People":
        return cls(rows, np.array([r["pid"] for r in rows], dtype=np.int64),
                   np.array([r["nrec"] for r in rows], dtype=np.int64),
                   {a.i: np.array([r[f"{'v' if a.numeric else 'c'}{a.i}"] for r in rows],
                                  dtype=np.float64 if a.numeric else np.int64) for a in e.attrs})

    def nearest(self, q: Growing, sq: float, taken: list[int]) -> tuple[float, dict] | None | bool:
        """Eq. (17) for every candidate not in ``taken``, in nearest.sql.j2's order of
        operations, and the nearest by (distance, Id_num) (:func:`_first`)."""
        e, nq = q.element, q.nrec
        incs, cats = [], e.increments()
        for a in e.attrs:
            x = self.values[a.i]
            incs.append(np.maximum(np.maximum(x - e.hi[a.i], e.lo[a.i] - x), 0.0) * a.inv if a.numeric
                        else np.asarray(cats[f"inc{a.i}"], dtype=np.float64)[x])
        u = np.full(len(self.rows), sq)
        for inc in incs:
            u = u + inc
        d = (self.nrec + nq) * u - nq * sq
        alive = np.flatnonzero(~np.isin(self.pid, taken)) if taken else np.arange(len(self.rows))
        best = _first(d[alive], self.pid[alive], ties=True)
        if best is None or best is False:
            return best
        return float(d[alive[best]]), self.rows[alive[best]]


@dataclass
class Classes:
    """The candidate classes as columns: class id, |Q'|, sn', u (the normalized spans of their
    union with Q when they were chosen: the bound's figure), per QI the interval (numeric) or the
    words of the set of codes (categorical); ``rows`` are their rows for Algorithm 1 line 12."""

    rows: list[dict]
    cid: np.ndarray
    nrec: np.ndarray
    sn: np.ndarray
    u: np.ndarray
    lo: dict[int, np.ndarray]
    hi: dict[int, np.ndarray]
    words: dict[int, np.ndarray]
    alive: np.ndarray

    @classmethod
    def of(cls, rows: list[dict], attrs) -> "Classes":
        def col(name, dtype):
            return np.array([r[name] for r in rows], dtype=dtype)
        num = [a for a in attrs if a.numeric]
        return cls(rows, col("cid", np.int64), col("nrec", np.int64), col("sn", np.float64),
                   np.array([r.get("u", math.nan) for r in rows], dtype=np.float64),
                   {a.i: col(f"lo{a.i}", np.float64) for a in num}, {a.i: col(f"hi{a.i}", np.float64) for a in num},
                   {a.i: np.array([[r[f"w{a.i}_{j}"] for j in range(a.words)] for r in rows],
                                  dtype=np.uint64).reshape(len(rows), a.words) for a in attrs if not a.numeric},
                   np.ones(len(rows), dtype=bool))

    def drop(self, cid: int) -> None:
        self.alive &= self.cid != cid

    def bound(self, nq: int, sq: float) -> float:
        """The least lower bound of Eq. (18) over the candidates (module docstring)."""
        k = self.alive
        return float(np.min(self.nrec[k] * (self.u[k] - self.sn[k]) + nq * (np.maximum(self.u[k], sq) - sq),
                            initial=math.inf))

    def distances(self, e: Element, sq: float, nq: int) -> np.ndarray:
        """Eq. (18) for every candidate, in loss.sql.j2's order of operations (union_spans, then
        class_distance)."""
        u = np.zeros(len(self.rows))
        for a in e.attrs:
            if a.numeric:
                u = u + (np.maximum(self.hi[a.i], e.hi[a.i]) - np.minimum(self.lo[a.i], e.lo[a.i])) * a.inv
            else:
                both = self.words[a.i] | np.array(e.words[a.i], dtype=np.uint64)
                u = u + (np.bitwise_count(both).sum(axis=1, dtype=np.int64) - 1) * a.inv
        return (self.nrec + nq) * u - self.nrec * self.sn - nq * sq

    def nearest(self, e: Element, sq: float, nq: int) -> tuple[float, dict] | None:
        """The nearest candidate by (distance, class id), None when there is none or when another
        lies within the margin of it (equal or not)."""
        alive = np.flatnonzero(self.alive)
        d = self.distances(e, sq, nq)[alive]
        best = _first(d, self.cid[alive], ties=False)
        return None if best is None or best is False else (float(d[best]), self.rows[alive[best]])


@dataclass
class Search:
    """Lines 7-8 for one run: the candidates of the growing Q, their bounds, and the scans."""

    t: Tables
    k: int = field(default_factory=lambda: CANDIDATES)
    seeds: int = field(default_factory=lambda: batches.SEEDS)
    people: People | None = None          # candidate individuals (None: not chosen for this Q)
    width: int = 0                        # how many candidates a scan of this Q keeps (0: plain scans)
    floor: list[dict] = field(default_factory=list)
    classes: Classes | None = None
    own: float | None = None
    u_min: float | None = None
    batch: Batch | None = None
    entry: dict | None = None             # the batch's entry of the seed drawn last
    mark: int = 0                         # the candidates exclude t.taken[:mark]
    counts: dict = field(default_factory=lambda: {"scans": 0, "rescans": 0, "plain": 0, "batches": 0,
                                                  "fresh": 0, "absorbed": 0})

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
        row = self.batch.rows[self.entry["seed"]]
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
        gone, e = set(self.t.taken), self.entry
        self.width = self.k
        self.people = People.of([self.batch.rows[p] for p in e["pids"] or [] if p not in gone], q.element)
        self.floor, self.own, self.u_min = e["floor"] or [], e["own"], e["u_min"]
        self.classes = Classes.of(self.batch.classes(e, q.element), self.t.attrs)
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
            while found is None and 0 < self.width < WIDEST * self.k:
                # ties: more individuals than candidates may lie at the bound (many equal values)
                self.width *= 8
                self._scan(q)
                found = self._certified(q)
            if found is not None:
                return found
            self.width = 0      # the widest candidates could not certify: plain scans for this Q
        self.counts["plain"] += 1
        return self.t.nearest(q)

    def _scan(self, q: Growing) -> None:
        """Choose the candidates for Q as it is now: one statement, scanning D and D* once."""
        self.counts["scans"] += 1
        self.counts["rescans"] += 1
        self.mark = len(self.t.taken)
        params = {**q.params(), "taken": self.t.taken, "k": self.width}
        people, self.floor, classes, self.own, self.u_min = self.t.run(
            "families/identity_reserved/danonyir/candidates.sql.j2", params, rest=self.t.rest,
            classes=self.t.classes).fetchone()
        self.people, self.floor = People.of(people or [], q.element), self.floor or []
        self.classes = Classes.of(classes or [], self.t.attrs)

    def _certified(self, q: Growing) -> tuple[dict, dict | None] | None:
        """The nearest candidates, if the bounds prove them the nearest of D and D* (or prove
        that no class wins line 9); None otherwise."""
        nq, sq = q.nrec, q.element.span()
        p = self.people.nearest(q, sq, self.t.taken[self.mark:])
        if not p:
            return None
        d, row = p
        if not _below(d, min(((f["nrec"] + nq) * max(f["u"], sq) - nq * sq for f in self.floor), default=math.inf)):
            return None
        # every class, candidate or not, by the bound of the module docstring: most steps stop here
        low = math.inf if self.u_min is None else self.own + nq * (max(self.u_min, sq) - sq)
        if _below(d, min(low, self.classes.bound(nq, sq))):
            return {**row, "d": d}, None
        nearest = self.classes.nearest(q.element, sq, nq)
        if nearest is None:
            return None
        dc, c = nearest
        line9 = dc + TIE * max(1.0, abs(dc))
        if _near(d, line9) or not (_below(dc, low) or (d < line9 and _below(d, low))):
            return None
        return {**row, "d": d}, ({**c, "d": dc} if _below(dc, low) else None)
