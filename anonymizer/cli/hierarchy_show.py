"""One column's hierarchy outside a release: build it, describe it level by level, export it.

This is what ``anonymizer hierarchy show`` prints (as text by
:func:`anonymizer.cli.hierarchy.format_shown`). The column comes from a release spec (its
source and its ``hierarchy``), or ad hoc from a CSV/Parquet file or a table with a builder
and its options. Nothing is written to the database but a work schema, dropped at the end.

Example:
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t AS SELECT range AS x FROM range(1, 101)")
    >>> shown = show_hierarchy(con, '"t"', "x", hierarchy_of("cgh", min_width=10))
    >>> [(lv.level, lv.nodes, lv.min_distortion) for lv in shown.levels]
    [(0, 100, 0.0), (1, 8, 0.5), (2, 4, 1.0), (3, 2, 2.0), (4, 1, 4.0)]
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import duckdb

from anonymizer.engine.session import Engine
from anonymizer.engine.database import open_database
from anonymizer.errors import SpecError
from anonymizer.plan import load_source, resolve_columns, source_shown
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import Column, Source
from anonymizer.measure import table_parts
from anonymizer.engine.names import ident, table
from anonymizer.hierarchy.build import build_hierarchy
from anonymizer.hierarchy.export import export_arx
from anonymizer.hierarchy.levels import Level, level_summary
from anonymizer.hierarchy.spec import PAPER_KINDS, Hierarchy, column_type, parse_hierarchy

OPTIONS = {"cgh": ("min_width", "range"), "dbgh": ("min_width", "range"), "cbgh": ("min_width", "range"),
           "iotf": ("nodes", "range"), "intervals": ("widths",), "masking": ("levels",), "dates": ("units",), "ordered": ("order", "sizes")}


@dataclass(frozen=True)
class Shown:
    """A built hierarchy, level by level."""

    column: str
    kind: str
    values: int
    height: int
    nested: bool
    levels: tuple[Level, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"column": self.column, "kind": self.kind, "values": self.values, "height": self.height,
                "nested": self.nested, "levels": [lv.to_dict() for lv in self.levels]}


def hierarchy_of(builder: str, **options) -> Hierarchy:
    """A builder and its command-line options as a validated :class:`Hierarchy`.

    Options: ``min_width`` and ``range`` (cgh, dbgh, cbgh), ``nodes`` and ``range`` (iotf), ``widths`` (intervals),
    ``levels`` (masking), ``units`` (dates), ``order`` and ``sizes`` (ordered); lists may be
    given as comma-separated text (``range="1,100"``); unset options are None.

    Example:
        >>> hierarchy_of("cbgh", min_width=10, range="1,100").range
        (1.0, 100.0)
    """
    given = {k: _listed(k, v) for k, v in options.items() if v is not None}
    for name in given:
        if name not in OPTIONS[builder]:
            raise SpecError(_option(name), f"does not apply to {builder} "
                                           f"(its options: {', '.join(map(_option, OPTIONS[builder]))})")
    if builder in PAPER_KINDS + ("iotf",):
        value = {builder: {k: given[k] for k in OPTIONS[builder] if k in given}}
    elif builder == "masking":
        value = {"masking": given.get("levels", True)}
    elif builder == "ordered":
        value = {"ordered": given.get("order"), "sizes": given.get("sizes")}
    else:
        value = {builder: given.get(OPTIONS[builder][0])}
    return parse_hierarchy(value, "hierarchy", Path("."))


def _listed(name: str, value):
    """A comma-separated option as a list (of numbers, but for units and order)."""
    if not isinstance(value, str):
        return value
    items = [item.strip() for item in value.split(",") if item.strip()]
    if name in ("units", "order"):
        return items
    try:
        return [int(item) if item.lstrip("-").isdigit() else float(item) for item in items]
    except ValueError:
        raise SpecError(_option(name), "must be numbers separated by commas", value) from None


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def show_hierarchy(con: duckdb.DuckDBPyConnection, relation: str, column: str, hierarchy: Hierarchy | None,
                   examples: int = 3, export: str | Path | None = None) -> Shown:
    """Build ``hierarchy`` on ``column`` of ``relation`` (quoted) and describe it; optionally
    write it to ``export`` as an ARX CSV file."""
    engine = Engine(con)
    types = engine.columns(relation)
    real = {n.lower(): n for n in types}.get(column.lower())
    if real is None:
        raise SpecError("--column", f"is not a column of {relation} (columns: {', '.join(types)})", column)
    ctype = column_type(hierarchy, f"columns.{real}.hierarchy", types[real], None, quasi=True)
    return _show(engine, relation, Column(real, "quasi", ctype, hierarchy), examples, export)


def show_spec_column(spec_path: str | Path, column: str, db: str | None = None, examples: int = 3,
                     export: str | Path | None = None) -> Shown:
    """Build the hierarchy a release spec gives ``column``, on the spec's source: a file
    source is read into an in-memory database, a table source is read from ``db``."""
    spec = load_spec(spec_path)
    with _connect(None if spec.source.location else db) as con:
        engine = Engine(con)
        relation = load_source(engine, spec)
        spec = resolve_columns(spec, engine.columns(relation), source_shown(spec))
        col = next((c for c in spec.quasi if c.name.lower() == column.lower()), None)
        if col is None:
            raise SpecError("--column", f"is not a quasi-identifier of {spec_path} "
                                        f"(quasi-identifiers: {', '.join(c.name for c in spec.quasi)})", column)
        return _show(engine, relation, col, examples, export)


def show_file_column(path: str | Path, column: str, hierarchy: Hierarchy, examples: int = 3,
                     export: str | Path | None = None) -> Shown:
    """Build ``hierarchy`` on ``column`` of a CSV or Parquet file (read in memory)."""
    name = Path(path).name.split(".")[0] or "data"
    with _connect(None) as con:
        Engine(con).load_file(Source(table=name, path=Path(path)), ident(name))
        return show_hierarchy(con, ident(name), column, hierarchy, examples, export)


def show_table_column(db: str, name: str, column: str, hierarchy: Hierarchy, examples: int = 3,
                      export: str | Path | None = None) -> Shown:
    """Build ``hierarchy`` on ``column`` of the table ``name`` (``schema.table`` allowed) of ``db``."""
    with _connect(db) as con:
        return show_hierarchy(con, table(*table_parts(name)), column, hierarchy, examples, export)


@contextmanager
def _connect(db: str | None) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory database (``db`` None), or the existing database file ``db`` (opened by
    :func:`~anonymizer.engine.database.open_database`: one clear message for every opening problem)."""
    with open_database(db, must_exist=True, label="--db") as con:
        yield con


def _show(engine: Engine, relation: str, col: Column, examples: int, export: str | Path | None) -> Shown:
    with engine.workspace():
        coded = build_hierarchy(engine, relation, col, "")
        levels = level_summary(engine, coded.hier, examples)
        if export is not None:
            export_arx(engine, coded.hier, coded.height, export)
    kind = col.hierarchy.kind if col.hierarchy else "none"
    return Shown(col.name, kind, coded.m, coded.height, coded.nested, tuple(levels))

