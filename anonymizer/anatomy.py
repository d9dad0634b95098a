"""Anatomy output of paper 002's MSB algorithms: a QI table and a sensitive table, joined by
group id, verified in SQL before anything is published.

- QI table ``<view>``: ``row_id``, the quasi-identifiers as they are, passed-through
  columns, ``group_id``.
- Sensitive table ``<view>_sensitive``: ``group_id``, the sensitive attributes, ``count``
  (records of the group carrying that composite vector).

Verification (:func:`verify`) re-reads both candidate tables: every group must satisfy the
spec's model on every sensitive attribute (Definition 11, or Definition 8), and the QI
table's group sizes must equal the sensitive table's counts. Metrics (:func:`metrics`) are
paper 002's additional information loss (Definition 14) and suppression ratio (Definition 15).
"""

from __future__ import annotations

from dataclasses import dataclass

from .algorithms.msb import MsbResult
from .engine import Engine
from .errors import PrivacyCheckFailed, SpecError
from .prepare import Plan
from .sqlnames import ident

ROW_ID, GROUP_ID, COUNT = "row_id", "group_id", "count"


@dataclass(frozen=True)
class AnatomyCandidate:
    """The two candidate work tables and their published column names."""

    qi_table: str
    qi_columns: list[str]
    sens_table: str
    sens_columns: list[str]
    rows: int
    groups: int


def build(engine: Engine, plan: Plan, result: MsbResult) -> AnatomyCandidate:
    """Write the QI and sensitive candidate tables from ``result.assign``."""
    _check_names(plan)
    qi_table, sens_table = engine.work("candidate"), engine.work("candidate_sensitive")
    qis = [{"dom": q.dom, "col": ident(q.name)} for q in plan.qis]
    passthrough = [{"name": x.internal, "col": ident(x.column.name)} for x in plan.passthrough]
    engine.run("msb/qi_table.sql.j2", {"seed": plan.spec.algorithm.seed or 0}, target=qi_table,
               assign=result.assign, base=plan.base, qis=qis, passthrough=passthrough,
               row_id=ident(ROW_ID), group_id=ident(GROUP_ID))
    sens = [{"name": k.internal, "col": ident(k.column.name)} for k in plan.sensitive]
    engine.run("msb/sensitive_table.sql.j2", target=sens_table, assign=result.assign, base=plan.base,
               sens=sens, group_id=ident(GROUP_ID), count=ident(COUNT))
    rows = engine.execute(f"SELECT count(*) FROM {qi_table}").fetchone()[0]
    qi_columns = [ROW_ID] + [q.name for q in plan.qis] + [x.column.name for x in plan.passthrough] + [GROUP_ID]
    sens_columns = [GROUP_ID] + [k.column.name for k in plan.sensitive] + [COUNT]
    return AnatomyCandidate(qi_table, qi_columns, sens_table, sens_columns, rows, result.groups)


def verify(engine: Engine, plan: Plan, candidate: AnatomyCandidate, levels: str) -> list[dict]:
    """Check the model on every group of the candidate tables; raise PrivacyCheckFailed if not."""
    model = plan.spec.models[0]
    groups, min_size, worst, failing, mismatched, records = engine.one(
        "msb/verify.sql.j2", qi_table=candidate.qi_table, sens_table=candidate.sens_table,
        group_id=ident(GROUP_ID), count=ident(COUNT), sens=[ident(k.column.name) for k in plan.sensitive],
        levels=levels)
    view = f"{plan.spec.output.schema}.{plan.spec.output.view}"
    if mismatched or records != candidate.rows:
        raise PrivacyCheckFailed(str(model), f"{mismatched} groups whose QI rows and sensitive counts differ",
                                 mismatched, view)
    if groups and failing:
        raise PrivacyCheckFailed(str(model), f"worst c(v) * l / |G| = {worst:.4g} > 1", failing, view)
    return [{"model": str(model), "figure": float(worst or 0.0), "holds": True, "groups": groups,
             "min_group_size": min_size}]


def metrics(engine: Engine, plan: Plan, candidate: AnatomyCandidate, levels: str, suppressed: int) -> dict:
    """Additional information loss (Def. 14), suppression ratio (Def. 15) and group sizes."""
    groups, records, sum_lg, loss, avg, largest = engine.one(
        "msb/metrics.sql.j2", sens_table=candidate.sens_table, group_id=ident(GROUP_ID), count=ident(COUNT),
        sens=[ident(k.column.name) for k in plan.sensitive], levels=levels)
    return {"additional_information_loss": float(loss or 0.0), "suppression_ratio": suppressed / plan.rows,
            "groups": groups, "records": int(records or 0), "sum_l": int(sum_lg or 0),
            "average_group_size": float(avg or 0.0), "largest_group": int(largest or 0)}


def _check_names(plan: Plan) -> None:
    """The output's own columns must not clash with the table's."""
    qi_side = [q.name for q in plan.qis] + [x.column.name for x in plan.passthrough]
    for name in qi_side + [k.column.name for k in plan.sensitive]:
        if name.lower() in (ROW_ID, GROUP_ID, COUNT):
            raise SpecError(f"columns.{name}", f"clashes with the anatomy output's column {name.lower()!r}; "
                                               "rename it in a view first")
