"""Set generalization and identity elements (paper 004, section 2.2) for DAnonyIR.

Without taxonomy trees (Wang et al. 2010), ω records are generalized to their *identity
element* r̄ = δ(r_1, .., r_ω): the interval [min a_i, max b_i] on a numeric QI, the union of the
value sets on a categorical QI, and null on the sensitive attribute. :class:`Element` is one
class's r̄, held in Python (it is one small row); :class:`Attr` describes a QI's domain for the
losses of Eqs. (11) and (12): a numeric span is divided by U - L (the domain's width, a spec
``domain`` or the values present), a categorical one by |X| - 1 (the number of distinct
values, minus one). A one-value domain loses nothing (its weight is 0).

Categorical value sets are bit sets over the QI's codes (64 codes a word), so the size of a
union in SQL is a ``bit_count`` of ORed words (templates/families/identity_reserved/danonyir/loss.sql.j2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from anonymizer.plan import Plan

WORD = 64


@dataclass(frozen=True)
class Attr:
    """A QI as the distances read it: index, kind, weight 1/(U-L) or 1/(|X|-1), words of its
    set, its domain table and its number of codes."""

    i: int
    numeric: bool
    inv: float
    words: int
    dom: str
    m: int = 0

    def context(self) -> dict[str, Any]:
        return {"i": self.i, "numeric": self.numeric, "words": self.words, "dom": self.dom, "m": self.m}


def attrs_of(plan: Plan) -> list[Attr]:
    """The plan's QIs with the weights of Eqs. (11) and (12) and their domains (one small
    ``dom`` table per QI: its distinct values)."""
    out = []
    for q in plan.qis:
        if q.numeric:
            assert q.num_min is not None and q.num_max is not None   # a numeric QI has its domain
            width = float(q.num_max) - float(q.num_min)
            out.append(Attr(q.index, True, 1.0 / width if width > 0 else 0.0, 0, q.dom, q.m))
        else:
            out.append(Attr(q.index, False, 1.0 / (q.m - 1) if q.m > 1 else 0.0, -(-q.m // WORD), q.dom, q.m))
    return out


@dataclass
class Element:
    """The identity element of a set of records: per QI an interval or a bit set of codes."""

    attrs: list[Attr]
    lo: dict[int, float] = field(default_factory=dict)
    hi: dict[int, float] = field(default_factory=dict)
    words: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def of_individual(cls, attrs: list[Attr], row: Mapping[str, Any]) -> "Element":
        """The original identity element of an individual (Algorithm 1 line 4): its values."""
        e = cls(attrs)
        for a in attrs:
            if a.numeric:
                e.lo[a.i] = e.hi[a.i] = float(row[f"v{a.i}"])
            else:
                code = int(row[f"c{a.i}"])
                e.words[a.i] = [(1 << (code % WORD)) if j == code // WORD else 0 for j in range(a.words)]
        return e

    @classmethod
    def of_class(cls, attrs: list[Attr], row: Mapping[str, Any]) -> "Element":
        """The identity element stored with a formed class (a row of the classes table)."""
        e = cls(attrs)
        for a in attrs:
            if a.numeric:
                e.lo[a.i], e.hi[a.i] = float(row[f"lo{a.i}"]), float(row[f"hi{a.i}"])
            else:
                e.words[a.i] = [int(row[f"w{a.i}_{j}"]) for j in range(a.words)]
        return e

    def merge(self, other: "Element") -> None:
        """r̄ = δ(r̄, r̄'): the interval hull and the union of sets (section 2.2)."""
        for a in self.attrs:
            if a.numeric:
                self.lo[a.i], self.hi[a.i] = min(self.lo[a.i], other.lo[a.i]), max(self.hi[a.i], other.hi[a.i])
            else:
                self.words[a.i] = [x | y for x, y in zip(self.words[a.i], other.words[a.i])]

    def span(self) -> float:
        """Sum over the QIs of the normalized spans, (b - a)/(U - L) and (|V| - 1)/(|X| - 1):
        the loss of Eq. (13) of one record generalized from its original values to this element."""
        total = 0.0
        for a in self.attrs:
            if a.numeric:
                total += (self.hi[a.i] - self.lo[a.i]) * a.inv
            else:
                total += (sum(bin(w).count("1") for w in self.words[a.i]) - 1) * a.inv
        return total

    def increments(self) -> dict[str, list[float]]:
        """Per categorical QI and per domain code, how much an individual holding that value
        widens this element, in Eq. (12) units: ``inc<i>[code + 1]``, 1/(|X| - 1) when the code
        is not in the set (templates/families/identity_reserved/danonyir/loss.sql.j2,
        ``point_spans``, looks it up instead of testing bits per row). A numeric QI's increment
        (Eq. 11: how far the value lies outside [lo, hi], over U - L) is computed in SQL from
        the value: a list per code would cost a step time in proportion to the distinct values."""
        out = {}
        for a in self.attrs:
            if not a.numeric:
                words = self.words[a.i]
                out[f"inc{a.i}"] = [0.0 if words[c // WORD] >> (c % WORD) & 1 else a.inv for c in range(a.m)]
        return out

    def params(self) -> dict[str, Any]:
        """The element as bound parameters of templates/families/identity_reserved/danonyir/loss.sql.j2."""
        out: dict[str, Any] = {}
        for a in self.attrs:
            out[f"inv{a.i}"] = a.inv
            if a.numeric:
                out[f"lo{a.i}"], out[f"hi{a.i}"] = self.lo[a.i], self.hi[a.i]
            else:
                out.update({f"w{a.i}_{j}": w for j, w in enumerate(self.words[a.i])})
        return out
