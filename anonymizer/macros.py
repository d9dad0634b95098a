"""The SQL macro library (``sql/anonymizer_macros.sql``) and its installation."""

from __future__ import annotations

from importlib import resources

import duckdb

FILE = "anonymizer_macros.sql"


def macros_sql() -> str:
    """The library's text, as shipped in the package."""
    return resources.files("anonymizer").joinpath("sql", FILE).read_text(encoding="utf-8")


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create (or replace) every macro of the library in ``con``'s database."""
    con.execute(macros_sql())
