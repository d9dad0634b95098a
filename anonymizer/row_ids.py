"""How a release numbers its source's rows (``__rid`` of ``prepare/base.sql.j2``): a table's
``rowid``, far cheaper than ``row_number() OVER ()``, which a view needs (DuckDB numbers the
rows of a table, not of a query); a DP release's covered view (:mod:`anonymizer.dp.covered`)
passes its table's ``rowid`` on in a column of its own (:data:`VIEW_ROWID`), which that view's
maker hands to :func:`~anonymizer.plan.prepare`: never guessed from a column's name, which a
source's own column may bear."""

from __future__ import annotations

from typing import Iterable

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
    """The SQL (over the alias ``src``) of a unique id of ``source``'s rows: its ``rowid``, or
    ``None`` (the caller numbers the rows)."""
    return "src.rowid" if has_rowid(engine, source) else None


def free_name(columns: Iterable[str], name: str) -> bool:
    """Whether a relation of ``columns`` can take a column called ``name`` (DuckDB's names
    ignore case)."""
    return name.lower() not in {c.lower() for c in columns}
