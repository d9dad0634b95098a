"""Run a release end to end: one pipeline for every family of algorithms.

    spec --validate--> plan -> algorithm -> suppression gate -> candidate -> verify (SQL)
         -> metrics -> publish (or, in a dry run, nothing) -> report

:func:`publish_release` loads and plans; :func:`verified` runs the family's steps
(:mod:`anonymizer.families`: generalized, anatomy, LGB, identity-reserved) with the
suppression gate between the algorithm and the candidate, and returns the candidate
verified and measured (:class:`~anonymizer.release.candidate.Verified`); one step,
:func:`_finish`, publishes it for every family. Nothing is published unless every declared privacy model
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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, cast

import duckdb

from anonymizer.engine.database import attach_database, drop_stale_work
from anonymizer.engine.backend import engine_for
from anonymizer.engine.session import Engine, StatementLog
from anonymizer.errors import ExportError, SpecError, UnsupportedError
from anonymizer.plan import (Plan, check_suppression, load_source, prepare, resolve_columns, source_relation,
                             source_shown, spec_fingerprint)
from anonymizer.source_profile import profile_source
from anonymizer.dp import ledger
from anonymizer.dp.covered import covered
from anonymizer.dp.audit import withheld
from anonymizer.spec.differential import DIFFERENTIAL
from anonymizer.release.candidate import FamilySteps, ReleaseResult, Rounds, Verified
from anonymizer.release.export import check_writable, export_release
from anonymizer.release.history import chosen
from anonymizer.versions import combination, invariance
from anonymizer.versions.continuation import continuation
from anonymizer.versions.repair import repaired
from anonymizer.release.warnings import weaker
from anonymizer.release.in_place import placed
from anonymizer.release.publish import (Published, audit_table, check_owner, latest, part_view, publish,
                                        unchanged)
from anonymizer.spec.text import spec_text
from anonymizer.spec.types import ReleaseSpec
from anonymizer.target import Target
from anonymizer.versions import keys

if TYPE_CHECKING:
    import pandas
    import pyspark.sql


def run_release(spec: ReleaseSpec, con: "duckdb.DuckDBPyConnection | pyspark.sql.SparkSession", *,
                progress: Callable[[str], None] | None = None, keep_work: bool = False,
                force: bool = False, data: "pandas.DataFrame | None" = None, dry_run: bool = False,
                log: list[StatementLog] | None = None, inspect: Callable | None = None) -> ReleaseResult:
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
    _refuse_outputs(spec, engine_for(con))
    if spec.output.export is not None and not dry_run:
        check_writable(spec.output.export)
    database, failed = spec.output.database, None
    attach = database is not None and not (dry_run and not Path(database).exists())
    duck = cast(duckdb.DuckDBPyConnection, con)   # where it attaches or exports: refused above where it cannot
    with attach_database(duck, database) if attach and database is not None else nullcontext() as catalog:
        spec = replace(spec, output=replace(spec.output, catalog=catalog))
        result = publish_release(spec, con, progress=progress, keep_work=keep_work, force=force, data=data,
                                 dry_run=dry_run, log=log, views=attach or database is None, inspect=inspect)
        if spec.output.export is not None and not dry_run:
            try:
                result.exports = export_release(Engine(duck, progress=progress), spec.target, spec.output.export)
            except ExportError as exc:   # raised once the output database is closed: the release stands
                failed = exc
    if failed is not None:
        raise failed
    result.database = None if database is None else str(database)
    return result


def publish_release(spec: ReleaseSpec, con: "duckdb.DuckDBPyConnection | pyspark.sql.SparkSession", *,
                    progress: Callable[[str], None] | None = None, keep_work: bool = False,
                    force: bool = False, data: "pandas.DataFrame | None" = None, dry_run: bool = False,
                    log: list[StatementLog] | None = None, views: bool = True,
                    inspect: Callable | None = None) -> ReleaseResult:
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
        inspect: in a dry run, called as ``inspect(engine, plan, ready)`` with the verified
            candidate (:class:`~anonymizer.release.candidate.Verified`) while the run's work
            tables still stand (the HTML report of a dry run reads them).
    Raises:
        SpecError, DataError: bad spec or data (nothing is published).
        PrivacyCheckFailed: the candidate fails a model or the suppression limit.
    """
    engine = engine_for(con, progress=progress, keep_work=keep_work, settings=spec.engine,
                        **({} if log is None else {"log": log}))
    if not engine.capabilities.table_layout and (spec.output.format or spec.output.partition_by):
        raise UnsupportedError("output.format and output.partition_by lay out a Spark release's tables; DuckDB "
                               "keeps its own (leave them out, or run with engine: {name: spark})")
    for where, name in (("source.format", spec.source.format), ("output.format", spec.output.format)):
        if name is not None:   # Delta or Iceberg without their jars: refused now, not at publish
            engine.check_format(where, name)
    family = spec.algorithm.family
    clock: dict[str, float] = {}
    start = time.perf_counter()
    if engine.capabilities.drops_stale_work:
        drop_stale_work(engine)
    if spec.target.budget is not None and dry_run:
        raise SpecError("dry run", "a differentially private release draws its sample or noise in every run, and "
                                     "a dry run would show what it drew without spending: run it (each run spends "
                                     "from the budget), or dry-run a copy of the spec with another algorithm")
    if spec.target.budget is not None and keep_work:
        raise SpecError("--keep-work", "would keep a differentially private run's sample, true cells and draws in the "
                                       "database, beside the release; a DP release keeps no work")
    ledger.check(engine, spec.target)   # a differentially private run its budget cannot pay for: refused before any work
    with engine.workspace():
        engine.say(f"release {spec.release}: loading {spec.source.table}")
        source = load_source(engine, spec, data)
        spec = resolve_columns(spec, engine.columns(source), source_shown(spec, data is not None))
        source, rowid = covered(engine, spec, source)   # DP: a row its hierarchy files do not cover is left out, not refused
        if views:
            check_owner(engine, spec.target)   # a view of another release or of the database: refused before any work
        spec_hash = spec_fingerprint(spec, engine)
        profile = profile_source(engine, spec, source)   # the fingerprint, with the NULLs prepare checks
        source_rows, source_print = profile.rows, profile.digest
        current = None if force or dry_run else unchanged(engine, spec.target, spec_hash, source_print)
        if current is not None:
            engine.say(f"release {spec.release}: unchanged, v{current.version} stays published")
            return _unchanged_result(engine, spec.target, spec.algorithm.name, current, time.perf_counter() - start)
        named = None if data is not None else spec.source.location or source_relation(spec)
        if not force:
            _check_same_source(engine, spec, named)
        clock["load"] = time.perf_counter() - start
        people = None
        if family.gate and not dry_run:   # a dry run writes no state
            combination.check_state_home(engine, spec.target)
        if family.gate and not (dry_run and spec.history.key_map is not None):
            last = latest(engine, spec.target)   # a person key that no longer names its people: refused
            people = keys.check(engine, spec, source, last["version"] if last else None)
        elif family.gate:   # the map rewrites the private state, which a dry run leaves as it is
            engine.say(f"release {spec.release}: dry run: history.key_map is applied, and the person key checked, "
                       "only when a version publishes")
        missing = (f"the {family.name} family has no cross-version gate yet" if not family.gate else
                   getattr(family.options(), "ungated", lambda *_: None)(spec.history, spec.columns))
        if missing:   # no cross-version gate for this release: refused under invariant
            last = latest(engine, spec.target)
            combination.refuse_unsupported(spec.target, missing,
                                           last is not None and last["source_fingerprint"] != source_print)
        with engine.small(source_rows):   # a source of one row group: one thread
            with phase(engine, clock, "prepare", f"coding {len(spec.quasi)} QIs and copying the rows to the work "
                                                 "database"):
                plan = prepare(engine, spec, source, profile, in_place=None if dry_run else placed(engine, spec.target),
                               rowid=rowid)
            try:   # a DP run spends when its mechanism starts, whether it publishes or not (ledger.spend)
                steps = family.steps()
                steps.refuse(engine, plan)
                spent = None if spec.target.budget is None else ledger.spend(engine, spec.target, spec.release)
                ready = verified(engine, plan, steps, clock).ready
                if dry_run and inspect is not None:
                    inspect(engine, plan, ready)
                return _finish(engine, plan, clock, start, {"spec_hash": spec_hash, "fingerprint": source_print,
                                                            "spec_text": spec_text(spec), "source": named}, ready,
                               dry_run, people, spent)
            finally:   # a candidate written to publish in place that did not publish (renamed, it is gone)
                if plan.in_place is not None:
                    engine.drop(plan.in_place)


def _check_same_source(engine: Engine, spec: ReleaseSpec, named: str | None) -> None:
    """Refuse a release whose last version was published from another source table or file
    (its audit row's ``parameters.source``): a release's versions are one table's, and a name
    reused by mistake would publish another table's rows as the next version without a word.
    A DataFrame source has no name and is not compared."""
    last = latest(engine, spec.target)
    parameters = (last or {}).get("parameters") or {}
    before = (json.loads(parameters) if isinstance(parameters, str) else parameters).get("source")
    if last and before and named and before != named:
        raise SpecError("source", f"release {spec.release} was published from {before} (v{last['version']}), and "
                                  f"this spec reads {named}: give the release another name, or, if the table moved, "
                                  "publish anyway with --force (force=True)")


def _refuse_outputs(spec: ReleaseSpec, engine: Engine) -> None:
    """The outputs ``engine`` cannot write (another DuckDB file, an export), and the algorithms it does not
    run (differential privacy off DuckDB), refused before any work."""
    if spec.output.database is not None and not engine.capabilities.output_database:
        raise SpecError("output.database", f"is a DuckDB file; on {engine.name} the release goes to its catalog "
                                           "(output.schema)", str(spec.output.database))
    if spec.algorithm.name in DIFFERENTIAL and not engine.capabilities.differential:
        raise UnsupportedError(f"{spec.algorithm.name} (differential privacy) runs on DuckDB only for now; run it "
                               f"without engine: {{name: {engine.name}}}")
    if spec.output.export is not None and not engine.capabilities.export:
        raise UnsupportedError(f"output.export (a copy of the release as one file) is not supported on {engine.name} "
                               "yet; read the published view with the engine's own writer")


def _finish(engine: Engine, plan: Plan, clock: dict, start: float, prints: dict, ready: Verified,
            dry_run: bool, people: keys.Keys | None = None, spent: int | None = None) -> ReleaseResult:
    """The one publishing step of every family: the snapshot(s), the view(s) and the audit
    row in one transaction (:func:`~anonymizer.release.publish.publish`), or, in a dry run, nothing.
    ``people``: the source's person keys, recorded beside the private state (:mod:`anonymizer.versions.keys`);
    ``spent``: a DP run's spend event (:func:`anonymizer.dp.ledger.spend`), given the version published."""
    target = plan.target
    views = [part_view(target, part) for part, _, _ in ready.parts]
    warned = weaker(ready.measures, ready.checks) + list(ready.algorithm.get("warnings", []))   # + the algorithm's own
    if dry_run:
        version = snapshot = None
        view = target.view
    else:
        with phase(engine, clock, "publish", f"writing the snapshot{'s' if ready.parts else ''}, "
                                             f"promoting {target.output.view}{''.join(', ' + v for v in views)}"):
            record = _record(plan, prints, {"models": ready.checks, **ready.figures, "utility": ready.utility,
                                            "classes": ready.classes, "warnings": warned},
                             ready.rows, ready.suppressed, clock, chosen(ready.algorithm), ready.audit_rows_in)
            gated, version = ready.combination, (last["version"] if (last := latest(engine, target)) else 0) + 1
            if gated is not None:   # the private state first: it lives in the source's database
                combination.keep_state(engine, target, gated, version)
                if people is not None:
                    keys.keep(engine, target, people, version)
            inside = [] if gated is None else [lambda v: combination.remember(engine, target, gated, v)]
            if spent is not None:   # the run's spending names the version, in the transaction that publishes it
                inside.append(lambda v: ledger.settle(engine, target, spent, v))
            published = publish(engine, target, ready.table, ready.columns, record, parts=ready.parts,
                                order=ready.order, join=ready.join,
                                remember=(lambda v: _each(inside, v)) if inside else None)
            if gated is not None:
                combination.forget_older(engine, target, published.version)
                keys.forget_older(engine, target, published.version)
        version, view, snapshot = published.version, published.view, published.snapshot
    clock["total"] = time.perf_counter() - start
    engine.say(f"release {target.release}: dry run, verified and measured; nothing published" if dry_run else
               f"release {target.release}: published {' and '.join([view] + views)} (v{version})")
    return ReleaseResult(target.release, version, view, snapshot, False, plan.rows, ready.rows, ready.suppressed,
                         ready.classes, ready.checks, ready.measures, ready.utility, clock,
                         {"name": plan.algorithm, **ready.algorithm}, views, dry_run=dry_run, warnings=warned,
                         published_as=None if dry_run else (target.output.schema, target.output.view))


def _each(steps: list[Callable[[int], None]], version: int) -> None:
    """Each of ``steps`` with the version being published (inside its transaction)."""
    for step in steps:
        step(version)


@dataclass
class Run:
    """A family's run up to its verified, measured candidate (nothing published): the
    algorithm's rounds, the candidate it built, and what the publishing step takes."""

    rounds: Rounds
    built: Any
    ready: Verified


def verified(engine: Engine, plan: Plan, steps: FamilySteps[Any, Any, Any], clock: dict) -> Run:
    """The pipeline's middle, the same for every family (:mod:`anonymizer.families`): where
    the release continues from (:mod:`anonymizer.versions.continuation`), the family's
    algorithm, the suppression gate, its candidate, verification and the cross-version gate
    (which raise PrivacyCheckFailed) and metrics, each a timed phase in ``clock``. A release then
    publishes ``ready``; the paper experiments read the candidate of a run that publishes
    nothing."""
    history = continuation(engine, plan, steps)   # the release's earlier versions, read once for every family
    with phase(engine, clock, "algorithm", f"{plan.algorithm} on {plan.base_rows} rows, {len(plan.qis)} QIs"):
        rounds = steps.run(engine, plan, history)
    check_suppression(plan, plan.null_suppressed + rounds.suppressed)
    with phase(engine, clock, "generalize", f"building the candidate of {rounds.what}"):
        built = repaired(engine, plan, steps, rounds, steps.build(engine, plan, rounds))
    with phase(engine, clock, "verify", f"checking {len(plan.models)} models on the candidate"):
        checked = steps.verify(engine, plan, rounds, built)
        released = steps.released(engine, plan, rounds, built, checked)
        gated = None if released is None else combination.gate(engine, plan, released)
    with phase(engine, clock, "metrics", "measuring the privacy achieved and the information loss"):
        ready = steps.measure(engine, plan, rounds, built, checked)
    if gated is not None:   # what publishing keeps of the gate: its figures, the memory, the state
        ready.combination = gated
        ready.figures["combination"] = gated.figures
    if "invariance" in ready.algorithm:
        invariance.drift(plan.target.release, ready.algorithm["invariance"])
    return Run(rounds, built, ready)


#: the timed phases of a release, in order (:func:`phase`; a dry run has no ``publish``)
PHASES = ("prepare", "algorithm", "generalize", "verify", "metrics", "publish")
#: each phase's share of a release's time, for a progress bar that advances by the work done:
#: measured on a Mondrian release of 2M rows (k = 10, distinct 3-diversity; prepare 0.40 s,
#: algorithm 2.52, generalize 0.80, verify 1.33, metrics 0.24, publish 0.73)
PHASE_SHARES = {"prepare": 0.07, "algorithm": 0.42, "generalize": 0.13, "verify": 0.22, "metrics": 0.04,
                "publish": 0.12}


@contextmanager
def phase(engine: Engine, clock: dict, name: str, what: str) -> Iterator[None]:
    """One phase of a release: says what it does when it starts and how long it took when it
    ends (progress, so no phase runs silently), and records its seconds in ``clock[name]``."""
    engine.say(f"{name}: {what}")
    t0 = time.perf_counter()
    yield
    clock[name] = time.perf_counter() - t0
    engine.say(f"{name}: done in {clock[name]:.2f}s")


def _record(plan: Plan, prints: dict, figures: dict, rows_out: int, suppressed: int, clock: dict,
            picked: dict, rows_in: int | None = None) -> dict:
    """The audit row's values (see :func:`anonymizer.release.publish.publish`): ``picked`` is
    what the algorithm chose (:func:`~anonymizer.release.history.chosen`: a lattice search's
    node, where the spec's ``levels`` are empty); ``prints`` holds the spec's hash and text (its
    seed left out: a seed would replay every draw) and the source's fingerprint."""
    options = {"name": plan.algorithm, **asdict(plan.options)}
    prints = dict(prints)
    source = prints.pop("source", None)
    record = {**prints, "algorithm": plan.algorithm,
            "parameters": {"source": source, "models": [str(m) for m in plan.models], "algorithm": options,
                           "chosen": picked,
                           "randomness": plan.key.kind, "suppression_limit": plan.suppression_limit,
                           "nulls": plan.nulls,
                           **({"budget": asdict(plan.target.budget)} if plan.target.budget else {})},
            "figures": figures, "rows_in": plan.rows if rows_in is None else rows_in, "rows_out": rows_out, "suppressed": suppressed,
            "timings": clock}
    # a differentially private release keeps nothing read from its input beyond ε (anonymizer.dp.audit)
    return withheld(record) if plan.algorithm in DIFFERENTIAL else record


def _unchanged_result(engine: Engine, target: Target, algorithm: str, current: Published,
                      seconds: float) -> ReleaseResult:
    """The result of a run that found nothing new: the published version's figures, and this
    run's own time (``total``: the check), not the timings that version recorded."""
    row = engine.execute(
        f"SELECT rows_in, rows_out, suppressed, figures, timings FROM {audit_table(target)} "
        "WHERE release = $r AND version = $v",
        {"r": target.release, "v": current.version}).fetchone()
    figures = json.loads(row[3]) if row[3] else {}
    # the classes the published version has (an audit row written before they were kept: 0)
    return ReleaseResult(target.release, current.version, current.view, current.snapshot, True,
                         row[0], row[1], row[2], int(figures.get("classes", 0)), figures.get("models", []),
                         {"k": figures.get("k")},
                         figures.get("utility", {}), {"total": seconds},
                         {"name": algorithm}, views=list(figures.get("views", [])),
                         warnings=list(figures.get("warnings", [])),
                         published_as=(target.output.schema, target.output.view))
