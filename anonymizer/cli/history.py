"""A release's versions: ``anonymizer history``, ``rollback`` and ``prune``.

Each works on the database holding the release's audit table (``--db``; for a release
with ``output.database``, that file) through :mod:`anonymizer.release.history`: ``history``
only reads (the file is opened read-only), ``rollback`` and ``prune`` change the views,
snapshots and audit rows in one transaction, or nothing.
"""

from __future__ import annotations

import click

from anonymizer.cli.params import (db_option, echo_json, engine_choice, engine_options, given, json_option, open_db,
                                   open_engine)
from anonymizer.cli.report import _engine, _kept, _n

_DB = "DuckDB database file holding the release's audit table (for a release with output.database, that file)."
schema_option = click.option("--schema", default="_anon_releases", show_default=True,
                             help="The releases' snapshot schema, which holds the audit table "
                                  "(a spec's output.snapshot_schema).")


@click.command()
@click.argument("release")
@db_option(help=_DB + " Opened read-only.")
@schema_option
@json_option
@engine_options
def history(release: str, db: str, schema: str, as_json: bool, **engine: str | None) -> None:
    """Every version of RELEASE: publications and rollbacks, when, the spec hash, the
    algorithm's chosen node or parameters, the achieved figure per model, which version the
    view reads now (*) and which snapshots were pruned. Nothing is written.

    \b
    Examples:
      anonymizer history adult_demo --db warehouse.duckdb
      anonymizer history adult_demo --db warehouse.duckdb --json
      anonymizer history adult_demo --engine spark --spark-warehouse wh/   (a release in Spark's catalog)
    """
    from anonymizer.engine.backend import engine_for
    from anonymizer.release.history import history as read
    choice = engine_choice(**engine, db_given=given("db"))
    with open_engine(choice, db, read_only=True, must_exist=True) as con:
        found = read(engine_for(con), schema, release)
    if as_json:
        echo_json(found)
    else:
        click.echo(format_history(found))


@click.command()
@click.argument("release")
@click.option("--to", "to", type=click.IntRange(1), required=True, metavar="N", help="The version to return to.")
@db_option(help=_DB)
@schema_option
@json_option
def rollback(release: str, to: int, db: str, schema: str, as_json: bool) -> None:
    """Point RELEASE's view(s) at version N's snapshot(s) again, in one transaction, and
    record it in the audit as a new version (event rollback). The next `anonymizer run`
    publishes a new version as usual. Refused, changing nothing: an unknown version, a
    pruned one, a view the release does not own.

    \b
    Examples:
      anonymizer rollback adult_demo --to 2 --db warehouse.duckdb
    """
    from anonymizer.release.history import rollback as back
    with open_db(db, must_exist=True) as con:
        done = back(_engine(con), schema, release, to)
    if as_json:
        echo_json(done)
    else:
        click.echo(f"release {release}: {', '.join(done['views'])} read v{to} again ({done['snapshot']}); "
                   f"recorded as v{done['version']} (rollback)")


@click.command()
@click.argument("release")
@click.option("--keep", type=click.IntRange(1), required=True, metavar="N",
              help="Publications whose snapshots stay (the newest N, and always the one the view reads).")
@click.option("--dry-run", is_flag=True, help="Say what would be dropped; drop nothing.")
@db_option(help=_DB)
@schema_option
@json_option
def prune(release: str, keep: int, dry_run: bool, db: str, schema: str, as_json: bool) -> None:
    """Drop the snapshot tables of RELEASE's older versions: all but the newest N
    publications, never the one the view reads. Their audit rows stay, marked pruned (a
    pruned version cannot be rolled back to).

    \b
    Examples:
      anonymizer prune adult_demo --keep 2 --db warehouse.duckdb --dry-run
      anonymizer prune adult_demo --keep 2 --db warehouse.duckdb
    """
    from anonymizer.release.history import prune as drop
    with open_db(db, read_only=dry_run, must_exist=True) as con:
        done = drop(_engine(con), schema, release, keep, dry_run)
    if as_json:
        echo_json(done)
        return
    verb = "would drop" if dry_run else "dropped"
    lines = [f"release {release}: keeps v{', v'.join(map(str, done['kept']))}; "
             f"{verb} {len(done['dropped'])} version(s)" + (":" if done["dropped"] else "")]
    lines += [f"  v{d['version']}: {', '.join(d['tables'])}" for d in done["dropped"]]
    if done["dropped"]:
        freed = "" if done["bytes_freed"] is None else f", {done['bytes_freed'] / 2 ** 20:.1f} MiB freed in the file"
        lines.append(f"  {done['rows']} snapshot rows{freed}")
    click.echo("\n".join(lines))


def across(c: dict) -> str:
    """One line of what a version discloses read with the earlier ones (``history``'s ``combination``)."""
    compared = f"compared with v{', v'.join(map(str, c['compared']))}" if c["compared"] else "no earlier version"
    smallest = (f"smallest candidate set {c['smallest']} ({c['below']} narrowed below l by this version, "
                f"{c['already_below']} by earlier ones)" if c["smallest"] is not None
                else "candidates not followed (no history.person)")
    counterfeits = f"{c['counterfeits']} counterfeit {c['unit']}" if c["counterfeits"] else "no counterfeits"
    return (f"{c['guarantee']}: {compared}; {c['isolated']} people isolated by a difference; {smallest}; "
            f"{counterfeits}")


def format_history(found: dict) -> str:
    """One block per version: event, time, spec hash, chosen node, figures, snapshot."""
    lines = [f"release {found['release']}: {len(found['versions'])} version(s), view {found['view']} reads "
             + (f"v{found['current']}" if found["current"] is not None else "none of them (changed outside the "
                                                                                "anonymizer)")]
    for v in found["versions"]:
        mark = "*" if v["current"] else " "
        event = f"rollback to v{v['rolled_back_to']}" if v["event"] == "rollback" else "publish"
        lines.append(f"{mark} v{v['version']}  {event}, {str(v['published_at'])[:19]}, spec {v['spec_hash']}, "
                     f"{v['algorithm']}" + (f" ({v['library_version']}, {v['engine_version']})"
                                            if v["library_version"] else ""))
        chosen = v["chosen"] or {}
        if chosen.get("levels"):
            lines.append("    node      " + ", ".join(f"{q} {lv}" for q, lv in chosen["levels"].items()))
        shown = {k: x for k, x in chosen.items() if k != "levels" and isinstance(x, (int, float, str, bool))}
        if shown:
            lines.append("    chosen    " + ", ".join(f"{k} {_n(x)}" for k, x in shown.items()))
        if v["models"]:
            lines.append("    achieved  " + ", ".join(f"{m['model']} {_n(m['figure'])}" for m in v["models"]))
        if v.get("combination"):   # a DP version's guarantee across versions is its budget's, not this measure
            lines.append("    versions  " + across(v["combination"])
                         + ("; a measure of the published rows only: DP versions compose by epsilon (budget)"
                            if v.get("privacy_budget") else ""))
        if v.get("privacy_budget"):
            b = v["privacy_budget"]
            lines.append(f"    budget    spent epsilon {b['epsilon']:g}, delta {b['delta']:g} of account {b['account']}: "
                         f"cumulative epsilon {b['cumulative_epsilon']:g} of {b['total_epsilon']:g}, delta "
                         f"{b['cumulative_delta']:g} of {b['total_delta']:g}")
        lines.append(f"    rows      {_kept(v['rows_in'])} in, {v['rows_out']} out, {_kept(v['suppressed'])} suppressed; "
                     f"snapshot {v['snapshot']}" + (f" (pruned {str(v['pruned_at'])[:19]})" if v["pruned_at"] else ""))
    return "\n".join(lines)

