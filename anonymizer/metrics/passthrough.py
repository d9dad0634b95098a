"""What passed-through columns give away (issue 56): a column published as it is may tell a
quasi-identifier the release generalized for some rows, or hold a value only one row has
(``metrics/passthrough.sql.j2``). Nothing in the declared models looks at such columns, so
the release's verdict can hold while they disclose; the summary and the report warn
(:mod:`anonymizer.release.warnings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.engine.session import Engine

if TYPE_CHECKING:
    from anonymizer.plan import Plan


#: a column's value tells a QI's value when at least this share of the rows holding it hold that
#: one (Adult's relationship: Husband is male in all but one of 13,193 rows)
TELLS = 0.95


def passthrough(engine: Engine, plan: Plan, assign: str, classes: str) -> list[dict]:
    """``[{column, qi, rows}]``: per passed-through column the rows whose generalized QI ``qi``
    it tells (through a value at least k rows hold, :data:`TELLS` of them with one value of
    ``qi``: the rows holding that one are counted), and (``qi`` ``None``) the rows whose value
    it alone holds; the non-zero counts.

    Args:
        assign: ``(__rid, __cid)``, each base row's class; classes: ``(__cid, __n<i>)``.
    """
    if not plan.passthrough:
        return []
    params = {"k": max(plan.k or 2, 2), "share": TELLS} | {f"x{j}": k.column.name for j, k in enumerate(plan.passthrough)} | {f"q{q.index}": q.name
                                                                                  for q in plan.qis}
    found = engine.rows("metrics/passthrough.sql.j2", params, base=plan.base, assign=assign, classes=classes,
                        kept=[{"internal": k.internal} for k in plan.passthrough], qis=[{"i": q.index} for q in plan.qis])
    return [{"column": column, "qi": qi, "rows": int(rows)} for column, qi, rows in found]
