"""Publish a verified candidate: versioned snapshot, atomic view promotion, audit row.

A release ``r`` publishing view ``published.v`` writes snapshot ``_anon_releases."r__v<N>"``
and points ``published.v`` at it, and appends an audit row to ``_anon_releases._audit``,
all in one transaction (a release with more than one table, such as anatomy's sensitive
table, adds ``"r__v<N>__<part>"`` and ``published."v_<part>"`` for each in the same one):
if any step fails nothing changes, and what was published before stays as it was. Before
promotion each snapshot is compared with its candidate by row count and two sums of row
hashes (a multiset fingerprint, ``multiset.sql.j2``; on Spark the candidate's taken by the
snapshot's write as it reads it), so the views show exactly the rows that passed
verification. Where the engine publishes in place (:mod:`.in_place`: Spark, unpartitioned) a
generalized release's per-row candidate was written beside the snapshots, in published form
and order, and verified there: promotion renames that very table, with no copy to compare. A view reads its snapshot as it is, except a generalized release's main
view, which joins its per-row snapshot with its class table (:class:`Join`); the definition
DuckDB stored for such a view is recorded in the audit row (``view_sql`` in its figures).

A release promotes only a view it owns, or a new one (:func:`check_owner`): the owner of a
view is the release whose latest audit row names it (as its view, or as a further view
listed in the row's figures under ``views``), and a release owns it only while the view
still reads the snapshot of that row, with the definition promotion wrote. A view of
another release, a view or table the anonymizer did not create, or an own view changed by
hand is refused before any work and again inside the publishing transaction, and nothing
published changes.

With ``output.database`` the release publishes into that attached database
(``spec.output.catalog``, its alias): the snapshots, the audit table and the views all live
there, every name here is qualified by the catalog (:func:`~anonymizer.engine.names.in_catalog`),
and the transaction writes that database only (DuckDB lets one transaction write one
attached database; reading the run's work database in it is allowed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from anonymizer.engine.session import Engine
from anonymizer.errors import AnonymizerError, DataError, SpecError
from anonymizer.engine.names import ident, in_catalog, table
from anonymizer.release.in_place import placed, settle
from anonymizer.target import Output, Target

AUDIT = "_audit"
#: the audit's columns added after its first version (:func:`upgrade_audit` adds them to an
#: older table): the spec as written (seed left out), when, which library and engine, the
#: event (``publish`` or ``rollback``), the version a rollback returned to, when a prune
#: dropped the row's snapshot.
AUDIT_COLUMNS = (("spec_text", "VARCHAR"), ("published_at", "TIMESTAMP"), ("library_version", "VARCHAR"),
                 ("engine_version", "VARCHAR"), ("event", "VARCHAR"), ("rolled_back_to", "INTEGER"),
                 ("pruned_at", "TIMESTAMP"))



#: the class id column of a release whose main view joins its rows with its class table
#: (:class:`Join`'s key in the generalized family); an export writes such a view class by class
EQ_CLASS = "eq_class"


@dataclass(frozen=True)
class Join:
    """A main view that joins the main snapshot (one row per released row) with the snapshot
    of the part ``part`` (one row per class) on the column ``key``; ``columns`` are the
    view's, in order, each ``(side, column name)``: side ``part`` for the part's columns, any
    other for the main snapshot's."""

    part: str
    key: str
    columns: tuple[tuple[str, str], ...]


class ViewNotOwned(AnonymizerError):
    """A release's view name is held by something the release does not own: another
    release's view, a view or table the anonymizer did not create, or the release's own view
    changed outside the anonymizer. Nothing is published.

    Args:
        view: ``schema.view`` as text.
        owner: the release owning the view, or ``None`` if no release does.
    """

    def __init__(self, view: str, message: str, owner: str | None = None):
        self.view, self.owner = view, owner
        super().__init__(message)


@dataclass(frozen=True)
class Published:
    """Where a release went."""

    version: int
    view: str           # schema.view as text (unquoted, for people)
    snapshot: str       # schema.table as text
    unchanged: bool = False


def audit_table(target: Target) -> str:
    """Quoted name of the audit table (in the output database)."""
    return in_catalog(target.output.catalog, target.output.snapshot_schema, AUDIT)


#: the columns every audit table this package ever wrote has: a relation of that name without
#: them is someone else's
AUDIT_CORE = ("release", "version", "view_name", "snapshot", "spec_hash", "source_fingerprint")


def has_audit(engine: Engine, target: Target) -> bool:
    """Whether the output holds the release's audit table (:func:`owned`)."""
    return owned(engine, target.output.catalog, target.output.snapshot_schema, AUDIT, AUDIT_CORE)


def owned(engine: Engine, catalog: str | None, schema: str, name: str, core: tuple[str, ...]) -> bool:
    """Whether the snapshot schema ``schema`` holds this package's table ``name`` (one with the columns
    ``core``); a table or view of that name that is not one (a user's own ``main._audit``
    beside ``snapshot_schema: main``) is refused, naming it, before anything reads or writes it."""
    found = engine.relation(catalog, schema, name)
    if found is None:
        return False
    have = {c.lower() for c in engine.columns(in_catalog(catalog, schema, name))}
    if found[0] != "table" or not have.issuperset(core):
        raise DataError(f"{schema}.{name}",
                        f"exists and is not this package's (a {found[0]} with columns {', '.join(sorted(have))}): "
                        "set output.snapshot_schema to a schema of the releases' own (default: _anon_releases), or "
                        f"move that {found[0]}")
    return True


def ensure_audit(engine: Engine, target: Target) -> str:
    has_audit(engine, target)
    audit = audit_table(target)
    engine.run("publish/audit_table.sql.j2", schema=in_catalog(target.output.catalog, target.output.snapshot_schema),
               audit=audit)
    upgrade_audit(engine, audit)
    return audit


def upgrade_audit(engine: Engine, audit: str) -> None:
    """Add the columns of :data:`AUDIT_COLUMNS` an audit table lacks (one created by an
    older version, or just now): its rows stay, read as publications."""
    have = {c.lower() for c in engine.columns(audit)}
    missing = [(ident(name), kind) for name, kind in AUDIT_COLUMNS if name not in have]
    if missing:
        engine.run("publish/audit_upgrade.sql.j2", audit=audit, columns=missing)


def audit_rows(engine: Engine, audit: str, template: str, release: str) -> list[dict]:
    """Audit rows of ``release`` (``template``: ``publish/latest.sql.j2`` or
    ``publish/audit_rows.sql.j2``), each a dict of every column the table has: an older
    table lacks the newer columns, so read them with ``.get()``."""
    names = list(engine.columns(audit))
    return [dict(zip(names, row)) for row in engine.rows(template, {"release": release}, audit=audit)]


def latest(engine: Engine, target: Target) -> dict | None:
    """The latest audit row of this release (a publication or a rollback), as a dict, or
    ``None`` (also when there is no audit table yet: reading creates nothing, so a release
    that fails leaves no trace)."""
    if not has_audit(engine, target):
        return None
    rows = audit_rows(engine, audit_table(target), "publish/latest.sql.j2", target.release)
    return rows[0] if rows else None


def snapshot_name(out: Output, row: dict) -> str:
    """The snapshot table an audit row names (its ``snapshot``, ``<snapshot schema>.<table>``),
    without the schema: a rollback's row names an earlier version's snapshot, so the name is
    read, never rebuilt from the row's version."""
    return row["snapshot"][len(out.snapshot_schema) + 1:]


def unchanged(engine: Engine, target: Target, spec_hash: str, source_print: str) -> Published | None:
    """The current release if the spec and source are unchanged and its view still stands."""
    last = latest(engine, target)
    if not last or last["spec_hash"] != spec_hash or last["source_fingerprint"] != source_print:
        return None
    if last.get("event") == "rollback":   # the view reads an earlier version: publish the spec anew
        return None
    snap = snapshot_name(target.output, last)
    views = [(target.output.view, snap)] + [(f"{target.output.view}_{p}", f"{snap}__{p}") for p in target.parts]
    for view, snapshot in views:   # every view still reads the release's latest snapshot
        found = _relation(engine, target, target.output.schema, view)
        if found is None or found[0] != "view" or not reads(found[1], _definition(target.output, snapshot,
                                                                                  last["figures"],
                                                                                  view == target.output.view)):
            return None
        if _relation(engine, target, target.output.snapshot_schema, snapshot) is None:
            return None
    return Published(last["version"], target.view, last["snapshot"], True)


def check_owner(engine: Engine, target: Target, parts: tuple[str, ...] | None = None) -> None:
    """Refuse unless every view the release promotes is new or its own (module docstring).

    Args:
        parts: the release's further tables (default: anatomy's for an anatomy release).
    Raises:
        ViewNotOwned: naming the view and who holds it.
    """
    parts = target.parts if parts is None else parts
    audited = has_audit(engine, target)
    for name in [target.output.view] + [f"{target.output.view}_{p}" for p in parts]:
        check_view(engine, target.output, target.release, name, audited)


def check_view(engine: Engine, out: Output, release: str, name: str, has_audit: bool = True) -> str | None:
    """Refuse unless the view ``out.schema.name`` is new (``None``) or ``release``'s, reading
    the snapshot its owner's audit row names; returns that snapshot table (no schema)."""
    shown = f"{out.schema}.{name}"
    found = engine.relation(out.catalog, out.schema, name)
    if found is None:
        return None
    kind, sql = found
    owner = None
    if kind == "view" and has_audit:
        owner = engine.one("publish/view_owner.sql.j2", {"view": shown},
                           audit=in_catalog(out.catalog, out.snapshot_schema, AUDIT))
    if owner is None:
        raise ViewNotOwned(shown, f"{shown} exists and was not created by a release audited in snapshot schema "
                                  f"{out.snapshot_schema} (a {kind} of the database: another snapshot schema's, or "
                                  "none's); drop it, choose another output.view, or keep its snapshot_schema")
    holder, version, main, figures, snap = owner
    if holder != release:
        raise ViewNotOwned(shown, f"view {shown} belongs to release {holder}; choose another output.view", holder)
    part = "" if main.lower() == shown.lower() else f"__{shown[len(main) + 1:]}"
    snapshot = snapshot_name(out, {"snapshot": snap}) + part
    if not reads(sql, _definition(out, snapshot, figures, main.lower() == shown.lower())):
        raise ViewNotOwned(shown, f"view {shown} of release {release} was changed outside the anonymizer "
                                  f"(it no longer reads {out.snapshot_schema}.{snapshot}, the "
                                  f"release's v{version}); drop the view to publish the release again, or "
                                  f"choose another output.view", release)
    return snapshot


def _definition(out: Output, snapshot: str, figures: str | dict | None, main: bool) -> str:
    """The definition promotion wrote for a view of the release whose audit row has
    ``figures``: the one recorded there for a main view that joins (``view_sql``), else
    ``SELECT * FROM <snapshot schema>.<snapshot>``."""
    recorded = (json.loads(figures) if isinstance(figures, str) else figures or {}).get("view_sql")
    if main and recorded:
        return recorded
    return f"SELECT * FROM {table(out.snapshot_schema, snapshot)}"


def reads(view_sql: str | None, definition: str) -> bool:
    """Whether a view's stored definition (``duckdb_views().sql``) is exactly the one
    promotion wrote, ``definition`` (a query, or the ``CREATE VIEW`` statement DuckDB
    stored for it). Both are parsed with sqlglot and their queries compared with every
    identifier quoted, so DuckDB's choice of quoting does not matter; names compare
    case-insensitively, as DuckDB resolves them. In an attached output database DuckDB
    stores the definition without the view's own catalog (and binds it in that catalog,
    under whatever alias the file is opened), so the same text is expected there; a view
    reading another database's table keeps that catalog and is not read as the release's."""
    stored, expected = _query(view_sql), _query(definition)
    return stored is not None and expected is not None and stored == expected


def _query(sql: str | None) -> str | None:
    """The query of a view definition or of a query, normalized (see :func:`reads`), or
    ``None`` for anything else (a view renaming its columns, text sqlglot cannot parse)."""
    import sqlglot                           # only here: importing it costs a fifth of a second per run
    from sqlglot import exp

    try:
        parsed = sqlglot.parse_one(sql or "", read="duckdb")
    except sqlglot.errors.SqlglotError:
        return None
    if isinstance(parsed, exp.Create):
        if not isinstance(parsed.this, exp.Table) or parsed.expression is None:
            return None
        parsed = parsed.expression
    return parsed.sql(dialect="duckdb", identify=True).casefold() if isinstance(parsed, exp.Query) else None


def _relation(engine: Engine, target: Target, schema: str, name: str) -> tuple[str, str | None] | None:
    """``("view", its stored SQL)`` or ``("table", None)`` for ``schema.name`` of the output
    database (the spec's attached ``output.database``, else the connection's own), or ``None``."""
    return engine.relation(target.output.catalog, schema, name)


def part_view(target: Target, part: str) -> str:
    """``schema.view_<part>``, the view of an extra table of a release (for people)."""
    return f"{target.output.schema}.{target.output.view}_{part}"


def publish(engine: Engine, target: Target, candidate: str, columns: list[str], record: dict,
            parts: tuple[tuple[str, str, list[str]], ...] = (), order: tuple[str, ...] = (),
            join: Join | None = None, remember: Callable[[int], None] | None = None) -> Published:
    """Snapshot ``candidate``, verify the copy, promote the view and audit, in one transaction.

    Args:
        candidate: quoted work table holding the verified candidate.
        columns: the published column names.
        record: audit values (spec_hash, fingerprint, algorithm, parameters, figures,
            rows_in, rows_out, suppressed, timings, spec_text); the row adds the publish time
            and the library's and engine's versions.
        parts: further tables of the same release, each ``(part, candidate, columns)``,
            published as view ``<view>_<part>`` from snapshot ``<release>__v<N>__<part>``.
        order: candidate columns the snapshot's rows are written in (default: the first
            published column). A reader sees rows class by class and, inside a class, in an
            order that reveals nothing: the families pass the class and a random draw.
        join: the main view joins the main snapshot with a part's (a generalized release's
            rows and class table); ``None``: it reads the main snapshot as it is.
        remember: called with the new version inside the transaction (the cross-version
            gate's memory, :func:`anonymizer.versions.combination.remember`).
    """
    audit = ensure_audit(engine, target)
    last = latest(engine, target)
    version = (last["version"] if last else 0) + 1
    snap_name = f"{target.release}__v{version}"
    tables: list[tuple[str, str, str, list[str], tuple[str, ...]]] = [
        (f"{snap_name}__{part}", f"{target.output.view}_{part}", cand, cols, (cols[0],)) for part, cand, cols in parts]
    tables.insert(0, (snap_name, target.output.view, candidate, columns, order or (columns[0],)))
    out = target.output
    published = {c for *_, cols, _ in tables for c in cols}
    for name in out.partition_by:   # before any snapshot is written
        if name not in published:
            raise SpecError("output.partition_by", f"{name!r} is not a published column of release {target.release} "
                                                   f"(published: {', '.join(sorted(published))})", name)
    for *_, cols, _ in tables:
        if out.partition_by and set(cols) <= set(out.partition_by):
            raise SpecError("output.partition_by", f"names every column of a table of release {target.release} "
                                                   f"({', '.join(cols)}); a partitioned table keeps one at least",
                            list(out.partition_by))
    with engine.transaction():
        check_owner(engine, target, tuple(part for part, _, _ in parts))   # again, in the transaction
        for snap, _, cand, cols, by in tables:
            if cand == placed(engine, target):   # verified where it stands (form.build_candidate)
                settle(engine, target, snap, cand)
            else:
                _snapshot(engine, target, snap, cand, cols, by)
        for snap, view_name, *_ in tables:
            joined = None
            if join is not None and view_name == out.view:
                joined = {"snapshot": in_catalog(out.catalog, out.snapshot_schema, f"{snap}__{join.part}"),
                          "key": ident(join.key),
                          "columns": [("c" if side == join.part else "r", ident(c)) for side, c in join.columns]}
            _promote(engine, target, view_name, snap, joined)
        figures = json.loads(json.dumps(record["figures"], default=str))
        if parts:   # the audit row names every view it promotes: the owner of each (check_owner)
            figures["views"] = [part_view(target, part) for part, _, _ in parts]
        if join is not None:   # what the view runs, as DuckDB stored it: the owner's check reads it
            promoted = _relation(engine, target, out.schema, out.view)
            assert promoted is not None   # _promote made the view just above, in this transaction
            figures["view_sql"] = promoted[1]
        params = {
            "release": target.release, "version": version, "view_name": target.view,
            "snapshot": f"{target.output.snapshot_schema}.{snap_name}",
            **{k: record[k] for k in ("spec_hash", "fingerprint", "algorithm", "rows_in", "rows_out", "suppressed")},
            **{k: json.dumps(record[k], default=str) for k in ("parameters", "timings")},
            "figures": json.dumps(figures), "spec_text": record["spec_text"], **versions(engine),
        }
        engine.run("publish/audit_insert.sql.j2", params, audit=audit, day=target.budget is not None)
        if remember is not None:
            remember(version)
    return Published(version, params["view_name"], params["snapshot"])


def versions(engine: Engine) -> dict[str, str]:
    """The library's and the engine's versions, for an audit row (``duckdb 1.1.3``)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        library = version("anonymizer")
    except PackageNotFoundError:   # run from a source tree that was never installed
        library = "unknown"
    return {"library_version": library,
            "engine_version": f"{engine.name} {engine.version().split()[0].removeprefix('v')}"}


def _promote(engine: Engine, target: Target, view_name: str, snap: str, joined: dict | None) -> None:
    """Point the view ``view_name`` at snapshot ``snap``; where the database cannot roll back,
    register what points it back (or drops it, if it is new)."""
    out = target.output
    view = in_catalog(out.catalog, out.schema, view_name)
    before = _relation(engine, target, out.schema, view_name)
    engine.run("publish/promote.sql.j2", schema=in_catalog(out.catalog, out.schema), view=view,
               snapshot=in_catalog(out.catalog, out.snapshot_schema, snap), join=joined)
    if before is None:
        engine.undo(lambda: engine.execute(f"DROP VIEW IF EXISTS {view}", template="<undo promote>"))
    else:
        engine.undo(lambda: engine.execute(f"CREATE OR REPLACE VIEW {view} AS {before[1]}", template="<undo promote>"))


def _snapshot(engine: Engine, target: Target, snap_name: str, candidate: str, columns: list[str],
              order: tuple[str, ...]) -> None:
    """Snapshot one candidate table and compare the copy with it."""
    out = target.output
    snapshot = in_catalog(out.catalog, out.snapshot_schema, snap_name)
    cols = [ident(c) for c in columns]
    written = engine.write_counted("publish/snapshot.sql.j2", "publish/multiset.sql.j2", cols, snapshot=snapshot,
                                   candidate=candidate, columns=cols, order=[ident(c) for c in order],
                                   using=out.format, partitioned_by=[ident(c) for c in out.partition_by if c in columns])
    engine.undo(lambda: engine.execute(f"DROP TABLE IF EXISTS {snapshot}", template="<undo snapshot>"))
    before = written or engine.one("publish/multiset.sql.j2", relation=candidate, columns=cols)
    after = engine.one("publish/multiset.sql.j2", relation=snapshot, columns=cols)
    if tuple(map(_number, before)) != tuple(map(_number, after)):
        missing = max(int(before[0]) - int(after[0]), 0)
        raise AnonymizerError(f"snapshot {snap_name} differs from the verified candidate "
                              f"({missing} rows missing; its row count or content fingerprint differs); "
                              "nothing was published")


def _number(value) -> int | None:
    """A figure of ``publish/multiset.sql.j2`` as a Python int (a HUGEINT sum may come back as a
    Decimal; the sums of an empty table are NULL)."""
    return None if value is None else int(value)
