"""Attribute classes and the QI partition of LGB (paper 000, Definitions 1 to 3 and 8).

A flag column per quasi-identifier says, row by row, whether the person treats the value as
sensitive. An attribute with no flagged cell is a QI attribute (Definition 1), one with
every cell flagged (or a column with role ``sensitive``) a sensitive attribute (Definition
2), and one with both kinds a semi-sensitive attribute (Definition 3). The QI partition
(Definition 8) groups the rows that carry QI values on the same attributes; local
generalization then works inside each subset.

Choice where the paper is silent: Algorithm 3 and 4 assume every subset has at least k
rows (Proposition 2). A subset with fewer cannot form a local equivalence group, and
moving its rows elsewhere would either generalize a sensitive value or bucketize a QI
value the adversary knows (which links the row through its bucket), so its rows are
suppressed, counted against the spec's ``suppression_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, cast

from anonymizer.engine.session import Engine
from anonymizer.families.lgb.models import LUnique
from anonymizer.plan import QI, Kept, Plan

if TYPE_CHECKING:
    from anonymizer.models import EntropyLDiversity, TCloseness

    #: a bucket principle (:func:`anonymizer.families.lgb.options.pair`)
    Principle: TypeAlias = LUnique | EntropyLDiversity | TCloseness

KINDS = ("qi", "semi-sensitive", "sensitive")


@dataclass(frozen=True)
class Attribute:
    """One attribute of the LGB table: a quasi column (maybe flagged) or a sensitive column.

    ``index`` is its position ``a`` in the LGB table (QIs first, in plan order, then the
    sensitive columns); ``code`` the ``base`` column holding it (``q<i>`` or ``s<j>``);
    ``kind`` its class by Definitions 1-3; ``principle`` the bucket model protecting its
    sensitive values (None for a QI attribute).
    """

    index: int
    name: str
    numeric: bool
    dom: str
    m: int
    kind: str
    sensitive_cells: int
    code: str
    flag: str | None = None
    qi: QI | None = None
    principle: Principle | None = None

    @property
    def bucketized(self) -> bool:
        return self.kind != "qi"


@dataclass(frozen=True)
class Subsets:
    """The QI partition: ``base(__rid, q0.., pat)`` with -1 for sensitive QI cells."""

    base: str
    rows: int
    kept: list[tuple[int, int]]       # (pat, rows) of every subset kept
    dropped: list[tuple[int, int]]    # (pat, rows) of the subsets suppressed (< k rows)

    @property
    def suppressed(self) -> int:
        return sum(n for _, n in self.dropped)


def attributes(engine: Engine, plan: Plan, subsets: "Subsets",
               kept: tuple[str, int] | None = None) -> list[Attribute]:
    """Every attribute with its class (Definitions 1-3, over the rows kept) and bucket
    principle. ``kept``: an m-invariant version's private groups and the version they hold
    (:mod:`anonymizer.families.lgb.invariance`), whose values the sensitive domain holds too,
    so that a counterfeit of a value no row holds any more has a code."""
    flagged = [q for q in plan.qis if q.flag]
    row = engine.one("families/lgb/attribute_counts.sql.j2", base=plan.base, kept=subsets.base,
                     flags=[q.flag for q in flagged])
    rows, cells = row[0], dict(zip((q.index for q in flagged), row[1:]))
    out = []
    for q in plan.qis:
        n = cells.get(q.index, 0)
        kind = KINDS[0] if n == 0 else KINDS[2] if n == rows else KINDS[1]
        out.append(Attribute(q.index, q.name, q.numeric, q.dom, q.m, kind, n, q.code, q.flag, q,
                             principle_of(plan, q.name) if n else None))
    for k in plan.sensitive:
        out.append(_sensitive_column(engine, plan, k, len(out), rows, kept))
    return out


def _sensitive_column(engine: Engine, plan: Plan, k: Kept, a: int, rows: int,
                      kept: tuple[str, int] | None) -> Attribute:
    dom = engine.work(f"adom{a}")
    groups, previous = kept or (None, None)
    engine.run("families/lgb/sensitive_domain.sql.j2", None if kept is None else {"previous": previous}, target=dom,
               base=plan.base, column=k.internal, numeric=k.numeric, groups=groups,
               type=engine.columns(plan.base)[k.internal])
    m = engine.count(dom)
    return Attribute(a, k.column.name, k.numeric, dom, m, KINDS[2], rows, k.internal,
                     principle=principle_of(plan, k.column.name))


def principle_of(plan: Plan, name: str) -> Principle:
    """The bucket model of attribute ``name``: the one naming it, else the default l-unique."""
    models = [m for m in plan.models if m.sensitive == name]
    if models:
        return cast("Principle", models[0])   # a model naming an attribute is a bucket principle (options.pair)
    default = next(m for m in plan.models if isinstance(m, LUnique) and m.attribute is None)
    return LUnique(default.l, name)


def qi_partition(engine: Engine, plan: Plan, k: int) -> Subsets:
    """Definition 8: each row's subset; subsets under ``k`` rows are suppressed."""
    flags = [{"col": q.flag, "bit": 1 << q.index} for q in plan.qis if q.flag]
    counts = engine.rows("families/lgb/subsets.sql.j2", base=plan.base, flags=flags)
    kept = [(int(p), int(n)) for p, n in counts if n >= k]
    dropped = [(int(p), int(n)) for p, n in counts if n < k]
    target = engine.work("lgb_base")
    qis = [{"code": q.code, "flag": q.flag, "bit": 1 << q.index} for q in plan.qis]
    engine.run("families/lgb/base.sql.j2", {"dropped": [p for p, _ in dropped]}, target=target, base=plan.base, qis=qis)
    return Subsets(target, sum(n for _, n in kept), kept, dropped)


def value_pairs(engine: Engine, plan: Plan, attrs: list[Attribute], subsets: Subsets) -> str:
    """Algorithm 1 line 4 for every bucketized attribute at once: ``pairs(a, __rid, code)``."""
    target = engine.work("lgb_pairs")
    spec = [{"a": x.index, "code": x.code, "flag": x.flag, "dom": None if x.qi else x.dom}
            for x in attrs if x.bucketized]
    engine.run("families/lgb/pairs.sql.j2", target=target, base=plan.base, kept=subsets.base, attrs=spec)
    return target


__all__ = ["Attribute", "Subsets", "attributes", "qi_partition", "value_pairs", "principle_of"]
