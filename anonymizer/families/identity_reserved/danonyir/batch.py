"""Algorithm 1 line 3 of paper 004 for several classes at once: the next seeds in draw order
and their candidates (:mod:`.search`), chosen in one statement over D and D*.

The seeds of line 3 are drawn in a known order (the release's random draw of Id_num,
draw.sql.j2), so ``batch.sql.j2`` takes the next :data:`SEEDS` remaining individuals in that
order and, for each as a class Q = {s} of its own, keeps what one candidates.sql.j2 scan would
keep when Q is drawn: the nearest individuals and classes and the bounds for the others. One
scan of D and D* thus serves up to :data:`SEEDS` classes. While the earlier classes of the batch
are formed, the choices stay sound:

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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonymizer.families.identity_reserved.danonyir.columns import Classes, People, words
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.families.identity_reserved.danonyir.state import Tables

#: Seeds (classes to be drawn) whose candidates one statement chooses.
SEEDS = 32


def _fetch(t: Tables, table: str, key: str, ids: list[int]) -> tuple[dict[str, np.ndarray], dict[int, int]]:
    """The rows of ``table`` whose ``key`` is in ``ids``, as columns, and each id's position."""
    cols = t.run("families/identity_reserved/danonyir/rows.sql.j2", {"ids": ids}, table=table, key=key).fetchnumpy()
    t.fetched += len(cols[key])
    cols = {name: words(c) if name[0] == "w" else c for name, c in cols.items()}
    return cols, {k: i for i, k in enumerate(cols[key].tolist())}


@dataclass
class Batch:
    """The seeds of one batch statement not drawn yet (draw order) with their candidates' ids
    and the u of their candidate classes, the rows of the seeds and candidates as columns, and
    how D* changed since the statement."""

    seeds: list[dict]
    people: People
    at: dict[int, int]                                      # Id_num -> position in people
    classes: Classes
    cat: dict[int, int]                                     # class id -> position in classes
    fresh: dict[int, dict] = field(default_factory=dict)    # classes stored since, by cid
    dropped: set[int] = field(default_factory=set)          # classes merged since

    @classmethod
    def choose(cls, t: Tables, k: int, seeds: int) -> "Batch":
        """The next ``seeds`` seeds and their ``k`` candidates: the batch statement, then one
        statement each for the rows of the seeds and candidates and for the candidate classes.
        D's and D*'s tables are brought up to date first (the taken individuals leave D, the
        classes stored join D*)."""
        t.flush()
        t.sync()
        params = {"b": seeds, "k": k, **{f"inv{a.i}": a.inv for a in t.attrs}}
        entries = t.rows("families/identity_reserved/danonyir/batch.sql.j2", params, rest=t.rest, classes=t.classes)
        pids = sorted({e["seed"] for e in entries} | {p for e in entries for p in e["pids"] or []})
        cids = sorted({c for e in entries for c in e["cids"] or []})
        people, at = _fetch(t, t.rest, "pid", pids)
        classes, cat = _fetch(t, t.classes, "cid", cids)
        classes["u"] = np.zeros(len(cids))
        return cls(entries, People(people), at, Classes(classes), cat)

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
        self.dropped.add(cid)
        self.fresh.pop(cid, None)

    def candidates(self, entry: dict, gone: set[int], e: Element) -> tuple[People, Classes]:
        """The candidates of a seed's Q (element ``e``): the statement's individuals not taken
        since, its classes still in D* (with their u), and the classes stored since (their u
        for Q as it starts)."""
        people = self.people.take([self.at[p] for p in entry["pids"] or [] if p not in gone])
        kept = [(self.cat[c], u) for c, u in zip(entry["cids"] or [], entry["us"] or []) if c not in self.dropped]
        classes = self.classes.take([i for i, _ in kept])
        classes.cols["u"] = np.array([u for _, u in kept], dtype=np.float64)
        fresh = Classes.of(list(self.fresh.values()), e)
        fresh.cols["u"] = fresh.spans(e)
        return people, classes.plus(fresh)
