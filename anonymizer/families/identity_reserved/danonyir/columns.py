"""The candidates of DAnonyIR's pruned search (:mod:`.search`) as columns, and their distances
to the growing class Q (paper 004, Eqs. 17 and 18) computed with numpy in the statements' order
of operations (templates/families/identity_reserved/danonyir/loss.sql.j2), so that a candidate's
distance is the statement's to the last bit.

A batch's candidates (:mod:`.batch`) are fetched once as columns (``fetchnumpy``: no Python
object per value) and each Q takes its rows by position; a row becomes a dict only when it
joins Q (Algorithm 1 lines 10 and 12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from anonymizer.families.identity_reserved.danonyir.element import Attr, Element

#: A figure this close to a bound, threshold or rival (relative) is not certified.
MARGIN = 1e-9


def near(x: float, y: float) -> bool:
    return x == y or abs(x - y) <= MARGIN * max(1.0, abs(x), abs(y)) < math.inf


def below(x: float, bound: float) -> bool:
    return x < bound and not near(x, bound)


def first(d: np.ndarray, ids: np.ndarray) -> int | None | Literal[False]:
    """The index of the least (d, id), None when there is none, False when another distance
    lies within the margin of it and is not equal to it (an exact tie goes to the smaller id,
    here as in SQL: the same operations on the same numbers)."""
    if not len(d):
        return None
    least = d.min()
    close = np.flatnonzero(d - least <= MARGIN * np.maximum(1.0, np.maximum(abs(least), np.abs(d))))   # near()
    if len(close) > 1 and (d[close] != least).any():
        return False
    return int(close[np.argmin(ids[close])])


def _array(values: list, name: str) -> np.ndarray:
    if name == "sens":
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    if name[0] == "w":
        return words(np.array(values, dtype=np.int64 if any(v < 0 for v in values) else np.uint64))
    return np.array(values, dtype=np.float64 if name in ("sn", "u", "d") or name[0] in "vlh" else np.int64)


def words(column: np.ndarray) -> np.ndarray:
    """A column of 64-bit words (bits of a categorical set) as ``uint64``: Spark has no unsigned
    type and returns them as ``BIGINT``, the same bits (:func:`anonymizer.engine.spark._signed`)."""
    return column.view(np.uint64) if column.dtype == np.int64 else column


@dataclass
class Columns:
    """Rows as columns (name -> array)."""

    cols: dict[str, np.ndarray]

    @classmethod
    def names(cls, attrs: list[Attr]) -> list[str]:
        raise NotImplementedError

    @classmethod
    def of(cls, rows: list[dict], e: Element):
        """From rows as dicts (a statement's structs), for Q's element ``e`` (its QIs); a
        missing figure is NaN."""
        return cls({n: _array([r.get(n) for r in rows], n) for n in cls.names(e.attrs)})

    def __len__(self) -> int:
        return len(self.cols["nrec"])

    def take(self, idx: "list[int] | np.ndarray"):
        """The rows at positions ``idx`` (a list or an array of them)."""
        at = np.asarray(idx, dtype=np.intp)   # converted once, not once a column
        return type(self)({n: c[at] for n, c in self.cols.items()})

    def row(self, i: int) -> dict:
        """Row ``i`` as a dict of Python values."""
        return {n: (c[i].tolist() if hasattr(c[i], "tolist") else c[i]) for n, c in self.cols.items()}


@dataclass
class People(Columns):
    """The candidate individuals: Id_num, |R(p)|, S(p), and per QI the value (numeric) or code
    (categorical); ``gone``: taken out of D since they were chosen (the first ``seen`` of the
    list :meth:`nearest` is given)."""

    gone: np.ndarray = field(init=False)
    seen: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.gone = np.zeros(len(self), dtype=bool)

    @classmethod
    def names(cls, attrs: list[Attr]) -> list[str]:
        return ["pid", "nrec", "sens"] + [f"{'v' if a.numeric else 'c'}{a.i}" for a in attrs]

    def nearest(self, q, sq: float, taken: list[int]) -> tuple[float, dict] | None | Literal[False]:
        """Eq. (17) for every candidate not in ``taken`` (the individuals taken since the
        candidates were chosen: a list that only grows), in nearest.sql.j2's order of
        operations, and the nearest by (distance, Id_num) (:func:`first`)."""
        e, nq = q.element, q.nrec
        incs, cats = [], e.increments()
        for a in e.attrs:
            if a.numeric:
                x = self.cols[f"v{a.i}"]
                incs.append(np.maximum(np.maximum(x - e.hi[a.i], e.lo[a.i] - x), 0.0) * a.inv)
            else:
                incs.append(np.asarray(cats[f"inc{a.i}"], dtype=np.float64)[self.cols[f"c{a.i}"]])
        u = np.full(len(self), sq)
        for inc in incs:
            u = u + inc
        d = (self.cols["nrec"] + nq) * u - nq * sq
        pid = self.cols["pid"]
        for out in taken[self.seen:]:
            self.gone |= pid == out
        self.seen = len(taken)
        alive = np.flatnonzero(~self.gone)
        best = first(d[alive], pid[alive])
        if best is None or best is False:
            return best
        return float(d[alive[best]]), self.row(alive[best])


@dataclass
class Classes(Columns):
    """The candidate classes: class id, |Q'|, n_Q', sn', u (the normalized spans of their union
    with Q when they were chosen: the bound's figure), per QI the interval (numeric) or the words
    of the set of codes (categorical); ``alive``: not merged into Q since."""

    alive: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.alive = np.ones(len(self), dtype=bool)

    @classmethod
    def names(cls, attrs: list[Attr]) -> list[str]:
        out = ["cid", "nrec", "nind", "sn", "u"]
        for a in attrs:
            out += [f"lo{a.i}", f"hi{a.i}"] if a.numeric else [f"w{a.i}_{j}" for j in range(a.words)]
        return out

    def plus(self, other: "Classes") -> "Classes":
        return Classes({n: np.concatenate([c, other.cols[n]]) for n, c in self.cols.items()})

    def drop(self, cid: int) -> None:
        self.alive &= self.cols["cid"] != cid

    def bound(self, nq: int, sq: float) -> float:
        """The least lower bound of Eq. (18) over the candidates (:mod:`.search`)."""
        k, c = self.alive, self.cols
        u = c["u"][k]
        return float(np.min(c["nrec"][k] * (u - c["sn"][k]) + nq * (np.maximum(u, sq) - sq), initial=math.inf))

    def spans(self, e: Element) -> np.ndarray:
        """The normalized spans of each candidate's union with ``e`` (Eqs. 11, 12), in
        loss.sql.j2's ``union_spans`` order of operations."""
        c = self.cols
        u = np.zeros(len(self))
        for a in e.attrs:
            if a.numeric:
                u = u + (np.maximum(c[f"hi{a.i}"], e.hi[a.i]) - np.minimum(c[f"lo{a.i}"], e.lo[a.i])) * a.inv
            else:
                bits = sum(np.bitwise_count(c[f"w{a.i}_{j}"] | np.uint64(w)).astype(np.int64)
                           for j, w in enumerate(e.words[a.i]))
                u = u + (bits - 1) * a.inv
        return u

    def distances(self, e: Element, sq: float, nq: int) -> np.ndarray:
        """Eq. (18) for every candidate, in loss.sql.j2's order of operations (union_spans, then
        class_distance)."""
        c = self.cols
        return (c["nrec"] + nq) * self.spans(e) - c["nrec"] * c["sn"] - nq * sq

    def nearest(self, e: Element, sq: float, nq: int) -> tuple[float, dict] | None:
        """The nearest candidate by (distance, class id), None when there is none or when another
        lies within the margin of it (:func:`first`: an exact tie goes to the smaller class id, as
        line 8's statement breaks it; at 256,000 patients identical classes tied in 2,652 steps)."""
        alive = np.flatnonzero(self.alive)
        d = self.distances(e, sq, nq)[alive]
        best = first(d, self.cols["cid"][alive])
        return None if best is None or best is False else (float(d[best]), self.row(alive[best]))
