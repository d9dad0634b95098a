"""Releasing: ``anonymizer run SPEC`` (with ``--dry-run`` and ``--log-sql``), ``validate SPEC``
and ``demo``."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import click

from anonymizer.cli import logs
from anonymizer.errors import SpecError
from anonymizer.cli.params import (db_option, echo_json, emit, engine_choice, engine_options, given, json_option,
                                   memory_limit_option, open_db, open_engine, progress, quiet_option)


@click.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@db_option(help="DuckDB database file holding the source table (and the release, unless the spec's "
                "output.database names another file: then DB is opened read-only).")
@click.option("--export", "export", metavar="PATH", default=None,
              help="Also copy the published snapshot to PATH after it is verified and published: "
                   ".parquet or .csv (.csv.gz, .tsv); further tables go next to it as <name>_<part>.<ext>. "
                   "Replaces the spec's output.export.")
@json_option
@click.option("--force", is_flag=True, help="Publish a new version even if nothing changed.")
@click.option("--keep-work", is_flag=True, help="Keep the run's work schema in DB (debugging; raw data).")
@memory_limit_option("DuckDB's memory limit for the run, e.g. 8GB or 50% (beyond it DuckDB spills to its temporary "
                     "directory). Replaces the spec's engine.memory_limit.")
@click.option("--temp-directory", metavar="DIR", default=None,
              help="Where DuckDB spills under the memory limit (default: DB.tmp next to DB). Replaces the "
                   "spec's engine.temp_directory.")
@click.option("--dry-run", is_flag=True,
              help="Verify and measure the release, publish nothing (no snapshot, view, audit row or export).")
@click.option("--log-sql", "log_sql", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="Write every SQL statement the run executed, with its time, to FILE (also when it fails).")
@click.option("--html", "html", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="With --dry-run: write the HTML report of the verified candidate to FILE (as `anonymizer report "
                   "RELEASE --html` does for a published version).")
@engine_options
@quiet_option()
def run(spec: str, db: str, export: str | None, as_json: bool, force: bool, keep_work: bool,
        memory_limit: str | None, temp_directory: str | None, dry_run: bool, log_sql: str | None,
        html: str | None, quiet: bool, **engine: str | None) -> None:
    """Run the release SPEC (a YAML file) against the database DB.

    The spec names the source table (or files to load: a CSV, Parquet or JSON file, a
    folder of parts, or on Spark any URI its reader takes), the role of every
    column (identifier, quasi, sensitive, insensitive), the privacy models, the algorithm
    and where to publish. Re-running an unchanged release publishes nothing new;
    `anonymizer report --db DB` lists what was published.

    \b
    Where the release goes (the spec's output):
      output: {view: adult}                      view published.adult in DB
      output: {view: adult, database: pub.duckdb}
                      into pub.duckdb (relative to the spec; created if missing),
                      DB is only read: raw and published data live apart
      output: {view: adult, export: {path: out/adult.parquet}}
                      also a Parquet (or .csv) copy of the published rows

    \b
    Examples:
      anonymizer run adult.yml --db raw.duckdb
      anonymizer run adult.yml --db raw.duckdb --export out/adult.parquet
      anonymizer run adult.yml --db raw.duckdb --memory-limit 8GB
      anonymizer run adult.yml --db raw.duckdb --dry-run --log-sql run.sql
      anonymizer run adult.yml --db raw.duckdb --dry-run --html adult.html
      anonymizer run adult.yml --engine spark --spark-warehouse wh/   (source and release in Spark's catalog)

    \b
    Under spark-submit (the cluster's --master, --conf and spark-defaults.conf decide):
      spark-submit --master yarn "$(python -c 'import anonymizer.cli as c; print(c.__path__[0])')/__main__.py" \\
        run nightly.yml --engine spark --json
    """
    from anonymizer.release.run import PHASE_SHARES, run_release
    from anonymizer.spec.parse import load_spec, parse_export
    parsed = _with_resources(load_spec(spec), memory_limit, temp_directory)
    if export is not None:
        parsed = replace(parsed, output=replace(parsed.output, export=parse_export(export, Path("."), "--export")))
    choice = engine_choice(parsed.backend, **engine, db_given=given("db"))
    report = _dry_run_report(spec, html, dry_run, choice.spark)
    if choice.spark:
        _refuse_duckdb_options(memory_limit, temp_directory)
    separate = parsed.output.database is not None
    if separate and keep_work:
        raise SpecError("--keep-work", "keeps the run's work tables in --db, which a release with "
                                       "output.database opens read-only; leave out one of them")
    if separate and _same_file(db, parsed.output.database):
        raise SpecError("output.database", f"is the source database --db {db}; leave output.database out "
                                           "to publish into it, or name another file", str(parsed.output.database))
    reads_only = separate or (dry_run and not keep_work)   # a dry run writes nothing to --db
    source_db = db if not (reads_only and parsed.source.location is not None and not Path(db).exists()) else None
    statements: list = []
    if log_sql is not None:
        _write_log(Path(log_sql), statements)   # a path that cannot be written is refused before any work
    try:
        with open_engine(choice, source_db, read_only=reads_only) as con, \
                progress(quiet or as_json, PHASE_SHARES) as say:
            result = run_release(parsed, con, progress=say, keep_work=keep_work, force=force, dry_run=dry_run,
                                 log=statements, inspect=report)
    finally:
        if log_sql is not None:
            try:
                _write_log(Path(log_sql), statements)
            except SpecError as exc:   # the run's own outcome (and exit status) stands
                logs.problem(str(exc), logging.WARNING)
    _name_the_file(result, source_db, choice.spark)
    emit(result, as_json)
    if report is not None:
        from anonymizer.report import write_page
        written = write_page(html, report.page(result))
        if not as_json:
            click.echo(f"\nreport of the dry run written to {written}")


def _name_the_file(result, db: str | None, spark: bool) -> None:
    """The summary names the DuckDB file the release went to (``--db``, ``./anonymizer.duckdb``
    by default), not only a separate ``output.database``."""
    if result.database is None and db is not None and not spark:
        result.database = str(db)


def _dry_run_report(spec: str, html: str | None, dry_run: bool, spark: bool):
    """``--html``: the report that gathers the dry run's figures (``None`` without it)."""
    if html is None:
        return None
    if not dry_run:
        raise SpecError("--html", "reports a dry run (with --dry-run); for a published release use "
                                  "`anonymizer report RELEASE --html FILE`")
    if spark:
        raise SpecError("--html", "reads the candidate in DuckDB; a dry run on Spark has no HTML report yet")
    from anonymizer.report import DryRun
    return DryRun(Path(spec).read_text(encoding="utf-8"))


def _write_log(path: Path, statements: list) -> None:
    """``--log-sql``: every statement a run executed, in order, each headed by a comment
    line ``-- statement N: <template>, <seconds> s``, as a script DuckDB can read."""
    try:
        path.write_text("".join(f"-- statement {n}: {s.template}, {s.seconds:.4f} s\n"
                                f"{s.sql.strip().rstrip(';')};\n\n" for n, s in enumerate(statements, 1)),
                        encoding="utf-8")
    except OSError as exc:
        raise SpecError("--log-sql", f"cannot be written ({exc.strerror or exc})", str(path)) from None


def _with_resources(spec, memory_limit: str | None, temp_directory: str | None):
    """The spec with ``--memory-limit`` and ``--temp-directory`` in place of its ``engine``
    settings (the command line wins)."""
    from anonymizer.spec.parse import memory_limit as checked_limit
    settings = spec.engine
    if memory_limit is not None:
        settings = replace(settings, memory_limit=checked_limit(memory_limit, "--memory-limit"))
    if temp_directory is not None:
        if not temp_directory.strip():
            raise SpecError("--temp-directory", "must be a directory path", temp_directory)
        settings = replace(settings, temp_directory=temp_directory)
    return replace(spec, engine=settings)


def _refuse_duckdb_options(memory_limit: str | None, temp_directory: str | None) -> None:
    """DuckDB's resources and files mean nothing to Spark: said, not ignored."""
    for name, value in (("--memory-limit", memory_limit), ("--temp-directory", temp_directory)):
        if value is not None:
            raise SpecError(name, "is a DuckDB setting; give Spark's as --spark-conf, e.g. spark.driver.memory=8g")


def _same_file(a: str, b) -> bool:
    """Whether two paths name the same file (as far as they can be resolved)."""
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


@click.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@db_option(None, help="Also check the spec against this database's source table, opened read-only: the "
                      "table and every column named exist, roles and types fit, k is not above its rows.")
@json_option
def validate(spec: str, db: str | None, as_json: bool) -> None:
    """Validate the release SPEC; with --db, against the source table too.

    Reads the YAML file, checks every field (roles, models, algorithm, output) and prints
    what the release would do; an invalid spec exits with status 2 and names the field.
    Without --db no database is touched. With --db, DB is opened read-only and the source
    table is checked as `run` checks it before any work (plan.check_source): it exists,
    every column the spec names is one of it, numeric QIs are numeric, flag columns
    BOOLEAN, hierarchies fit their columns, every column has a role, and the table has at
    least k rows (one count).

    \b
    Examples:
      anonymizer validate examples/adult_mondrian.yml
      anonymizer validate release.yml --db raw.duckdb --json
    """
    from anonymizer.spec.parse import load_spec
    parsed = load_spec(spec)
    found = {"spec": spec, "release": parsed.release, "quasi": [c.name for c in parsed.quasi],
             "models": [str(m) for m in parsed.models], "algorithm": parsed.algorithm.name}
    text = (f"{spec}: valid release {parsed.release!r}: {len(parsed.quasi)} quasi-identifiers, "
            f"{', '.join(found['models'])}; {parsed.algorithm.name}")
    if db is not None:
        found["source"] = _check_source(parsed, db)
        columns = ", ".join(f"{name} ({c['role']}, {c['type']})" for name, c in found["source"]["columns"].items())
        text += f"\n  source {found['source']['table']}: {found['source']['rows']} rows; {columns}"
    if as_json:
        echo_json(found)
    else:
        click.echo(text)


def _check_source(parsed, db: str) -> dict:
    """``validate --db``: :func:`anonymizer.plan.check_source` on ``db`` opened read-only."""
    from anonymizer.engine.session import Engine
    from anonymizer.plan import check_source
    with open_db(db, read_only=True) as con, Engine(con).workspace() as engine:
        resolved, _, profile = check_source(engine, parsed)
    where = parsed.source.location or f"{parsed.source.table} in {db}"
    return {"table": str(where), "rows": profile.rows,
            "columns": {c.name: {"role": c.role, "type": c.type} for c in resolved.columns}}


@click.command()
@db_option(help="DuckDB database file to create or reuse.")
@click.option("--k", type=click.IntRange(2, 1000), default=None, help="Override k (default 10).")
@json_option
@engine_options
@quiet_option()
def demo(db: str, k: int | None, as_json: bool, quiet: bool, **engine: str | None) -> None:
    """Anonymize the bundled UCI Adult table (32,561 rows) and publish published.adult.

    Loads the data into table `adult` of DB, runs Mondrian with 10-anonymity, distinct
    3-diversity on occupation and 0.2-closeness on income (rows with a missing value are
    suppressed), verifies and publishes the view, and prints what was achieved.

    With --engine spark the same release runs on Apache Spark: Adult is copied into table
    `adult` of Spark's catalog (kept in --spark-warehouse) and published there.

    \b
    Examples:
      anonymizer demo --db demo.duckdb && anonymizer report --db demo.duckdb
      anonymizer demo --engine spark --spark-warehouse wh/
    """
    from anonymizer.demo import demo_spec, load_adult, load_adult_on_spark
    from anonymizer.engine.choice import DEFAULT_WAREHOUSE
    from anonymizer.release.run import PHASE_SHARES, run_release
    choice = engine_choice(**engine, db_given=given("db"))
    with open_engine(choice, db) as con, progress(quiet or as_json, PHASE_SHARES) as say:
        if choice.spark:
            if say:
                say("copying the bundled Adult table into Spark's catalog (table adult)")
            load_adult_on_spark(con)
        else:
            load_adult(con)
        result = run_release(demo_spec(k), con, progress=say)
    _name_the_file(result, db, choice.spark)
    emit(result, as_json)
    if not as_json:
        where = (f"--engine spark --spark-warehouse {choice.warehouse or DEFAULT_WAREHOUSE}" if choice.spark
                 else f"--db {db}")
        click.echo(f"\nMeasure it again:  anonymizer check {where} --table {result.view} "
                   "--qi eq_class,age,sex,race,marital-status,education,native-country,workclass "
                   "--sensitive occupation,income")
