"""Mondrian, full-domain and the lattice searches in the one release pipeline
(:mod:`anonymizer.families`): classes, the class table and the per-row table
(:mod:`.form`), verified (:mod:`.verify`) and measured."""

from __future__ import annotations

from contextlib import nullcontext

from dataclasses import replace
from typing import Any, Callable, TYPE_CHECKING

from anonymizer.engine.names import ident
from anonymizer.metrics.passthrough import passthrough
from anonymizer.engine.session import Engine
from anonymizer.release.candidate import FamilySteps
from anonymizer.families.generalized.form import CLASS_SIZE, CLASSES, Candidate, build_candidate, drop_candidate
from anonymizer.versions import invariance as shared
from anonymizer.families.generalized.full_domain import full_domain
from anonymizer.families.generalized.invariance import (COUNTERFEITS, as_groups, check as check_invariant,
                                                        counterfeit_column, followed, invariant, merge)
from anonymizer.families.generalized.lattice.optimal import optimal
from anonymizer.families.generalized.lattice.privacyfrost2 import privacyfrost2
from anonymizer.families.generalized.lattice.safepub import safepub, safepub_target
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.top_down import top_down
from anonymizer.families.generalized.verify import input_reference, input_values, verify as verify_models
from anonymizer.measure import Counted, count_rows, measure_table
from anonymizer.metrics import qi as metric_qi, utility_report
from anonymizer.hierarchy.spec import is_temporal_type
from anonymizer.plan import QI, Plan, check_unchanged
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.versions.released import Released
from anonymizer.release.publish import EQ_CLASS, Join
from anonymizer.numbers import fmt

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult
    from anonymizer.versions.continuation import Continuation

#: algorithm name in the spec -> entry function ``(engine, plan, write_assign) -> AlgorithmResult``
#: (``write_assign``: see :func:`run_algorithm`).
ALGORITHMS: dict[str, Callable[[Engine, Plan, bool], AlgorithmResult]] = {
    "mondrian": lambda engine, plan, write: mondrian(engine, plan, mondrian_inputs(plan), write_assign=write),
    "top-down": lambda engine, plan, write: top_down(engine, plan, write_assign=write),
    "full-domain": lambda engine, plan, write: full_domain(engine, plan),
    "privacyfrost2": lambda engine, plan, write: privacyfrost2(engine, plan),
    "optimal": lambda engine, plan, write: optimal(engine, plan),
    "safepub": lambda engine, plan, write: safepub(engine, plan),
}


def run_algorithm(engine: Engine, plan: Plan, write_assign: bool = True) -> AlgorithmResult:
    """Run the algorithm the plan names (``plan.algorithm``). ``write_assign=False``: strict Mondrian
    and top-down classes may leave ``assign`` unwritten, for the candidate to join the rows
    with the class cells itself (:attr:`AlgorithmResult.packing`)."""
    return ALGORITHMS[plan.algorithm](engine, plan, write_assign)


def run(engine: Engine, plan: Plan, history: Continuation) -> Rounds[AlgorithmResult]:
    kept = history.state
    # each row's class is read again by the person gate (and m-invariance, which names a person)
    # and by the passthrough measure
    write = plan.person is not None or bool(plan.passthrough)
    result = run_algorithm(engine, plan, write) if kept is None else invariant(engine, plan, run_algorithm, *kept)
    if kept is None and history.keeps and history.published:
        result = as_groups(engine, result)   # signatures start now, after versions that kept none
    # the suppression gate counts what the search suppressed; pre-sampled rows are the user's
    # own removal (paper 003, section 5.1), reported apart (AlgorithmResult.presampled)
    return Rounds(result, result.suppressed - result.presampled, f"{result.classes} classes")


def _rows(plan: Plan, result) -> Plan:
    """The plan whose ``base`` holds the rows ``result.assign`` refers to (counterfeits too)."""
    return plan if result.base is None else replace(plan, base=result.base)


def build(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult]) -> Candidate:
    """The candidate (the driver then merges the groups whose box an earlier version
    published with another multiset: :func:`repairable`, :func:`merge_groups`)."""
    return _candidate(engine, plan, rounds.result)


def repairable(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult], built: Candidate) -> Released | None:
    """The candidate's boxes for the driver's repair, in a version whose groups can be merged."""
    return _released(plan, built) if rounds.result.groups else None


def merge_groups(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult], built: Candidate, colliding: str,
                 attempt: int) -> Candidate:
    """The groups of the classes in ``colliding`` merged with their neighbours (:func:`merge`),
    and the candidate built again."""
    rounds.result = merge(engine, plan, rounds.result, colliding, attempt)
    drop_candidate(engine)
    return _candidate(engine, plan, rounds.result)


def _candidate(engine: Engine, plan: Plan, result: AlgorithmResult) -> Candidate:
    """The candidate of ``result``; in an m-invariant release, each class publishes its count
    of counterfeit rows."""
    built = build_candidate(engine, _rows(plan, result), result.assign, result.levels if result.labels == "hier" else None,
                            level_columns=result.labels == "hier-rows", cells=result.cells, packing=result.packing)
    if shared.keeps_signatures(plan):
        counterfeit_column(engine, built.class_table, result.assign)
        built.class_columns.append(COUNTERFEITS)
        if "invariance" in result.notes:   # classes under k real rows (counterfeits fill them to k)
            result.notes["invariance"]["thin_classes"] = shared.thin(engine, result.assign, plan.k)
    return built


def _released(plan: Plan, built: Candidate, counts: Counted | None = None, **state) -> Released:
    """The candidate as the cross-version gate reads it; ``state``: the person tables;
    ``counts``: its rows counted per class and sensitive value, read instead of the rows."""
    followed_column = plan.sensitive[0].column.name if plan.sensitive and plan.person is not None else None
    rows, weight = (built.table, None) if counts is None else (counts.table, counts.weight)
    return Released(rows, built.class_table, EQ_CLASS, [q.name for q in plan.qis],
                    [k.column.name for k in plan.sensitive], followed_column, weight=weight, **state)


def verify(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult],
           built: Candidate) -> tuple[Counted, list[dict]]:
    """The models on the published columns; the rows are counted once, for verify and measure
    (and their number checked against the classes' sizes the candidate states)."""
    sensitive = [k.column.name for k in plan.sensitive]
    counted = count_rows(engine, built.table, built.grouping, sensitive)
    rows_again = plan.populations or any(m.needs_global for m in plan.models)   # they read the input's rows
    with nullcontext(engine) if rows_again else engine.for_aggregate(counted.table, *plan.aggregates) as on:
        rows = on.execute(f"SELECT coalesce(sum({counted.weight}), 0)::BIGINT FROM {counted.table}",
                          template="<counted rows>").fetchall()[0][0]
        if rows != built.rows:   # build_candidate summed its classes' sizes: ours, never the input's
            check_unchanged(engine, plan)   # unless the source changed under the run (its user's to know)
            raise RuntimeError(f"the candidate holds {rows} rows and its classes' sizes sum to {built.rows}")
        return counted, verify_models(on, plan, built, counted)


def released(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult], built: Candidate,
             checked: tuple[Counted, list[dict]]) -> Released:
    """The candidate as the cross-version gate reads it (on every engine), with its people's
    groups where the release names a person; what each class publishes is read from the
    candidate's row counts (:func:`verify`: per class and sensitive value), not its rows."""
    result, (counted, _) = rounds.result, checked
    people = members = groups = None
    if plan.person is not None:   # groups kept under independent too: invariant may follow
        rows = _rows(plan, result).base
        people, members, groups = shared.gate_inputs(engine, result.assign, rows, rows, followed(plan), result.groups)
    return _released(plan, built, people=people, members=members, groups=groups, counts=counted)


def measure(engine: Engine, plan: Plan, rounds: Rounds[AlgorithmResult], built: Candidate,
            checked: tuple[Counted, list[dict]]) -> Verified:
    counted, checks = checked
    result = rounds.result
    sensitive = [k.column.name for k in plan.sensitive]
    assert counted.table == engine.work("row_counts")   # measured from its counts (verify)
    # the input's sensitive values for the measured t: where the candidate, built from base, holds as many
    # rows as the input, it holds every input row (each is one of them, by its row id): its counts are the input's
    every_row = built.rows == plan.base_rows and result.base is None and not result.counterfeits
    values = input_values(engine, plan) if engine.capabilities.aggregates_apart and not every_row else None
    with engine.for_aggregate(counted.table, *plan.aggregates, *filter(None, [values])) as on:   # Spark: its driver
        assert on.work_schema is not None
        # the counts stand for the input's rows where they can be read as rows (DuckDB, Spark's driver)
        counts = ((counted.table, counted.weight) if every_row and on.capabilities.lateral_range else None if on is engine
                  else (counted.table, counted.weight) if values is None else (values, "__anon_rows"))
        measures = measure_table(on, (on.work_schema, "row_counts"), built.grouping, sensitive,
                                 reference=input_reference(on, plan, counts), counted=counted)
    measures["table"] = plan.target.view   # not the work table, gone after the run
    measures["passthrough"] = passthrough(engine, plan, result.assign, built.class_table)
    for model in (measures.get("risk") or {}).values():
        if isinstance(model, dict) and "population" in model:   # no population given: the rows themselves
            model["population"] = measures["table"]
    for figures in (measures.get("sensitive") or {}).values():
        figures["reference"] = "input"   # not the work view's name, which is gone after the run
    with engine.for_aggregate(built.class_table, *plan.aggregates) as on:   # Spark: on its driver, over the classes
        utility = utility_report(on, built.class_table, _metric_qis(on, plan, built.class_table),
                                 plan.rows + result.counterfeits, plan.k,
                                 weight=ident(CLASS_SIZE),   # a class's ranges are its rows': read per class
                                 names=[q.name for q in plan.qis])
    # no longer read: their memory goes to publishing
    vectors = plan.vectors.table if plan.vectors else None   # Mondrian did not read them (a subset's cells)
    engine.release_tables(result.assign, plan.base, *filter(None, [result.cells, vectors]))
    return Verified(built.table, built.row_columns, (EQ_CLASS, "__pos"), built.rows,
                    plan.null_suppressed + result.suppressed, built.classes, checks, measures, utility,
                    {"rounds": result.rounds, **result.notes},
                    parts=((CLASSES, built.class_table, built.class_columns),),
                    join=Join(CLASSES, EQ_CLASS, tuple(built.view_columns)),
                    figures={"k": measures.get("k")})


def _metric_qis(engine: Engine, plan: Plan, class_table: str) -> list[dict[str, Any]]:
    """The QIs as the metrics read them from the class table: a numeric QI's cells cost the
    bounds they publish (``<qi>_low``, ``<qi>_high``: a hierarchy node's stated interval), on
    the domain's ``num`` scale (a date's epoch)."""
    types = engine.columns(class_table)

    def bounds(q: QI) -> tuple[str, str] | None:
        if not q.numeric:
            return None
        cols = [ident(f"{q.name}_{side}") for side in ("low", "high")]
        if is_temporal_type(types[f"{q.name}_low"]):
            return (f"epoch({cols[0]})::DOUBLE", f"epoch({cols[1]})::DOUBLE")
        return (f"{cols[0]}::DOUBLE", f"{cols[1]}::DOUBLE")
    return [metric_qi(q.index, q.dom, q.numeric, q.m, sized=True, bounds=bounds(q)) for q in plan.qis]


def summary_lines(r: ReleaseResult) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "checks" in a:     # a lattice search (PrivacyFrost2, optimal)
        levels = ", ".join(f"{q} {lv}" for q, lv in a["levels"].items())
        scored = f", score {fmt(a['score'])} ({a['scoring']})" if "score" in a else ""
        lines.append(f"  lattice node  {levels}{scored}, loss {fmt(a['loss'])}; {a['checks']} node checks "
                     f"on a {a['frequency_set_rows']}-row frequency set")
        if a.get("presampled"):
            lines.append(f"  pre-sampling  {a['presampled']} isolated rows removed before the search (of the "
                         "suppressed; not counted against suppression_limit)")
        if a.get("partial_rounds"):
            lowered = sum(p["classes"] for p in a["partial_rounds"])
            lines.append(f"  partial       {lowered} class-level de-generalizations in {len(a['partial_rounds'])} steps")
    if "safepub" in a:    # (ε, δ)-DP (lattice.safepub)
        s = a["safepub"]
        levels = ", ".join(f"{q} {lv}" for q, lv in s["levels"].items())
        lines.append(f"  SafePub       ({fmt(s['epsilon'])}, {s['delta']:g})-differential privacy: search epsilon "
                     f"{fmt(s['search_epsilon'])}, sampling beta {fmt(s['beta'])}, k {s['k']}; node {levels} "
                     f"({s['score']} score, {s['steps']} steps, {s['selection']} selection)")
    if u:
        shown = [("NCP per cell", "ncp"), ("NCP(T)", "ncp_sum"), ("loss (ARX)", "loss"),
                 ("discernibility C_DM", "discernibility"), ("C_AVG", "cavg")]
        lines.append("  utility       " + ", ".join(f"{label} {fmt(u[key])}" for label, key in shown if key in u))
    return lines


class Steps(FamilySteps[AlgorithmResult, Candidate, tuple[Counted, list[dict]]]):
    """This family's steps (:class:`~anonymizer.release.candidate.FamilySteps`), the functions above."""

    label = "generalized"
    run, build, verify = staticmethod(run), staticmethod(build), staticmethod(verify)
    repairable, merge = staticmethod(repairable), staticmethod(merge_groups)
    released, measure, summary_lines = staticmethod(released), staticmethod(measure), staticmethod(summary_lines)
    check_versions = staticmethod(check_invariant)
    refuse = staticmethod(safepub_target)


STEPS = Steps()
