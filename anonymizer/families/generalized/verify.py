"""Verification of a generalized candidate: every declared model re-checked in SQL on the
published QI columns (what a reader of the view sees), before anything is published."""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.generalized.form import Candidate
from anonymizer.measure import Counted
from anonymizer.models import KAnonymity
from anonymizer.models.check import REFERENCE, evaluate_all, reference_sql
from anonymizer.plan import Plan


def verify(engine: Engine, plan: Plan, candidate: Candidate, counted: Counted | None = None) -> list[dict]:
    """Re-check every declared model on the candidate's published QI columns (read once,
    when ``counted`` holds its rows counted per those columns and the sensitive values).

    t-closeness compares every published class with the input's distribution of the
    sensitive attribute (``plan.base``: the source minus rows suppressed for NULLs, before
    the algorithm suppressed anything), re-derived here from ``plan.base``: the reference
    every search uses (:func:`anonymizer.models.check.reference_sql` says why), so a node a
    search accepts passes here. Its entry says so: ``reference: input``.

    Raises PrivacyCheckFailed for the first model that does not hold.
    """
    models = list(plan.models)
    if not any(isinstance(m, KAnonymity) for m in models):
        models.insert(0, KAnonymity(1))
    column_of = {k.column.name: ident(k.column.name) for k in plan.sensitive}
    internal = {k.column.name: ident(k.internal) for k in plan.sensitive}
    globs = {i: f"({reference_sql(plan.base, internal[m.sensitive])})"
             for i, m in enumerate(models) if m.needs_global and m.sensitive is not None}
    source, groups, weight = ((counted.table, [counted.cls], counted.weight) if counted else
                              (candidate.table, [ident(c) for c in candidate.grouping], None))
    results = evaluate_all(engine, models, source, groups, column_of, globs=globs, hiers=plan.hiers, weight=weight)
    view = plan.target.view
    for r in results:
        if not r.holds:
            raise PrivacyCheckFailed(r.model, r.figure, r.failing, view)
    return [{"model": r.model, "figure": r.figure, "holds": r.holds,
             **({"reference": REFERENCE} if m.needs_global else {})} for m, r in zip(models, results)]


def input_reference(engine: Engine, plan: Plan) -> tuple[str, str] | None:
    """A work view of the input's sensitive values under their published names, so that the
    release's measured t compares with the input's distribution as the gate does."""
    if not plan.sensitive:
        return None
    cols = ", ".join(f"{k.internal} AS {ident(k.column.name)}" for k in plan.sensitive)
    engine.execute(f"CREATE VIEW {engine.work('input_reference')} AS SELECT {cols} FROM {plan.base}")
    assert engine.work_schema is not None   # engine.work opened it
    return (engine.work_schema, "input_reference")
