"""Run a release end to end: one pipeline for every family of algorithms.

    spec --validate--> plan -> algorithm -> suppression gate -> candidate -> verify (SQL)
         -> metrics -> publish (or, in a dry run, nothing) -> report

:func:`publish_release` loads and plans, then hands over to the family (generalized:
Mondrian, full-domain, the lattice searches; anatomy: MSB; LGB; identity-reserved), which
returns its candidate verified and measured (:class:`Verified`); one step, :func:`_finish`,
publishes it for every family. Nothing is published unless every declared privacy model
holds on the candidate, checked again in SQL on the published columns (what a reader of the
view sees), and the suppressed rows stay within the spec's limit. Re-running an unchanged
release (same spec, same hierarchy files, same source content) publishes nothing new and
returns the current one.
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb

from anonymizer.families.anatomy import form as anatomy
from anonymizer.families.identity_reserved import form as ir_table
from anonymizer.families.lgb import form as lgb_table
from anonymizer.families.generalized import run_algorithm
from anonymizer.families.anatomy.msb import msb
from anonymizer.engine.database import attach_database
from anonymizer.engine.session import Engine, StatementLog, drop_stale_work
from anonymizer.errors import ExportError, PrivacyCheckFailed
from anonymizer.release.export import check_writable, export_release
from anonymizer.families.generalized.form import CLASS_SIZE, CLASSES, EQ_CLASS, Candidate, build_candidate
from anonymizer.measure import Counted, count_rows, measure_table
from anonymizer.metrics import qi as metric_qi, utility_report
from anonymizer.models import KAnonymity
from anonymizer.models.check import evaluate_all
from anonymizer.plan import Plan, check_suppression, load_source, prepare, resolve_columns
from anonymizer.release.publish import (
    Join,
    Published,
    audit_table,
    check_owner,
    fingerprint,
    part_view,
    publish,
    unchanged,
)
from anonymizer.spec.parse import ReleaseSpec
from anonymizer.engine.names import ident


@dataclass
class ReleaseResult:
    """What a release did: where it went and every figure measured on it."""

    release: str
    version: int | None   # None for a dry run
    view: str
    snapshot: str | None  # None for a dry run
    unchanged: bool
    rows_in: int
    rows_out: int
    suppressed: int
    classes: int
    models: list[dict] = field(default_factory=list)
    measures: dict = field(default_factory=dict)
    utility: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    algorithm: dict = field(default_factory=dict)
    views: list[str] = field(default_factory=list)   # further views of the release (anatomy's sensitive table)
    database: str | None = None   # the output.database file the views are in (None: the source's database)
    exports: list[str] = field(default_factory=list)   # files the published snapshot was exported to
    dry_run: bool = False   # verified and measured, nothing published

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Verified:
    """A family's candidate after the gate: verified and measured, ready for the one
    publishing step (:func:`_finish`), which publishes it or, in a dry run, only reports it.

    ``table``, ``columns``, ``order``, ``parts`` and ``join`` are :func:`~anonymizer.release.publish.publish`'s
    arguments; ``figures`` are audit figures beyond the models and the utility."""

    table: str
    columns: list[str]
    order: tuple[str, ...]
    rows: int
    suppressed: int
    classes: int
    checks: list[dict]
    measures: dict
    utility: dict
    algorithm: dict
    parts: tuple[tuple[str, str, list[str]], ...] = ()
    join: Join | None = None
    figures: dict = field(default_factory=dict)


def spec_fingerprint(spec: ReleaseSpec) -> str:
    """Hash of the spec as written plus the content of every hierarchy file it names."""
    h = hashlib.sha256(spec.spec_hash().encode())
    for col in spec.columns:
        if col.hierarchy is not None and col.hierarchy.path is not None:
            h.update(col.hierarchy.path.read_bytes())
    return h.hexdigest()[:16]


def run_release(spec: ReleaseSpec, con: duckdb.DuckDBPyConnection, *,
                progress: Callable[[str], None] | None = None, keep_work: bool = False,
                force: bool = False, data: "pandas.DataFrame | None" = None, dry_run: bool = False,
                log: list[StatementLog] | None = None) -> ReleaseResult:
    """Anonymize ``spec``'s source in ``con`` and publish it (see module docstring), into
    ``con``'s database or, with ``output.database``, into that file, attached for the run
    (created if missing) and detached afterwards unless ``con`` held it already; nothing
    is written to the source's database then. With ``output.export`` the published
    snapshot is then copied to a file (:mod:`anonymizer.release.export`), also when the release is
    unchanged.

    A dry run writes nothing: it does not create a missing ``output.database`` (an existing
    one is attached to check who owns the view) and exports nothing.

    Arguments, errors: as :func:`publish_release`, and ExportError for an export path that
    cannot be written (refused before any work), DatabaseOpenError for an output database
    that cannot be attached.
    """
    if spec.output.export is not None and not dry_run:
        check_writable(spec.output.export)
    database, failed = spec.output.database, None
    attach = database is not None and not (dry_run and not Path(database).exists())
    with attach_database(con, database) if attach else nullcontext() as catalog:
        spec = replace(spec, output=replace(spec.output, catalog=catalog))
        result = publish_release(spec, con, progress=progress, keep_work=keep_work, force=force, data=data,
                                 dry_run=dry_run, log=log, views=attach or database is None)
        if spec.output.export is not None and not dry_run:
            try:
                result.exports = export_release(Engine(con, progress=progress), spec, spec.output.export)
            except ExportError as exc:   # raised once the output database is closed: the release stands
                failed = exc
    if failed is not None:
        raise failed
    result.database = None if database is None else str(database)
    return result


def publish_release(spec: ReleaseSpec, con: duckdb.DuckDBPyConnection, *,
                    progress: Callable[[str], None] | None = None, keep_work: bool = False,
                    force: bool = False, data: "pandas.DataFrame | None" = None, dry_run: bool = False,
                    log: list[StatementLog] | None = None, views: bool = True) -> ReleaseResult:
    """Anonymize ``spec``'s source in ``con`` and publish it where ``spec.output`` says
    (``output.catalog``: an attached database; see :func:`run_release`).

    One pipeline for every family: load, plan, the family's algorithm, the suppression
    gate, its candidate, verification, metrics, then one publishing step (:func:`_finish`).

    Args:
        force: publish a new version even when nothing changed.
        dry_run: verify and measure, publish nothing (no snapshot, view or audit row; the
            unchanged check is skipped, so the release always runs).
        log: a list that receives every statement the run executed, with its time.
        views: check who owns the release's views before any work (``False``: a dry run
            whose output database does not exist yet).
        data: a DataFrame to anonymize instead of the spec's source (staged in the run's work
            database; nothing is written to the database but the release).
    Raises:
        SpecError, DataError: bad spec or data (nothing is published).
        PrivacyCheckFailed: the candidate fails a model or the suppression limit.
    """
    engine = Engine(con, progress=progress, keep_work=keep_work, settings=spec.engine,
                    **({} if log is None else {"log": log}))
    clock: dict[str, float] = {}
    start = time.perf_counter()
    drop_stale_work(engine)
    with engine.workspace():
        engine.say(f"release {spec.release}: loading {spec.source.table}")
        source = load_source(engine, spec, data)
        spec = resolve_columns(spec, engine.columns(source), source)
        if views:
            check_owner(engine, spec)   # a view of another release or of the database: refused before any work
        spec_hash, source_print = spec_fingerprint(spec), fingerprint(engine, spec, source)
        current = None if force or dry_run else unchanged(engine, spec, spec_hash, source_print)
        if current is not None:
            engine.say(f"release {spec.release}: unchanged, v{current.version} stays published")
            return _unchanged_result(engine, spec, current)
        clock["load"] = time.perf_counter() - start
        with phase(engine, clock, "prepare", f"coding {len(spec.quasi)} QIs and copying the rows to the work database"):
            plan = prepare(engine, spec, source)
        family = (_anatomy if spec.algorithm.anatomy else _lgb if spec.algorithm.lgb else
                  _identity_reserved if spec.algorithm.identity_reserved else _generalized)
        ready = family(engine, plan, clock)
        return _finish(engine, plan, clock, start, {"spec_hash": spec_hash, "fingerprint": source_print}, ready,
                       dry_run)


def _finish(engine: Engine, plan: Plan, clock: dict, start: float, prints: dict, ready: Verified,
            dry_run: bool) -> ReleaseResult:
    """The one publishing step of every family: the snapshot(s), the view(s) and the audit
    row in one transaction (:func:`~anonymizer.release.publish.publish`), or, in a dry run, nothing."""
    spec = plan.spec
    views = [part_view(spec, part) for part, _, _ in ready.parts]
    if dry_run:
        version = snapshot = None
        view = f"{spec.output.schema}.{spec.output.view}"
    else:
        with phase(engine, clock, "publish", f"writing the snapshot{'s' if ready.parts else ''}, "
                                             f"promoting {spec.output.view}{''.join(', ' + v for v in views)}"):
            record = _record(plan, prints, {"models": ready.checks, **ready.figures, "utility": ready.utility},
                             ready.rows, ready.suppressed, clock)
            published = publish(engine, spec, ready.table, ready.columns, record, parts=ready.parts,
                                order=ready.order, join=ready.join)
        version, view, snapshot = published.version, published.view, published.snapshot
    clock["total"] = time.perf_counter() - start
    engine.say(f"release {spec.release}: dry run, verified and measured; nothing published" if dry_run else
               f"release {spec.release}: published {' and '.join([view] + views)} (v{version})")
    return ReleaseResult(spec.release, version, view, snapshot, False, plan.rows, ready.rows, ready.suppressed,
                         ready.classes, ready.checks, ready.measures, ready.utility, clock,
                         {"name": spec.algorithm.name, **ready.algorithm}, views, dry_run=dry_run)


def _generalized(engine: Engine, plan: Plan, clock: dict) -> Verified:
    """Mondrian, full-domain and the lattice searches: classes, the class table and the
    per-row table (:mod:`anonymizer.families.generalized.form`), verified and measured."""
    spec, con = plan.spec, engine.con
    with phase(engine, clock, "algorithm", f"{spec.algorithm.name} on {plan.base_rows} rows, {len(plan.qis)} QIs"):
        result = run_algorithm(engine, plan)
    suppressed = plan.null_suppressed + result.suppressed
    check_suppression(plan, suppressed)
    with phase(engine, clock, "generalize", f"labelling {result.classes} classes and joining the rows"):
        candidate = build_candidate(engine, plan, result.assign,
                                    result.levels if result.labels == "hier" else None,
                                    level_columns=result.labels == "hier-rows", cells=result.cells)
    with phase(engine, clock, "verify", f"checking {len(spec.models)} models on {candidate.rows} rows "
                                        f"in {candidate.classes} classes"):
        sensitive = [k.column.name for k in plan.sensitive]
        counted = count_rows(engine, candidate.table, candidate.grouping, sensitive)   # one pass: verify and measure
        checks = verify(engine, plan, candidate, counted)
    with phase(engine, clock, "metrics", "measuring k, l, t and the information loss"):
        measures = measure_table(con, (engine.work_schema, "candidate"), candidate.grouping, sensitive,
                                 reference=_input_reference(engine, plan), counted=counted)
        measures["table"] = f"{spec.output.schema}.{spec.output.view}"   # not the work table, gone after the run
        for figures in (measures.get("sensitive") or {}).values():
            figures["reference"] = "input"   # not the work view's name, which is gone after the run
        utility = utility_report(engine, candidate.class_table, _metric_qis(plan), plan.rows, spec.k,
                                 weight=ident(CLASS_SIZE))   # a class's ranges are its rows': read per class
    # no longer read: their memory goes to publishing
    engine.release_tables(result.assign, plan.base, *filter(None, [result.cells]))
    return Verified(candidate.table, candidate.row_columns, (EQ_CLASS, "__pos"), candidate.rows, suppressed,
                    candidate.classes, checks, measures, utility, {"rounds": result.rounds, **result.notes},
                    parts=((CLASSES, candidate.class_table, candidate.class_columns),),
                    join=Join(CLASSES, EQ_CLASS, tuple(candidate.view_columns)), figures={"k": measures.get("k")})


@contextmanager
def phase(engine: Engine, clock: dict, name: str, what: str) -> Iterator[None]:
    """One phase of a release: says what it does when it starts and how long it took when it
    ends (progress, so no phase runs silently), and records its seconds in ``clock[name]``."""
    engine.say(f"{name}: {what}")
    t0 = time.perf_counter()
    yield
    clock[name] = time.perf_counter() - t0
    engine.say(f"{name}: done in {clock[name]:.2f}s")


def _anatomy(engine: Engine, plan: Plan, clock: dict) -> Verified:
    """Paper 002's MSB algorithms: groups, the two anatomy tables (the QI table and the
    sensitive table, published together), verified and measured (see :mod:`anonymizer.families.anatomy.form`)."""
    spec = plan.spec
    anatomy.check_names(plan)
    with phase(engine, clock, "algorithm", f"{spec.algorithm.name} on {plan.base_rows} rows, "
                                           f"{len(plan.sensitive)} sensitive attributes"):
        result = msb(engine, plan)
    suppressed = plan.null_suppressed + result.suppressed
    check_suppression(plan, suppressed)
    with phase(engine, clock, "generalize", "writing the QI table and the sensitive table"):
        candidate = anatomy.build(engine, plan, result)
    with phase(engine, clock, "verify", f"checking {len(spec.models)} models on {candidate.groups} groups"):
        figures = anatomy.judge(engine, plan, candidate, result.buckets)
        checks = anatomy.verify(plan, candidate, figures)
    with phase(engine, clock, "metrics", "measuring the information loss"):
        utility = anatomy.metrics(plan, figures, suppressed)
    return Verified(candidate.qi_table, candidate.qi_columns, (), candidate.rows, suppressed, candidate.groups,
                    checks, {"groups": candidate.groups, "min_group_size": checks[0]["min_group_size"]}, utility,
                    {"rounds": result.notes["greedy_steps"], **result.notes},
                    parts=(("sensitive", candidate.sens_table, candidate.sens_columns),))


def _lgb(engine: Engine, plan: Plan, clock: dict) -> Verified:
    """Paper 000's LGB algorithms: bucketization, local generalization, the LGB table
    (Fig. 2), verified and measured (see :mod:`anonymizer.families.lgb.form`)."""
    engine.say(f"release {plan.spec.release}: {plan.spec.algorithm.name} on {plan.base_rows} rows")
    run = lgb_table.verified_candidate(engine, plan)
    clock.update(run.seconds)
    result, candidate = run.result, run.candidate
    return Verified(candidate.table, candidate.columns, (lgb_table.GID, lgb_table.ROW_ID), candidate.rows,
                    plan.null_suppressed + result.suppressed, candidate.groups, run.checks,
                    {"groups": candidate.groups, "smallest_group": run.figures["smallest"]}, run.utility,
                    {"rounds": result.groups.rounds, **result.notes})


def _identity_reserved(engine: Engine, plan: Plan, clock: dict) -> Verified:
    """Paper 004's identity-reserved algorithms: individuals, DAnonyIR or GeneIR, the
    Table 4 table, verified and measured (see :mod:`anonymizer.families.identity_reserved.form`)."""
    run = ir_table.verified_candidate(engine, plan)
    clock.update(run.seconds)
    result, candidate = run.result, run.candidate
    return Verified(candidate.table, candidate.columns, (ir_table.EC_ID, "__pos"), candidate.rows,
                    plan.null_suppressed + result.suppressed_records, candidate.classes, run.checks,
                    {"classes": candidate.classes, "individuals": candidate.individuals}, run.utility,
                    {"rounds": result.rounds, **result.notes})


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
    from anonymizer.models.check import REFERENCE, reference_sql
    models = list(plan.spec.models)
    if not any(isinstance(m, KAnonymity) for m in models):
        models.insert(0, KAnonymity(1))
    column_of = {k.column.name: ident(k.column.name) for k in plan.sensitive}
    internal = {k.column.name: ident(k.internal) for k in plan.sensitive}
    globs = {i: f"({reference_sql(plan.base, internal[m.sensitive])})"
             for i, m in enumerate(models) if m.needs_global}
    source, groups, weight = ((counted.table, [counted.cls], counted.weight) if counted else
                              (candidate.table, [ident(c) for c in candidate.grouping], None))
    results = evaluate_all(engine, models, source, groups, column_of, globs=globs, hiers=plan.hiers, weight=weight)
    view = f"{plan.spec.output.schema}.{plan.spec.output.view}"
    for r in results:
        if not r.holds:
            raise PrivacyCheckFailed(r.model, r.figure, r.failing, view)
    return [{"model": r.model, "figure": r.figure, "holds": r.holds,
             **({"reference": REFERENCE} if m.needs_global else {})} for m, r in zip(models, results)]


def _input_reference(engine: Engine, plan: Plan) -> tuple[str, str] | None:
    """A work view of the input's sensitive values under their published names, so that the
    release's measured t compares with the input's distribution as the gate does."""
    if not plan.sensitive:
        return None
    cols = ", ".join(f"{k.internal} AS {ident(k.column.name)}" for k in plan.sensitive)
    engine.execute(f"CREATE VIEW {engine.work('input_reference')} AS SELECT {cols} FROM {plan.base}")
    return (engine.work_schema, "input_reference")


def _record(plan: Plan, prints: dict, figures: dict, rows_out: int, suppressed: int, clock: dict) -> dict:
    """The audit row's values (see :func:`anonymizer.release.publish.publish`)."""
    spec = plan.spec
    options = {k: v for k, v in asdict(spec.algorithm).items() if k != "seed"}   # a seed would replay every draw
    return {**prints, "algorithm": spec.algorithm.name,
            "parameters": {"models": [str(m) for m in spec.models], "algorithm": options,
                           "randomness": plan.key.kind, "suppression_limit": spec.suppression_limit,
                           "nulls": spec.nulls},
            "figures": figures, "rows_in": plan.rows, "rows_out": rows_out, "suppressed": suppressed,
            "timings": clock}


def _metric_qis(plan: Plan) -> list[dict[str, Any]]:
    return [metric_qi(q.index, q.dom, q.numeric, q.m, sized=True) for q in plan.qis]


def _unchanged_result(engine: Engine, spec: ReleaseSpec, current: Published) -> ReleaseResult:
    row = engine.execute(
        f"SELECT rows_in, rows_out, suppressed, figures, timings FROM {audit_table(spec)} "
        "WHERE release = $r AND version = $v",
        {"r": spec.release, "v": current.version}).fetchone()
    figures = json.loads(row[3]) if row[3] else {}
    return ReleaseResult(spec.release, current.version, current.view, current.snapshot, True,
                         row[0], row[1], row[2], 0, figures.get("models", []), {"k": figures.get("k")},
                         figures.get("utility", {}), json.loads(row[4]) if row[4] else {},
                         views=list(figures.get("views", [])))
