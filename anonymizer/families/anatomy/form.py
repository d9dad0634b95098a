"""Anatomy output of paper 002's MSB algorithms: a QI table and a sensitive table, joined by
group id, verified in SQL before anything is published.

- QI table ``<view>``: ``row_id``, the quasi-identifiers as they are, passed-through
  columns, ``group_id``.
- Sensitive table ``<view>_sensitive``: ``group_id``, the sensitive attributes, ``count``
  (records of the group carrying that composite vector) and, in an m-invariant release
  (:mod:`.invariance`), ``counterfeits`` (the group's counterfeit records, in its counts).

Verification (:func:`judge`, then :func:`verify`) re-reads both candidate tables: every group must satisfy the
spec's model on every sensitive attribute (Definition 11, or Definition 8), and the QI
table's group sizes must equal the sensitive table's counts. Metrics (:func:`metrics`) are
paper 002's additional information loss (Definition 14) and suppression ratio (Definition 15).
"""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.families.anatomy.msb import MsbResult
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed, SpecError
from anonymizer.plan import Plan
from anonymizer.engine.names import ident

ROW_ID, GROUP_ID, COUNT, COUNTERFEITS = "row_id", "group_id", "count", "counterfeits"


@dataclass(frozen=True)
class AnatomyCandidate:
    """The two candidate work tables and their published column names."""

    qi_table: str
    qi_columns: list[str]
    sens_table: str
    sens_columns: list[str]
    rows: int
    groups: int


def build(engine: Engine, plan: Plan, result: MsbResult, counterfeits: bool = False) -> AnatomyCandidate:
    """Write the QI and sensitive candidate tables from ``result.assign``; with
    ``counterfeits`` (m-invariance) the sensitive table holds ``result.rows``' counterfeit
    records and publishes each group's count of them (:data:`COUNTERFEITS`)."""
    qi_table, sens_table = engine.work("candidate"), engine.work("candidate_sensitive")
    qis = [{"dom": q.dom, "col": ident(q.name)} for q in plan.qis]
    passthrough = [{"name": x.internal, "col": ident(x.column.name)} for x in plan.passthrough]
    engine.run("families/anatomy/qi_table.sql.j2", plan.key.params(), target=qi_table,
               assign=result.assign, base=plan.base, qis=qis, passthrough=passthrough,
               row_id=ident(ROW_ID), group_id=ident(GROUP_ID))
    sens = [{"name": k.internal, "col": ident(k.column.name)} for k in plan.sensitive]
    engine.run("families/anatomy/sensitive_table.sql.j2", target=sens_table, assign=result.assign,
               base=result.rows or plan.base, sens=sens, group_id=ident(GROUP_ID), count=ident(COUNT),
               counterfeits=ident(COUNTERFEITS) if counterfeits else None)
    rows = engine.count(qi_table)
    qi_columns = [ROW_ID] + [q.name for q in plan.qis] + [x.column.name for x in plan.passthrough] + [GROUP_ID]
    sens_columns = [GROUP_ID] + [k.column.name for k in plan.sensitive] + [COUNT] + ([COUNTERFEITS] if counterfeits else [])
    return AnatomyCandidate(qi_table, qi_columns, sens_table, sens_columns, rows, result.groups)


def judge(engine: Engine, plan: Plan, candidate: AnatomyCandidate, buckets: str) -> dict:
    """Every figure of the candidate tables, read back from them in one statement (families/anatomy/judge)."""
    keys = ("groups", "min_size", "worst", "failing", "mismatched", "records", "sum_lg", "avg_size", "max_size",
            "published")
    row = engine.one("families/anatomy/judge.sql.j2", qi_table=candidate.qi_table, sens_table=candidate.sens_table,
                     group_id=ident(GROUP_ID), count=ident(COUNT), sens=[ident(k.column.name) for k in plan.sensitive],
                     internal=[k.internal for k in plan.sensitive], buckets=buckets,
                     counterfeits=ident(COUNTERFEITS) if COUNTERFEITS in candidate.sens_columns else None)
    return dict(zip(keys, row))


def verify(plan: Plan, candidate: AnatomyCandidate, figures: dict) -> list[dict]:
    """The model holds on every group and both tables agree; else PrivacyCheckFailed."""
    model = plan.models[0]
    view = plan.target.view
    if figures["mismatched"] or figures["records"] != candidate.rows:
        raise PrivacyCheckFailed(str(model), f"{figures['mismatched']} groups whose QI rows and sensitive counts "
                                             f"differ", figures["mismatched"], view)
    if figures["failing"]:
        raise PrivacyCheckFailed(str(model), f"worst c(v) * l / |G| = {figures['worst']:.4g} > 1",
                                 figures["failing"], view)
    return [{"model": str(model), "figure": float(figures["worst"] or 0.0), "holds": True,
             "groups": figures["groups"], "min_group_size": figures["min_size"]}]


def metrics(plan: Plan, figures: dict, suppressed: int) -> dict:
    """Additional information loss (Def. 14), suppression ratio (Def. 15) and group sizes."""
    sum_lg = int(figures["sum_lg"] or 0)
    records, published = int(figures["records"] or 0), int(figures["published"] or 0)   # counterfeits count
    return {"additional_information_loss": (published - sum_lg) / sum_lg if sum_lg else 0.0,
            "suppression_ratio": suppressed / plan.rows, "groups": figures["groups"], "records": records,
            "sum_l": sum_lg, "average_group_size": float(figures["avg_size"] or 0.0),
            "largest_group": int(figures["max_size"] or 0)}


def check_names(plan: Plan) -> None:
    """The output's own columns must not clash with the table's."""
    qi_side = [q.name for q in plan.qis] + [x.column.name for x in plan.passthrough]
    for name in qi_side + [k.column.name for k in plan.sensitive]:
        if name.lower() in (ROW_ID, GROUP_ID, COUNT, COUNTERFEITS):
            raise SpecError(f"columns.{name}", f"clashes with the anatomy output's column {name.lower()!r}; "
                                               "rename it in a view first")
