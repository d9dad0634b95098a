"""Verification of a generalized candidate: every declared model re-checked in SQL on the
published QI columns (what a reader of the view sees), before anything is published."""

from __future__ import annotations

from anonymizer.base_rows import written
from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.generalized.form import CLASS_SIZE, Candidate
from anonymizer.measure import Counted
from anonymizer.models import KAnonymity, population
from anonymizer.models.check import REFERENCE, ModelResult, evaluate_all, reference_sql
from anonymizer.plan import Plan


def verify(engine: Engine, plan: Plan, candidate: Candidate, counted: Counted | None = None) -> list[dict]:
    """Re-check every declared model on the candidate's published QI columns (read once,
    when ``counted`` holds its rows counted per those columns and the sensitive values).

    t-closeness compares every published class with the input's distribution of the
    sensitive attribute (``plan.base``: the source minus rows suppressed for NULLs, before
    the algorithm suppressed anything), re-derived here from ``plan.base``: the reference
    every search uses (:func:`anonymizer.models.check.reference_sql` says why), so a node a
    search accepts passes here. Its entry says so: ``reference: input``.

    k-map and delta-presence (:mod:`anonymizer.models.population`) are checked on the class
    table's hierarchy nodes (``__lo<i>``, at the release's one level vector, ``<qi>_level``)
    against the population generalized to the same levels; delta-presence also fails on a
    population class without input rows whose delta 0 is below ``dmin`` (ARX's
    ``HashGroupify.analyze``; a class whose input rows were all suppressed is not one). Their
    entries name the population; delta-presence's figure is the largest delta, beside
    ``delta_min``.

    Raises PrivacyCheckFailed for the first model that does not hold.
    """
    models = [m for m in plan.models if not m.needs_population]
    if not any(isinstance(m, KAnonymity) for m in models):
        models.insert(0, KAnonymity(1))
    column_of = {k.column.name: ident(k.column.name) for k in plan.sensitive}
    internal = {k.column.name: ident(k.internal) for k in plan.sensitive}
    globs = {i: f"({reference_sql(plan.base, internal[m.sensitive])})"
             for i, m in enumerate(models) if m.needs_global and m.sensitive is not None}
    source, groups, weight = ((counted.table, [counted.cls], counted.weight) if counted else
                              (candidate.table, [ident(c) for c in candidate.grouping], None))
    results = evaluate_all(engine, models, source, groups, column_of, globs=globs, hiers=plan.hiers, weight=weight)
    entries = [{"model": r.model, "figure": r.figure, "holds": r.holds,
                **({"reference": REFERENCE} if m.needs_global else {})} for m, r in zip(models, results)]
    if plan.populations:
        found = _population_checks(engine, plan, candidate)
        results += found
        entries += [{"model": r.model, "figure": r.figure, "holds": r.holds, "population": getattr(m, "population"),
                     **({"delta_min": r.lowest, "delta_max": r.figure} if r.lowest is not None else {})}
                    for m, r in zip((m for m in plan.models if m.needs_population), found)]
    view = plan.target.view
    for r in results:
        if not r.holds:
            raise PrivacyCheckFailed(r.model, r.figure, r.failing, view)
    return entries


def _population_checks(engine: Engine, plan: Plan, candidate: Candidate) -> list[ModelResult]:
    """k-map and delta-presence on the candidate's classes (:func:`verify`)."""
    vectors = engine.execute(f"SELECT DISTINCT {', '.join(ident(f'{q.name}_level') for q in plan.qis)} "
                             f"FROM {candidate.class_table}").fetchall()
    if len(vectors) != 1:
        raise PrivacyCheckFailed(", ".join(str(m) for m in plan.models if m.needs_population), None, len(vectors),
                                 plan.target.view, reason="its classes are not at one level vector of the "
                                                          "hierarchies, which the population is generalized to")
    levels = {f"level{i}": lv for i, lv in enumerate(vectors[0])}
    indices = [i for i, m in enumerate(plan.models) if m.needs_population]
    pops = {j: f"({population.classes_sql(engine, plan, i)})" for j, i in enumerate(indices)}
    groups = [f"CAST(__lo{q.index} AS INTEGER)" for q in plan.qis]
    return evaluate_all(engine, [plan.models[i] for i in indices], candidate.class_table, groups, {},
                        prefix="p", weight=ident(CLASS_SIZE), pops=pops, levels=levels)


def input_values(engine: Engine, plan: Plan) -> str | None:
    """The input's sensitive values under their published names with the rows holding each
    (``__anon_rows``), a work table: the reference's distribution as an aggregate, for an
    engine that measures apart from its rows (Spark's driver, :func:`input_reference`)."""
    if not plan.sensitive:
        return None
    cols = ", ".join(f"{k.internal} AS {ident(k.column.name)}" for k in plan.sensitive)
    counts = engine.work("input_values")
    engine.execute(f"CREATE TABLE {counts} AS SELECT {cols}, count(*) AS __anon_rows FROM {written(engine, plan)} "
                   "GROUP BY ALL")
    return counts


def input_reference(engine: Engine, plan: Plan, counts: tuple[str, str] | None = None) -> tuple[str, str] | None:
    """A work view of the input's sensitive values under their published names, so that the
    release's measured t compares with the input's distribution as the gate does: over
    ``plan.base``, or over ``counts``, a table of those values under their published names
    with the rows holding them in its (quoted) column ``counts[1]`` (:func:`input_values`, or
    the candidate's row counts where the candidate holds every input row), each value
    repeated by its rows."""
    if not plan.sensitive:
        return None
    if counts is None:
        cols = ", ".join(f"{k.internal} AS {ident(k.column.name)}" for k in plan.sensitive)
        engine.execute(f"CREATE VIEW {engine.work('input_reference')} AS SELECT {cols} FROM {written(engine, plan)}")
    else:
        names = ", ".join(f"v.{ident(k.column.name)}" for k in plan.sensitive)
        engine.execute(f"CREATE VIEW {engine.work('input_reference')} AS SELECT {names} FROM {counts[0]} AS v, "
                       f"range(v.{counts[1]})")
    assert engine.work_schema is not None   # engine.work opened it
    return (engine.work_schema, "input_reference")
