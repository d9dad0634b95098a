"""The SQL macro library for analysts: ``sql/anonymizer_macros.sql``.

The library is plain DuckDB SQL (``CREATE OR REPLACE MACRO`` statements), so an analyst can
load it without Python (``.read`` in the DuckDB CLI); :func:`install` does the same from
Python and ``anonymizer macros install --db PATH`` from the shell. Its header lists every
macro; ``tests/test_macros.py`` checks each against the engine's own figures.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from anonymizer.resources import SQL, resource_dir

FILE = "anonymizer_macros.sql"
PREFIX = "anon_"


def macros_path() -> Path:
    """Where the library file is (``sql/`` of the repository, or of the installed package)."""
    return resource_dir(SQL) / FILE


def macros_sql() -> str:
    """The library's text, as shipped."""
    return macros_path().read_text(encoding="utf-8")


def install(con: duckdb.DuckDBPyConnection, temporary: bool = False) -> list[tuple[str, str, list[str]]]:
    """Create (or replace) every macro of the library in ``con``'s current schema, or with
    ``temporary`` as TEMP macros: for this connection only, the database file unchanged
    (this works on a read-only connection too; ``anonymizer sql`` loads them so).

    Returns:
        the macros now installed, as :func:`installed` lists them.
    """
    text = macros_sql()
    if temporary:
        text = re.sub(r"^CREATE OR REPLACE MACRO ", "CREATE OR REPLACE TEMP MACRO ", text, flags=re.MULTILINE)
    con.execute(text)
    return installed(con, temporary)


def installed(con: duckdb.DuckDBPyConnection, temporary: bool = False) -> list[tuple[str, str, list[str]]]:
    """The library's macros present in ``con``'s database (with ``temporary``: its TEMP
    macros): ``(name, kind, parameters)`` with kind ``table`` or ``scalar``, by name."""
    rows = con.execute(
        "SELECT function_name, function_type, parameters FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND starts_with(function_name, $p) "
        "AND database_name = CASE WHEN $temp THEN 'temp' ELSE current_database() END ORDER BY function_name",
        {"p": PREFIX, "temp": temporary}).fetchall()
    return [(name, "table" if kind == "table_macro" else "scalar", list(params)) for name, kind, params in rows]
