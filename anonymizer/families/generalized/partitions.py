"""What Mondrian (:mod:`.mondrian`) and top-down specialization (:mod:`.top_down`) share:
both partition the table's cells into strict classes (every QI vector in one class), whose
root, the whole table, must pass every model."""

from __future__ import annotations

import math
from dataclasses import replace

from anonymizer.base_rows import written
from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, PrivacyCheckFailed
from anonymizer.families.generalized.result import AlgorithmResult, Packing
from anonymizer.models import PrivacyModel, check
from anonymizer.plan import Plan


def check_whole_table(engine: Engine, plan: Plan, k: int, models: tuple[PrivacyModel, ...],
                      cells: str | None = None) -> None:
    """Nothing can be released if the whole table fails a model: stop with the figure (Alg. 3,
    line 15 for T itself; top-down specialization's root likewise). ``cells``: the table's
    cells (``n`` rows each, every sensitive column the models read), read instead of its rows."""
    if plan.base_rows < k:
        raise DataError(plan.source, f"{plan.base_rows} rows are left to anonymize, fewer than "
                                     f"k={k}: no equivalence class can be formed")
    column_of = {k.column.name: ident(k.internal) for k in plan.sensitive}
    for result in check.evaluate_all(engine, models, cells or plan.base, [], column_of, hiers=plan.hiers,
                                     weight=ident("n") if cells else None):
        if not result.holds:
            raise PrivacyCheckFailed(f"{result.model} (the whole table fails it, so no partition can "
                                     f"satisfy it)", result.figure, result.failing)


def packing(plan: Plan, qis: list[str]) -> Packing:
    """How a row finds its strict class by its QI codes ``qis`` (quoted ``q0..``): packed in
    one BIGINT when the codes' product fits in 62 bits (:class:`~.result.Packing`)."""
    radix = [q.m + 1 for q in plan.qis]        # codes run from -1 (LGB_MDP's sensitive cells) to m - 1
    weights = [math.prod(radix[:i]) for i in range(len(radix))]
    return Packing(qis, weights if math.prod(radix) < 2 ** 62 else None)


def with_assign(engine: Engine, plan: Plan, result: AlgorithmResult) -> AlgorithmResult:
    """``result`` with its work table ``assign`` written: Alg. 3, line 30 for strict classes
    (every QI vector in one class), each row of ``plan.base`` with the class of its QI codes
    among ``result.cells``. A result whose ``assign`` is written is returned as it is."""
    if result.packing is None:
        return result
    assert result.cells is not None   # a packing is only given with the class cells
    engine.run("families/generalized/mondrian/strict_assign.sql.j2", target=result.assign, base=written(engine, plan),
               cells=result.cells, qis=result.packing.qis, weights=result.packing.weights)
    return replace(result, packing=None)
