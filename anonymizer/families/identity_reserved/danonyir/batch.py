"""Algorithm 1 line 3 of paper 004 for several classes at once: the next seeds in draw order
and their candidates (:mod:`.search`), chosen in one statement over D and D*, whose answer
stays in the database.

The seeds of line 3 are drawn in a known order (the release's random draw of Id_num,
draw.sql.j2), so ``batch.sql.j2`` takes the next remaining individuals in that order (one per
:data:`SPREAD` of the table, :func:`seeds_for`) and, for each as a class Q = {s} of its own,
keeps what one candidates.sql.j2 scan would keep when Q is drawn: the nearest individuals and
classes and the bounds for the others. One scan of D and D* thus serves as many classes. While
the earlier classes of the batch are formed, the choices stay sound:

- D only loses individuals, so the bounds of the individuals left out stay lower bounds (a
  least value over fewer rows is no smaller); those taken since are left out of the candidates;
- D* loses the classes merged into a Q (line 12) and gains the classes stored since (line 17):
  the bounds of the classes left out stay lower bounds, the classes merged leave the
  candidates, and the classes stored since join them explicitly (their element is known here),
  with u, the normalized spans of their union with Q (Eq. 18), computed when Q starts;
- a seed taken into an earlier class is not a seed any more: the next one is the first seed
  of the batch still remaining, which is what draw.sql.j2 would pick (the rest is the batch's
  seeds' superset in draw order), and when none is left a new batch is chosen.

A batch's candidates that cannot certify a step are chosen again for the current Q
(:meth:`.search.Search.nearest`), as when one scan per class is made.

What Python reads of a batch (issue 40: the rows that cross into Python) is each candidate's
row once, however many seeds have it as candidate, with the seeds it is a candidate of as
bits (``batch_rows.sql.j2``), and per seed the few pairs of its bounds (``batch_bounds.sql.j2``);
the lists of candidates per seed (:data:`.search.CANDIDATES` Id_num and class ids each) stay in
the database. The u of a candidate class for Q = {s} is computed here again, in the statement's
order of operations (:meth:`.columns.Classes.spans`), as for the classes stored since.

Why the seeds of a batch grow with the table: the seeds' candidates overlap the more, and a
batch reads the fewer rows a seed, the more densely its seeds lie among D. With a fixed number
of seeds they lie ever more sparsely as the table grows, and the rows read per class rose with
it (307, 600 and 779 at 16,000, 64,000 and 128,000 patients with 32 seeds); with one seed per
:data:`SPREAD` individuals a run makes about as many batches at every size, and the rows per
class stay level (README, "Rows that cross into Python").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonymizer.families.identity_reserved.danonyir import cells
from anonymizer.families.identity_reserved.danonyir.columns import Classes, People, words
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.families.identity_reserved.danonyir.state import Tables

#: Seeds (classes to be drawn) whose candidates one statement chooses, at least.
SEEDS = 32
#: A batch takes one seed per this many individuals of the table (at least :data:`SEEDS`;
#: above that, no more than :data:`PAIRS` allow): a run then makes about as many batches at
#: every size, the seeds of a batch lie as densely among D at the same point of every run, their
#: candidates overlap as much, and the rows read into Python per class do not grow with the
#: table (issue 40).
SPREAD = 500
#: Pairs (seed, individual) one batch statement weighs at most when it takes more than
#: :data:`SEEDS` seeds (its memory grows with them; it also weighs the fewer pairs of a seed
#: and a class).
PAIRS = 1 << 25
#: Bits of a BIGINT word of a candidate's seeds (``batch_rows.sql.j2``; the sign bit is left out).
BITS = 63


def seeds_for(individuals: int) -> int:
    """How many seeds a batch takes in a run over ``individuals``.

    Example:
        >>> seeds_for(4_000), seeds_for(64_000), seeds_for(128_000), seeds_for(10**6)
        (32, 128, 256, 33)
    """
    return max(SEEDS, min(individuals // SPREAD, PAIRS // max(individuals, 1)))


def _fetch(t: Tables, table: str, key: str, ids: str, count: int,
           seeds: bool = False) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The rows of ``table`` that are candidates of the batch's ``count`` seeds (their ``key``
    in the batch's lists ``ids``), and the seeds' own rows with ``seeds``, as columns, each row
    once; and the seeds each row is a candidate of, as bits (:func:`_of`)."""
    template = "families/identity_reserved/danonyir/batch_rows.sql.j2"
    n = -(-count // BITS)
    cols = t.run(template, table=table, key=key, ids=ids, batch=t.batch, seeds=seeds, words=n, bits=BITS).fetchnumpy()
    t.read(template, len(cols[key]))
    mask = np.stack([np.asarray(cols.pop(f"mask{j}")) for j in range(n)])
    assert mask.dtype == np.int64   # every bit kept (a float would lose the high ones)
    return {name: words(c) if name[0] == "w" else c for name, c in cols.items()}, mask


def _of(mask: np.ndarray, i: int) -> np.ndarray:
    """Which rows are candidates of the seed at place ``i``: bit i % :data:`BITS` of their word
    i // :data:`BITS` (:func:`_fetch`)."""
    return (mask[i // BITS] >> (i % BITS)) & 1 != 0


@dataclass
class Batch:
    """The seeds of one batch not drawn yet (draw order) with the bounds of the individuals and
    classes left out of their candidates, the rows of the seeds and of every candidate as
    columns with the seeds each is a candidate of (bits), and how D* changed since the
    statement."""

    seeds: list[dict]
    people: People
    pmask: np.ndarray                                       # bits (_of): a candidate of seed i
    at: dict[int, int]                                      # Id_num -> position in people
    classes: Classes
    cmask: np.ndarray                                       # bits (_of): a candidate class of seed i
    fresh: dict[int, dict] = field(default_factory=dict)    # classes stored since, by cid
    dropped: np.ndarray = field(init=False)                 # classes merged since (by position)
    gone: np.ndarray = field(init=False)                    # individuals taken since (by position)
    seen: int = 0                                           # ... of the first `seen` taken (candidates)

    def __post_init__(self) -> None:
        self.dropped = np.zeros(len(self.classes), dtype=bool)
        self.gone = np.zeros(len(self.people), dtype=bool)

    @classmethod
    def choose(cls, t: Tables, k: int, seeds: int) -> "Batch":
        """The next ``seeds`` seeds and their ``k`` candidates: the batch statement (its answer
        kept in the database), then one statement each for the rows of the seeds and candidates
        and for the candidate classes, and one for the bounds. D's and D*'s tables are brought
        up to date first (the taken individuals leave D, the classes stored join D*)."""
        t.forget()
        t.sync()
        params = {"b": seeds, "k": k, **{f"inv{a.i}": a.inv for a in t.attrs}}
        if t.grid:                                # D's cells nearest each seed (cells.py)
            cells.live(t)
            t.run("families/identity_reserved/danonyir/cell_batch.sql.j2",
                  {**params, "m": cells.near(t, max(cells.SCAN, k)), "mc": cells.near_groups(t, max(cells.CLASSES, k)),
                   "div": t.div, "kc": min(k, cells.KC)},
                  target=t.batch, rest=t.rest, classes=t.classes, cells=t.cells)
        else:
            t.run("families/identity_reserved/danonyir/batch.sql.j2", params, target=t.batch, rest=t.rest,
                  classes=t.classes)
        people, pmask = _fetch(t, t.rest, "pid", "pids", seeds, seeds=True)
        classes, cmask = _fetch(t, t.classes, "cid", "cids", seeds)
        del classes["home"]                       # its group serves the statement only (cells.py)
        classes["u"] = np.zeros(cmask.shape[1])
        entries = t.rows("families/identity_reserved/danonyir/batch_bounds.sql.j2", batch=t.batch)
        return cls(entries, People(people), pmask, {p: i for i, p in enumerate(people["pid"].tolist())},
                   Classes(classes), cmask)

    def next(self, gone: set[int], counts: dict) -> dict | None:
        """The next seed still remaining (its entry), or None when the batch is spent; the
        seeds taken into earlier classes are counted in ``counts["absorbed"]``."""
        while self.seeds:
            entry = self.seeds.pop(0)
            if entry["seed"] not in gone:
                return entry
            counts["absorbed"] += 1
        return None

    def seed(self, entry: dict) -> dict:
        """The seed's row (line 3)."""
        return self.people.row(self.at[entry["seed"]])

    def stored(self, cid: int, q) -> None:
        """Line 17: class ``cid`` joined D* after the statement: a candidate of every later seed."""
        self.fresh[cid] = {**q.element.params(), "cid": cid, "nrec": q.nrec, "nind": len(q.members),
                           "sn": q.element.span()}

    def drop(self, cid: int) -> None:
        """Line 12: class ``cid`` left D*."""
        self.dropped |= self.classes.cols["cid"] == cid
        self.fresh.pop(cid, None)

    def candidates(self, entry: dict, taken: list[int], e: Element) -> tuple[People, Classes]:
        """The candidates of a seed's Q (element ``e``): the statement's individuals not
        ``taken`` since (a list that only grows while the batch serves), its classes still in D*,
        and the classes stored since, with u, the normalized spans of their union with Q as it
        starts (Eq. 18, in loss.sql.j2's order of operations, as the statement computed them)."""
        for pid in taken[self.seen:]:
            if pid in self.at:
                self.gone[self.at[pid]] = True
        self.seen = len(taken)
        people = self.people.take(np.flatnonzero(_of(self.pmask, entry["i"]) & ~self.gone))
        classes = self.classes.take(np.flatnonzero(_of(self.cmask, entry["i"]) & ~self.dropped))
        classes.cols["u"] = classes.spans(e)
        fresh = Classes.of(list(self.fresh.values()), e)
        fresh.cols["u"] = fresh.spans(e)
        return people, classes.plus(fresh)
