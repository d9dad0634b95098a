"""What was published: ``anonymizer report [RELEASE]``, read from the audit table.

Every release appends one row per version to ``_anon_releases._audit`` (see
:mod:`anonymizer.release.publish`): release, version, view_name, snapshot, spec_hash,
source_fingerprint, algorithm, parameters, figures, rows_in, rows_out, suppressed, timings,
created_at, and (since the audit trail of issue 19; older rows have them empty) spec_text,
published_at, library_version, engine_version, event, rolled_back_to, pruned_at. This
command only reads it: the database is opened read-only, the schema name
is quoted by the one quoting point, and the release name is a bound parameter.
"""

from __future__ import annotations

import json

import click

from anonymizer.errors import DataError, SpecError
from anonymizer.cli.params import (Finite, db_option, echo_json, engine_choice, engine_options, given, json_option,
                                   open_engine, progress)



@click.command()
@click.argument("release", required=False)
@db_option(help="DuckDB database file holding the audit table (for a release with output.database, that file); "
                "opened read-only.")
@click.option("--version", "version", type=click.IntRange(1), default=None, metavar="N",
              help="With RELEASE: this version in full (parameters and every figure).")
@click.option("--schema", default="_anon_releases", show_default=True,
              help="The releases' snapshot schema, which holds the audit table (a spec's output.snapshot_schema).")
@click.option("--html", "html", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="With RELEASE: write one self-contained HTML page for the version (default: the latest): spec, "
                   "models and achieved figures, risk, class sizes, information loss, every QI's and sensitive "
                   "attribute's distribution before and after, suppressed rows, timings, version history.")
@click.option("--spec", "spec", metavar="SPEC", type=click.Path(dir_okay=False, exists=True), default=None,
              help="With --html: the release's spec file, for a version whose audit row does not hold its spec text.")
@click.option("--for", "audience", type=click.Choice(["custodian", "recipient"]), default="custodian",
              show_default=True,
              help="With --html: who may read the page. custodian: the source's distributions beside the release's "
                   "(keep it with the source); recipient: the release's figures and totals only, nothing of the "
                   "source (hand it out with the release).")
@click.option("--source-db", "source_db", metavar="FILE", type=click.Path(dir_okay=False, exists=True), default=None,
              help="With --html: the DuckDB file that holds the source table, when the release was written to "
                   "another database (output.database); opened read-only, for the 'before' distributions.")
@click.option("--population-size", type=click.IntRange(1), default=None, metavar="N",
              help="With --html: the size of the population the release's source was sampled from; the page "
                   "estimates how many population records are unique on the QIs (ARX's Pitman, Zayatz, SNB, "
                   "Dankar's rule).")
@click.option("--sampling-fraction", type=Finite(0, 1), default=None, metavar="F",
              help="With --html: the same, the population given as the released rows' share of it (0 < F <= 1).")
@json_option
@engine_options
def report(release: str | None, db: str, version: int | None, schema: str, html: str | None, spec: str | None,
           audience: str, source_db: str | None, population_size: int | None, sampling_fraction: float | None,
           as_json: bool, **engine: str | None) -> None:
    """Report what was published into DB, from its audit table: without RELEASE one line per
    release (latest version, view, rows in and out, when); with RELEASE every version of it
    with its spec hash, algorithm, achieved figures (k, l, t, NCP, ...) and timings; with
    --version N that version in full. Nothing is written.

    \b
    Examples:
      anonymizer report --db warehouse.duckdb
      anonymizer report adult_demo --db warehouse.duckdb
      anonymizer report adult_demo --version 2 --db warehouse.duckdb --json
      anonymizer report adult_demo --db warehouse.duckdb --html adult_demo.html
      anonymizer report adult_demo --db warehouse.duckdb --html for_them.html --for recipient
      anonymizer report adult_demo --db published.duckdb --source-db warehouse.duckdb --html adult_demo.html
      anonymizer report adult_demo --db warehouse.duckdb --html adult_demo.html --sampling-fraction 0.01
      anonymizer report adult_demo --engine spark --spark-warehouse wh/   (a release in Spark's catalog)
    """
    if version is not None and release is None:
        raise SpecError("--version", "needs a RELEASE")
    population = {k: v for k, v in (("population_size", population_size), ("sampling_fraction", sampling_fraction))
                  if v is not None}
    for option, set_ in (("--for", audience != "custodian"), ("--source-db", source_db is not None),
                         ("--population-size", population_size is not None),
                         ("--sampling-fraction", sampling_fraction is not None)):
        if set_ and html is None:
            raise SpecError(option, "applies to the HTML page: add --html FILE")
    if source_db is not None and audience == "recipient":
        raise SpecError("--source-db", "gives the source's distributions, which a recipient's page leaves out")
    if html is not None and release is None:
        raise SpecError("--html", "needs a RELEASE")
    choice = engine_choice(**engine, db_given=given("db"))
    if source_db is not None and choice.spark:
        raise SpecError("--source-db", "is a DuckDB file: with Spark the source is read from Spark's catalog")
    where = "Spark's catalog" if choice.spark else db
    with open_engine(choice, db, read_only=True) as con:
        from anonymizer.engine.backend import engine_for
        on = engine_for(con)
        if html is not None:
            _html(on, release, where, version, schema, html, spec, as_json, population, audience, source_db)
            return
        audit = _audit_table(on, where, schema)
        if release is None:
            found = _rows(on, _LATEST.format(audit=audit))
        else:
            found = _versions(on, audit, where, release, version)
    shown = f"{schema}._audit"
    if as_json:
        echo_json({"database": where, "audit": shown, "releases": found} if release is None
                  else found[0] if version is not None else {"release": release, "versions": found})
    elif release is None:
        click.echo(format_releases(found, where, shown))
    else:
        click.echo(format_versions(release, found, full=version is not None))


def _html(on, release: str | None, db: str, version: int | None, schema: str, path: str, spec: str | None,
          as_json: bool, population: dict, audience: str = "custodian", source_db: str | None = None) -> None:
    """``--html``: the page of ``release``'s ``version`` (default: its latest) for ``audience``,
    read through the engine ``on`` (``db``: where, for messages) and written to ``path``;
    ``population``: the population estimates' size or fraction; ``source_db``: the file
    holding the source, attached read-only (DuckDB)."""
    from anonymizer.engine.names import ident
    from anonymizer.report import release_page, write_page
    assert release is not None   # report() refused --html without one
    say = progress(as_json)
    if say:
        say(f"report {release}: gathering the figures from {db}")
    rows = _versions(on, _audit_table(on, db, schema), db, release, None)
    row = rows[-1] if version is None else _versions(on, _audit_table(on, db, schema), db, release, version)[0]
    catalog = None
    if source_db is not None:
        catalog = "_anon_report_source"
        on.con.execute(f"ATTACH $path AS {ident(catalog)} (READ_ONLY)", {"path": str(source_db)})
    written = write_page(path, release_page(on, rows, row, spec, population, audience, catalog))
    if as_json:
        echo_json({"release": release, "version": row["version"], "html": written, "for": audience})
    else:
        click.echo(f"report of {release} v{row['version']} for the {audience} written to {written}")


_LATEST = """
SELECT release, count(*) OVER (PARTITION BY release) AS versions, version, view_name, rows_in, rows_out,
       suppressed, created_at
FROM {audit}
QUALIFY row_number() OVER (PARTITION BY release ORDER BY version DESC) = 1
ORDER BY release
"""


def _audit_table(on, db: str, schema: str) -> str:
    """The quoted audit table of ``schema``, after checking that it exists and is ours
    (:func:`anonymizer.release.publish.owned`: a user's own ``_audit`` there is refused)."""
    from anonymizer.engine.names import table
    from anonymizer.release.publish import AUDIT, AUDIT_CORE, owned
    if not owned(_engine(on), None, schema, AUDIT, AUDIT_CORE):
        raise DataError(f"{schema}.{AUDIT}", f"is not in {db}: nothing was published into it (`anonymizer run SPEC "
                                             f"--db {db}` publishes a release; one with output.database keeps its "
                                             "audit table in that file)")
    return table(schema, AUDIT)


def _versions(on, audit: str, db: str, release: str, version: int | None) -> list[dict]:
    """Every audit row of ``release`` (or only ``version``), oldest first."""
    rows = _rows(on, f"SELECT * FROM {audit} WHERE release = $release ORDER BY version", {"release": release})
    if not rows:
        known = [r["release"] for r in _rows(on, f"SELECT DISTINCT release FROM {audit} ORDER BY 1")]
        raise SpecError("RELEASE", f"is not a release in {db} (its releases: {', '.join(known) or 'none'})", release)
    if version is None:
        return rows
    chosen = [r for r in rows if r["version"] == version]
    if not chosen:
        raise SpecError("--version", f"release {release!r} has no such version (versions: "
                                     f"{', '.join(str(r['version']) for r in rows)})", version)
    return chosen


def _rows(on, sql: str, params: dict | None = None) -> list[dict]:
    """The rows of ``sql`` (DuckDB's SQL, on Spark transpiled) read through the engine ``on``,
    as dicts, the audit's JSON columns parsed."""
    from anonymizer.release.history import parsed
    cursor = _engine(on).execute(sql, params or None, template="<report>")
    names = [d[0] for d in cursor.description]
    return parsed([dict(zip(names, row)) for row in cursor.fetchall()])


def _engine(on):
    """``on``, an engine or a DuckDB connection, as an engine."""
    from anonymizer.engine.session import Engine
    return on if isinstance(on, Engine) else Engine(on)


# -- text ---------------------------------------------------------------------------------------
def _n(value) -> str:
    """A figure for people: floats to 4 significant digits."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _when(value) -> str:
    return str(value)[:19]


def format_releases(rows: list[dict], db: str, audit: str) -> str:
    """One line per release: its latest version."""
    header = ("release", "versions", "latest", "view", "rows in", "rows out", "suppressed", "created")
    table = [header] + [(r["release"], r["versions"], r["version"], r["view_name"], r["rows_in"], r["rows_out"],
                         r["suppressed"], _when(r["created_at"])) for r in rows]
    widths = [max(len(str(line[i])) for line in table) for i in range(len(header))]
    lines = [f"{len(rows)} release(s) in {db} (audit table {audit}):"]
    lines += ["  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip() for line in table]
    return "\n".join(lines)


def format_versions(release: str, rows: list[dict], full: bool = False) -> str:
    """Each version of a release: where it went, its spec hash, algorithm, rows, achieved
    figures and timings; ``full`` adds the source fingerprint, parameters and every figure."""
    lines = [] if full else [f"release {release}: {len(rows)} version(s)"]
    for r in rows:
        figures, timings = r.get("figures") or {}, r.get("timings") or {}
        event = f", rollback to v{r['rolled_back_to']}" if r.get("event") == "rollback" else ""
        lines.append(f"{f'release {release} ' if full else ''}version {r['version']}{event}, "
                     f"{_when(r.get('published_at') or r['created_at'])}: {r['view_name']} (snapshot {r['snapshot']}"
                     + (", pruned)" if r.get("pruned_at") else ")"))
        lines.append(f"  spec {r['spec_hash']}, algorithm {r['algorithm']}; rows {_kept(r['rows_in'])} in, "
                     f"{r['rows_out']} out, {_kept(r['suppressed'])} suppressed")
        for model in figures.get("models", []):
            verdict = "" if model.get("holds", True) else "  (does not hold)"
            lines.append(f"  achieved  {model.get('model')}: {_n(model.get('figure'))}{verdict}")
        utility = {k: v for k, v in (figures.get("utility") or {}).items() if isinstance(v, (int, float))}
        if utility:
            lines.append("  utility   " + ", ".join(f"{k} {_n(v)}" for k, v in utility.items()))
        if timings:
            total = sum(v for v in timings.values() if isinstance(v, (int, float)))
            lines.append("  seconds   " + ", ".join(f"{k} {v:.2f}" for k, v in timings.items()
                                                   if isinstance(v, (int, float))) + f" (total {total:.2f})")
        if full:
            if r.get("library_version"):
                lines.append(f"  versions  anonymizer {r['library_version']}, {r['engine_version']}")
            lines.append(f"  source    {r['source_fingerprint']} (a digest of the row count and content of the columns read)")
            lines.append("  parameters " + json.dumps(r.get("parameters"), indent=2, default=str)
                         .replace("\n", "\n  "))
            lines.append("  figures " + json.dumps(figures, indent=2, default=str).replace("\n", "\n  "))
            if r.get("spec_text"):
                lines.append("  spec (as written, without its seed):\n    "
                             + r["spec_text"].rstrip().replace("\n", "\n    "))
    return "\n".join(lines)


def _kept(count: int | None) -> str:
    """A count the audit kept, or why not (a differentially private release keeps no count of
    its input: :mod:`anonymizer.dp.audit`)."""
    return "withheld (DP)" if count is None else str(count)

