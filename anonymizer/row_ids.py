"""How a release numbers its source's rows (``__rid`` of ``prepare/base.sql.j2``): a table's
``rowid``, far cheaper than ``row_number() OVER ()``, which a view needs (DuckDB numbers the
rows of a table, not of a query); a DP release's covered view (:mod:`anonymizer.dp.covered`)
passes its table's ``rowid`` on in a column of its own (:data:`VIEW_ROWID`)."""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine

#: the column in which a DP release's covered view passes its source table's rowid on
VIEW_ROWID = "__anon_source_rowid"


def has_rowid(engine: Engine, source: str) -> bool:
    """Whether the source is a table with a ``rowid`` (views and table functions have none;
    a user column called ``rowid`` would shadow it; an engine without ``rowid``, Spark, has none)."""
    if not engine.capabilities.rowid:
        return False
    if "rowid" in (name.lower() for name in engine.columns(source)):
        return False
    try:
        engine.con.execute(f"SELECT rowid FROM {source} LIMIT 0")
    except Exception:  # noqa: BLE001 - a binder error means: no rowid
        return False
    return True


def row_id(engine: Engine, source: str) -> str | None:
    """The SQL (over the alias ``src``) of a unique id of ``source``'s rows: its ``rowid``, the
    covered view's :data:`VIEW_ROWID`, or ``None`` (the caller numbers the rows)."""
    if has_rowid(engine, source):
        return "src.rowid"
    if engine.capabilities.rowid and VIEW_ROWID in engine.columns(source):
        return f"src.{ident(VIEW_ROWID)}"
    return None
