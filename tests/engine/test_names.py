"""The one quoting point (anonymizer.engine.names) writes what sqlglot writes for DuckDB, and
DuckDB reads every such name back as itself."""

from __future__ import annotations

import duckdb
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from anonymizer.engine.names import ident, table

names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(names)
def test_ident_is_sqlglots_quoting(name):
    assert ident(name) == exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


@settings(max_examples=100, deadline=None)
@given(names, names)
def test_duckdb_reads_the_names_back(schema, column):
    assume(schema.casefold() not in {"main", "temp", "pg_catalog", "information_schema"})
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {ident(schema)}")
    con.execute(f"CREATE TABLE {table(schema, 't')} ({ident(column)} INTEGER)")
    assert con.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = $s",
                       {"s": schema}).fetchone()[0] == column
