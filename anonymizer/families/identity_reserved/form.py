"""The identity-reserved table of paper 004 (Table 4): build it, verify it, measure it.

Published columns: ``ec_id`` (the equivalence class, 1..e), ``id_num`` (the renumbered
individual, Algorithm 1 line 1; the source's identifier is never published), per QI ``<qi>``
(the class's generalized value as a label: ``[33, 34]``, ``{10070, 10073}``, a single value, or
GeneIR's hierarchy node) with ``<qi>_low``/``<qi>_high`` (numeric) or ``<qi>_values`` (the
values a categorical cell covers), the sensitive value, and the insensitive columns unchanged
(footnote 1).

Verification before anything is published, re-read from the candidate table:

- the declared IR/EIR model holds in every class (:func:`anonymizer.families.identity_reserved.verify.verify`:
  counts in SQL, minimum hitting sets per class in Python where SQL cannot decide);
- every class has one generalized value per QI (Definition 2.1), every record's true value lies
  in it, every individual sits in exactly one class, and a numeric label agrees with its bounds
  (``templates/families/identity_reserved/judge.sql.j2``).

Metrics: NLoss (Eqs. 11-15), and for the IR models the share of vulnerable classes (section 5:
satisfying the IR model but not its EIR version).
"""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.families.identity_reserved import IR_MODEL_TYPES
from anonymizer.families.identity_reserved.danonyir import danonyir
from anonymizer.families.identity_reserved.geneir import domain_params, geneir
from anonymizer.families.identity_reserved.result import IRResult
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.generalized.form import check_clashes
from anonymizer.families.identity_reserved.individuals import Individuals
from anonymizer.families.identity_reserved.metrics import nloss
from anonymizer.families.identity_reserved import verify as identity_reserved
from anonymizer.plan import Plan
from anonymizer.engine.names import ident

EC_ID, ID_NUM, COUNTERFEITS = "ec_id", "id_num", "counterfeits"


@dataclass(frozen=True)
class IRCandidate:
    """The candidate work table, its published columns, and its sizes."""

    table: str
    columns: list[str]
    rows: int
    classes: int
    individuals: int


def model_of(plan: Plan):
    """The release's one identity-reserved model (the spec allows exactly one)."""
    return next(m for m in plan.models if m.spec_type in IR_MODEL_TYPES)


def run_algorithm(engine: Engine, plan: Plan, people: Individuals) -> IRResult:
    """DAnonyIR or GeneIR, as the spec says."""
    model = model_of(plan)
    if plan.algorithm == "geneir":
        return geneir(engine, plan, people.rec, people.ind, model)
    return danonyir(engine, plan, people, model)


def published_names(plan: Plan, counterfeits: bool = False) -> list[str]:
    """The published columns in order (with ``counterfeits``, each class's count of
    counterfeit individuals, in an m-invariant version); a clash with a generated name is a
    SpecError."""
    names = [EC_ID, ID_NUM]
    for q in plan.qis:
        names += [q.name] + ([f"{q.name}_low", f"{q.name}_high"] if q.numeric else [f"{q.name}_values"])
    names += [plan.sensitive[0].column.name] + [k.column.name for k in plan.passthrough]
    names += [COUNTERFEITS] if counterfeits else []
    check_clashes(names, "a column of the identity-reserved table (ec_id, id_num, <qi>_low, <qi>_high, "
                         "<qi>_values, counterfeits); rename it in a view first")
    return names


def _qi_context(plan: Plan) -> list[dict]:
    return [{"i": q.index, "out": ident(q.name), "numeric": q.numeric, "dom": q.dom, "low": ident(f"{q.name}_low"),
             "high": ident(f"{q.name}_high"), "setcol": ident(f"{q.name}_values")} for q in plan.qis]


def build(engine: Engine, plan: Plan, rec: str, result: IRResult, counterfeits: bool = False) -> IRCandidate:
    """Write the candidate table (templates/families/identity_reserved/class_values.sql.j2 per
    QI, then families/identity_reserved/table.sql.j2) of the records ``rec`` (``(__rid, pid,
    s)``) in the classes ``result.assign``; with ``counterfeits`` (an m-invariant version,
    :mod:`.invariance`: ``plan.base`` holds the counterfeit records and ``result.assign`` marks
    counterfeit individuals by a negative ``irid``), each class's count of them is published."""
    columns = published_names(plan, counterfeits)
    qis = _qi_context(plan)
    for q, ctx in zip(plan.qis, qis):
        ctx["table"] = engine.work(f"ir_values{q.index}")
        engine.run("families/identity_reserved/class_values.sql.j2", domain_params(q) if q.numeric and result.levels else None,
                   target=ctx["table"], assign=result.assign, records=rec, base=plan.base, dom=q.dom,
                   hier=q.hier, levels=result.levels, i=q.index, numeric=q.numeric)
    table = engine.work("ir_candidate")
    kept = [{"internal": k.internal, "out": ident(k.column.name)} for k in plan.passthrough]
    engine.run("families/identity_reserved/table.sql.j2", plan.key.params(), target=table, assign=result.assign, records=rec, base=plan.base, qis=qis,
               sens=ident(plan.sensitive[0].column.name), kept=kept,
               counterfeits=ident(COUNTERFEITS) if counterfeits else None)
    rows, classes, persons = engine.execute(
        f"SELECT count(*), count(DISTINCT {ident(EC_ID)}), count(DISTINCT {ident(ID_NUM)}) FROM {table}").fetchone()
    return IRCandidate(table, columns, rows, classes, persons)


def drop(engine: Engine, plan: Plan, candidate: IRCandidate) -> None:
    """Drop a candidate and its class values (:func:`build` makes them anew)."""
    engine.release_tables(candidate.table, *(engine.work(f"ir_values{q.index}") for q in plan.qis), always=True)


def verify(engine: Engine, plan: Plan, candidate: IRCandidate) -> list[dict]:
    """The model in every class, and the table's form (see the module docstring).

    Raises PrivacyCheckFailed naming what does not hold; nothing is published then.
    """
    view = plan.target.view
    form = engine.one("families/identity_reserved/judge.sql.j2", candidate=candidate.table, base=plan.base, qis=_qi_context(plan))
    records, classes, persons, split, outside, torn, mislabelled = form
    for count, what in ((split, "classes with more than one generalized value"),
                        (outside, "records whose value lies outside their class's generalized value"),
                        (torn, "individuals in more than one class"),
                        (mislabelled, "records whose numeric label and bounds disagree")):
        if count:
            raise PrivacyCheckFailed("identity-reserved table form (paper 004, Definition 2.1)", f"{count} {what}",
                                     count, view)
    sens = ident(plan.sensitive[0].column.name)
    checks = identity_reserved.verify(engine, [model_of(plan)], candidate.table, ident(EC_ID), ident(ID_NUM), sens)
    for c in checks:
        if not c["holds"]:
            raise PrivacyCheckFailed(c["model"], c["figure"], c["failing"], view)
    return checks


def metrics(engine: Engine, plan: Plan, candidate: IRCandidate, result: IRResult, counterfeits: bool = False) -> dict:
    """NLoss (Eq. 15), class sizes, and the vulnerable classes of an IR model (section 5);
    with ``counterfeits`` (an m-invariant version), NLoss is over the source's records only."""
    qis = [{"name": q.name, "numeric": True, "low": q.num_min, "high": q.num_max} if q.numeric
           else {"name": q.name, "numeric": False, "size": q.m} for q in plan.qis]
    loss = nloss(engine, candidate.table, qis, plan.base_rows, result.suppressed_records, real_only=counterfeits)
    out = {"nloss": loss["nloss"], "nloss_per_qi": loss["per_qi"], "classes": candidate.classes,
           "individuals": candidate.individuals, "records": candidate.rows,
           "individuals_per_class": candidate.individuals / candidate.classes if candidate.classes else None,
           "records_per_class": candidate.rows / candidate.classes if candidate.classes else None,
           "suppressed_individuals": result.suppressed_individuals}
    model = model_of(plan)
    enhanced = model.enhanced() if hasattr(model, "enhanced") else None
    if enhanced is not None:
        sens = ident(plan.sensitive[0].column.name)
        out["vulnerable"] = identity_reserved.vulnerable(engine, model, candidate.table, ident(EC_ID), ident(ID_NUM),
                                                         sens)
    return out
