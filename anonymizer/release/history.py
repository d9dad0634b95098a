"""A release's audit trail: its history, rollback to an earlier version, pruning old snapshots.

Every publication appends an audit row (:mod:`anonymizer.release.publish`) that holds what
a privacy officer needs to tell what was released and how: the spec as written (its seed
left out, :func:`spec_text`), the algorithm's chosen node or parameters
(``parameters.chosen``, :func:`chosen`), the publish time, the library's and the engine's
versions, and per model the achieved figure (``figures.models``).

- :func:`history`: every version and event of a release, which one its view reads now,
  which snapshots were pruned, and what each version discloses read with the earlier ones
  (:func:`anonymizer.versions.combination.summary`).
- :func:`rollback`: points the release's view(s) at version N's snapshot(s) again (a
  generalized release's join view with the definition recorded in N's row,
  ``figures.view_sql``) and appends an audit row, event ``rollback``, with a version of its
  own (the next one) naming N's snapshot, all in one transaction. The release keeps owning
  its views (the owner's check reads the snapshot a row names), and a later run publishes
  version max + 1 as usual.
- :func:`prune`: drops the snapshot tables of all but the newest N publications, never the
  one the view reads, and marks their rows ``pruned_at`` (the rows stay).

The commands work on the database holding the audit table (for a release with
``output.database``, that file), in the connection's own catalog.
"""

from __future__ import annotations

import json

from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.versions.combination import summary
from anonymizer.release.publish import (AUDIT, AUDIT_CORE, owned, ViewNotOwned, audit_rows, check_view, snapshot_name, upgrade_audit,
                                        versions)
from anonymizer.target import Output

#: the audit columns holding JSON text
JSON_COLUMNS = ("parameters", "figures", "timings")

# -- what a publication records --------------------------------------------------------------------
def chosen(algorithm: dict) -> dict:
    """What the algorithm chose, from its figures (``ReleaseResult.algorithm``): the lattice
    node (``levels`` per QI) of full-domain, optimal and PrivacyFrost2 (with its score or
    loss), Mondrian's rounds and cells, the buckets and groups of the other families; not
    its timings, Mondrian's rows per round (a benchmark's figure) or the lattice searches'
    per-check trace."""
    return {k: v for k, v in algorithm.items() if k not in ("trace", "round_rows") and "seconds" not in k}


# -- reading the audit -----------------------------------------------------------------------------
def audit_of(engine: Engine, schema: str) -> str:
    """The quoted audit table of the snapshot schema ``schema``, which must exist."""
    if not owned(engine, None, schema, AUDIT, AUDIT_CORE):
        raise SpecError("--schema", f"holds no audit table {schema}.{AUDIT}: nothing was published here (a release "
                                    "with output.database keeps it in that file)", schema)
    return table(schema, AUDIT)


def release_rows(engine: Engine, audit: str, release: str) -> list[dict]:
    """Every audit row of ``release``, oldest first, its JSON columns parsed; refuses a
    release the audit does not know."""
    rows = audit_rows(engine, audit, "publish/audit_rows.sql.j2", release)
    if not rows:
        raise SpecError("RELEASE", "is not a release of this database's audit table", release)
    return parsed(rows)


def parsed(rows: list[dict]) -> list[dict]:
    """``rows`` (audit rows as dicts) with their JSON columns parsed, in place."""
    for row in rows:
        for name in JSON_COLUMNS:
            if isinstance(row.get(name), str):
                row[name] = json.loads(row[name])
    return rows


def _output(row: dict, schema: str) -> Output:
    view_schema, view = row["view_name"].split(".", 1)
    return Output(view, view_schema, schema)


def _views(row: dict, schema: str) -> list[tuple[str, str, bool]]:
    """``(view, snapshot table, is the main view)`` for every view an audit row names."""
    out, snap = _output(row, schema), snapshot_name(_output(row, schema), row)
    parts = [v[len(row["view_name"]) + 1:] for v in (row.get("figures") or {}).get("views", [])]
    return [(out.view, snap, True)] + [(f"{out.view}_{p}", f"{snap}__{p}", False) for p in parts]


def _reads_now(engine: Engine, schema: str, release: str, last: dict) -> bool:
    """Whether the release's views still read what its latest row names."""
    out = _output(last, schema)
    try:
        return all(check_view(engine, out, release, view) == snap for view, snap, _ in _views(last, schema))
    except ViewNotOwned:
        return False


def history(engine: Engine, schema: str, release: str) -> dict:
    """Every version and event of ``release`` (module docstring), oldest first."""
    rows = release_rows(engine, audit_of(engine, schema), release)
    last = rows[-1]
    current = last["version"] if _reads_now(engine, schema, release, last) else None
    entries = [{
        "version": r["version"], "event": r.get("event") or "publish", "rolled_back_to": r.get("rolled_back_to"),
        "published_at": r.get("published_at") or r.get("created_at"), "spec_hash": r["spec_hash"],
        "algorithm": r["algorithm"], "chosen": (r.get("parameters") or {}).get("chosen"),
        "models": [{k: m.get(k) for k in ("model", "figure", "holds")} for m in (r.get("figures") or {}).get("models", [])],
        "rows_in": r["rows_in"], "rows_out": r["rows_out"], "suppressed": r["suppressed"], "view": r["view_name"],
        "snapshot": r["snapshot"], "pruned_at": r.get("pruned_at"), "current": r["version"] == current,
        "library_version": r.get("library_version"), "engine_version": r.get("engine_version"),
        "combination": summary(r.get("figures"), r.get("parameters")),
        "privacy_budget": _spent(engine, schema, release, r),
    } for r in rows]
    return {"release": release, "view": last["view_name"], "current": current, "versions": entries}


def _spent(engine: Engine, schema: str, release: str, row: dict) -> dict | None:
    """What a differentially private version spent from its budget (:mod:`anonymizer.dp.ledger`):
    ``{account, epsilon, delta, cumulative_epsilon, cumulative_delta, total_epsilon, total_delta}``;
    ``None`` for any other version."""
    from anonymizer.dp import ledger
    account = ((row.get("parameters") or {}).get("budget") or {}).get("account")
    if account is None:
        return None
    found = ledger.read(engine, None, schema, account)
    for e in found.cumulative() if found else []:
        if e["event"] == "spend" and e["release"] == release and e["version"] == row["version"]:
            return {"account": account, "epsilon": e["epsilon"], "delta": e["delta"],
                    "cumulative_epsilon": e["spent"][0], "cumulative_delta": e["spent"][1],
                    "total_epsilon": e["total"][0], "total_delta": e["total"][1]}
    return None


# -- rollback --------------------------------------------------------------------------------------
def rollback(engine: Engine, schema: str, release: str, to: int) -> dict:
    """Point ``release``'s view(s) at version ``to``'s snapshot(s) and audit it (module
    docstring). Refuses, changing nothing: an unknown release or version, a version that is
    itself a rollback, a pruned version (or one whose snapshot is gone), the version the
    views read already, a view the release does not own.

    Returns:
        ``{"release", "version" (the rollback's own), "rolled_back_to", "views", "snapshot"}``.
    """
    audit = audit_of(engine, schema)
    rows = release_rows(engine, audit, release)
    target = _target(rows, to)
    last = rows[-1]
    if last["snapshot"] == target["snapshot"]:
        raise SpecError("--to", f"release {release}'s view already reads v{to}'s snapshot {target['snapshot']}", to)
    views = _views(target, schema)
    out = _output(target, schema)
    for _, snap, _ in views:
        if engine.relation(None, schema, snap) is None:
            raise SpecError("--to", f"v{to}'s snapshot {schema}.{snap} is gone (dropped outside the anonymizer); "
                                    "choose another version", to)
    version = max(r["version"] for r in rows) + 1
    with engine.transaction():
        for view, snap, main in views:   # owned (or new), checked in the transaction that moves them
            check_view(engine, out, release, view)
            _repoint(engine, out, view, snap, (target.get("figures") or {}).get("view_sql") if main else None)
        upgrade_audit(engine, audit)
        engine.run("publish/audit_rollback.sql.j2", {"release": release, "version": version, "to": to,
                                                     **versions(engine)}, audit=audit)
    return {"release": release, "version": version, "rolled_back_to": to, "snapshot": target["snapshot"],
            "views": [f"{out.schema}.{view}" for view, _, _ in views]}


def _target(rows: list[dict], to: int) -> dict:
    found = [r for r in rows if r["version"] == to]
    if not found:
        raise SpecError("--to", f"is not a version of release {rows[0]['release']} (versions: "
                                f"{', '.join(str(r['version']) for r in rows)})", to)
    target = found[0]
    if (target.get("event") or "publish") != "publish":
        raise SpecError("--to", f"v{to} is a rollback to v{target.get('rolled_back_to')}; roll back to that "
                                "version instead", to)
    if target.get("pruned_at") is not None:
        raise SpecError("--to", f"v{to}'s snapshot was pruned on {str(target['pruned_at'])[:19]}; it cannot be "
                                "restored", to)
    return target


def _repoint(engine: Engine, out: Output, view: str, snap: str, view_sql: str | None) -> None:
    """Point ``out.schema.view`` at snapshot ``snap``, or (a join view) run its recorded query."""
    if view_sql:
        import sqlglot                       # only here: importing it costs a fifth of a second per run

        query = sqlglot.parse_one(view_sql, read="duckdb").expression.sql(dialect="duckdb", identify=True)
        engine.run("publish/repoint.sql.j2", view=table(out.schema, view), query=query)
    else:
        engine.run("publish/promote.sql.j2", schema=ident(out.schema), view=table(out.schema, view),
                   snapshot=table(out.snapshot_schema, snap), join=None)


# -- prune -----------------------------------------------------------------------------------------
def prune(engine: Engine, schema: str, release: str, keep: int, dry_run: bool = False) -> dict:
    """Drop the snapshot tables of all but the newest ``keep`` publications of ``release``,
    never the one its views read (the latest row's), and mark their audit rows pruned (the
    rows stay); in a dry run only say what would go.

    Returns:
        ``{"release", "kept" (versions), "dropped": [{"version", "tables"}], "rows" (their
        rows, as the catalog estimates them), "bytes_freed" (blocks the database freed, or
        ``None`` in a dry run), "dry_run"}``.
    """
    audit = audit_of(engine, schema)
    rows = release_rows(engine, audit, release)
    published = [r for r in rows if (r.get("event") or "publish") == "publish" and r.get("pruned_at") is None]
    kept = {r["snapshot"] for r in published[len(published) - keep:]} | {rows[-1]["snapshot"]}
    dropped = [{"version": r["version"], "snapshot": r["snapshot"],
                "tables": [f"{schema}.{snap}" for _, snap, _ in _views(r, schema)
                           if engine.relation(None, schema, snap) is not None]}
               for r in published if r["snapshot"] not in kept]
    names = [t[len(schema) + 1:] for d in dropped for t in d["tables"]]
    (rows_freed,) = engine.one("publish/table_rows.sql.j2", {"schema": schema, "names": names})
    freed = None
    if not dry_run and dropped:
        (before,) = engine.one("publish/database_size.sql.j2")
        with engine.transaction():
            upgrade_audit(engine, audit)
            for name in names:
                engine.run("publish/drop_snapshot.sql.j2", snapshot=table(schema, name))
            engine.run("publish/audit_pruned.sql.j2", {"release": release,
                                                       "snapshots": [d["snapshot"] for d in dropped]}, audit=audit)
        engine.run("publish/checkpoint.sql.j2")   # the dropped tables' blocks are free once written out
        (after,) = engine.one("publish/database_size.sql.j2")
        freed = max(int(before) - int(after), 0)
    return {"release": release, "kept": [r["version"] for r in published if r["snapshot"] in kept],
            "dropped": [{"version": d["version"], "tables": d["tables"]} for d in dropped],
            "rows": int(rows_freed), "bytes_freed": freed, "dry_run": dry_run}
