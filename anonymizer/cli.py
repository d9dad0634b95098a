"""The ``anonymizer`` command: a thin shell over the same API Python users call.

Exit status: 0 done, 1 a privacy check failed (nothing published), 2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import duckdb

from .errors import AnonymizerError, PrivacyCheckFailed

DEFAULT_DB = "anonymizer.duckdb"


def _progress(quiet: bool):
    if quiet:
        return None
    return lambda msg: click.echo(f"· {msg}", err=True)


def _fail(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(1 if isinstance(exc, PrivacyCheckFailed) else 2)


def _emit(result, as_json: bool) -> None:
    from .summary import format_release
    if as_json:
        click.echo(json.dumps(result.to_dict(), default=str))
    else:
        click.echo(format_release(result))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="anonymizer")
def main() -> None:
    """Anonymize tables inside DuckDB and publish them as verified views.

    \b
    Start here:
      anonymizer demo                      anonymize the bundled UCI Adult table
      anonymizer run release.yml --db d.duckdb
                                           run a release spec (see examples/)
      anonymizer check --db d.duckdb --table t --qi age,sex --sensitive disease
                                           measure k, l, t and risk of any table
      anonymizer bench --rows 1000000      time Mondrian against a plain GROUP BY scan

    Every release is checked again in SQL before it is published; a release that fails
    publishes nothing and exits with status 1.
    """


@main.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.option("--force", is_flag=True, help="Publish a new version even if nothing changed.")
@click.option("--keep-work", is_flag=True, help="Keep the run's work schema (debugging).")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
def run(spec: str, db: str, as_json: bool, force: bool, keep_work: bool, quiet: bool) -> None:
    """Run the release SPEC (a YAML file) against the database DB.

    The spec names the source table (or a CSV/Parquet file to load), the role of every
    column (identifier, quasi, sensitive, insensitive), the privacy models, the algorithm
    and where to publish. Re-running an unchanged release publishes nothing new.
    """
    from .release import run_release
    from .spec import load_spec
    try:
        parsed = load_spec(spec)
        with duckdb.connect(db) as con:
            result = run_release(parsed, con, progress=_progress(quiet or as_json), keep_work=keep_work,
                                 force=force)
    except AnonymizerError as exc:
        _fail(exc)
    _emit(result, as_json)


@main.command()
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file to create or reuse.")
@click.option("--k", type=click.IntRange(2, 1000), default=None, help="Override k (default 10).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
def demo(db: str, k: int | None, as_json: bool, quiet: bool) -> None:
    """Anonymize the bundled UCI Adult table (32,561 rows) and publish published.adult.

    Loads the data into table `adult` of DB, runs Mondrian with 10-anonymity, distinct
    3-diversity on occupation and 0.2-closeness on income (rows with a missing value are
    suppressed), verifies and publishes the view, and prints what was achieved.
    """
    from .demo import demo_spec, load_adult
    from .release import run_release
    try:
        with duckdb.connect(db) as con:
            load_adult(con)
            result = run_release(demo_spec(k), con, progress=_progress(quiet or as_json))
    except AnonymizerError as exc:
        _fail(exc)
    _emit(result, as_json)
    if not as_json:
        click.echo(f"\nMeasure it again:  anonymizer check --db {db} --table {result.view} "
                   "--qi age,sex,race,marital-status,education,native-country,workclass "
                   "--sensitive occupation,income")


def _csv(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


@main.command()
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file.")
@click.option("--table", required=True, help="Table or view to measure (schema.table allowed).")
@click.option("--qi", required=True, help="Quasi-identifier columns, comma separated.")
@click.option("--sensitive", multiple=True, help="A sensitive column (repeat for several, or comma separate).")
@click.option("--c", "c", type=float, default=2.0, show_default=True, help="c of recursive (c,l)-diversity.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check(db: str, table: str, qi: str, sensitive: tuple[str, ...], c: float, as_json: bool) -> None:
    """Measure any table: k, l-diversity (distinct, entropy, recursive), t-closeness,
    re-identification risk and class sizes, grouping by the QI columns.

    Works on tables anonymized elsewhere too. Nothing is written.
    """
    from .measure import format_measure, measure_table
    sens = [s for item in sensitive for s in _csv(item)]
    if not Path(db).exists():
        _fail(AnonymizerError(f"--db {db}: no such database file"))
    try:
        with duckdb.connect(db, read_only=True) as con:
            result = measure_table(con, table, _csv(qi), sens, c=c)
    except AnonymizerError as exc:
        _fail(exc)
    click.echo(json.dumps(result, default=str) if as_json else format_measure(result))


@main.command()
@click.option("--rows", "rows", multiple=True, type=click.IntRange(1), default=[1_000_000], show_default=True,
              help="Synthetic table sizes (repeat the option for several).")
@click.option("--bench", "kind", type=click.Choice(["mondrian", "full-domain", "k-check"]), default="mondrian",
              show_default=True, help="What to time: an algorithm (from coding the QIs to the classes), "
                                      "or one k-anonymity check.")
@click.option("--k", type=click.IntRange(1), default=10, show_default=True, help="k of k-anonymity.")
@click.option("--qis", type=click.IntRange(1, 8), default=6, show_default=True, help="Number of QIs.")
@click.option("--repeat", type=click.IntRange(1, 20), default=3, show_default=True, help="Runs per size.")
def bench(rows: tuple[int, ...], kind: str, k: int, qis: int, repeat: int) -> None:
    """Time an algorithm on synthetic Adult-like tables generated in DuckDB.

    Prints one JSON line per run: rows, seconds, scan_seconds (one plain GROUP BY over the
    same QIs), ratio, peak_mb. Compare ratios across machines, not seconds.
    """
    from .bench import run_bench
    check_only = kind == "k-check"
    for line in run_bench(list(rows), algorithm="mondrian" if check_only else kind, k=k, qis=qis, repeat=repeat,
                          check_only=check_only):
        click.echo(json.dumps(line), nl=True)
        sys.stdout.flush()


@main.command()
@click.argument("spec", type=click.Path(dir_okay=False))
def validate(spec: str) -> None:
    """Validate the release SPEC without touching any database."""
    from .spec import load_spec
    try:
        parsed = load_spec(spec)
    except AnonymizerError as exc:
        _fail(exc)
    click.echo(f"{spec}: valid release {parsed.release!r}: {len(parsed.quasi)} quasi-identifiers, "
               f"{', '.join(str(m) for m in parsed.models)}; {parsed.algorithm.name}")


if __name__ == "__main__":
    main()
