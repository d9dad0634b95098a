"""The one quoting point (anonymizer.engine.names) writes what sqlglot writes for DuckDB, and
DuckDB reads every such name back as itself."""

from __future__ import annotations

import duckdb
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sqlglot import exp

import pytest

from anonymizer.engine.names import ident, relation, table

names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(names)
def test_ident_is_sqlglots_quoting(name):
    assert ident(name) == exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(names, names)
def test_duckdb_reads_the_names_back(schema, column):
    assume(schema.casefold() not in {"main", "temp", "pg_catalog", "information_schema"})
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {ident(schema)}")
    con.execute(f"CREATE TABLE {table(schema, 't')} ({ident(column)} INTEGER)")
    assert con.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = $s",
                       {"s": schema}).fetchone()[0] == column


@pytest.mark.parametrize(("given", "written"), [
    ('"w"."t"', '"w"."t"'), ("cte0", "cte0"), ('temp."a""b"', 'temp."a""b"'),
    ("SELECT 1 AS a", "(SELECT 1 AS a\n)"), ("  with x AS (SELECT 1) FROM x", "(with x AS (SELECT 1) FROM x\n)"),
    ("-- a query's header\nSELECT 1", "(-- a query's header\nSELECT 1\n)"),
    ("SELECT 1 -- a closing comment", "(SELECT 1 -- a closing comment\n)"),
    ("(SELECT ')' AS a)", "(SELECT ')' AS a)"),                                  # wrapped already: once
    ("(-- it's\nSELECT 1 /* ) */)", "(-- it's\nSELECT 1 /* ) */)"),
    ("(SELECT 1) UNION (SELECT 2)", "((SELECT 1) UNION (SELECT 2)\n)"),         # not wrapped whole
    ("(SELECT 1) -- c", "((SELECT 1) -- c\n)"),
])
def test_relation_writes_a_name_as_is_and_a_query_as_a_subquery(given, written):
    assert relation(given) == written


@pytest.mark.parametrize("given", ["read_csv('x')", '"t" AS c', "", None, "SELECT 1;"])
def test_relation_refuses_what_is_neither(given):
    with pytest.raises(ValueError, match="quoted name or one query"):
        relation(given)


@pytest.mark.parametrize("given", ['"t"', '"s"."my t"', "SELECT 1 AS a", "(SELECT 1 AS a) UNION ALL (SELECT 2)",
                                   "FROM range(3) SELECT range AS a", "SELECT 1 AS a -- one", "(SELECT 1 AS a) -- c"])
def test_every_form_is_read_by_this_duckdb(given):
    """What relation() writes after FROM parses and runs in the installed DuckDB (2.0.1 rejects
    a parenthesized name, which relation() never writes)."""
    con = duckdb.connect()
    con.execute('CREATE SCHEMA s; CREATE TABLE "t" AS SELECT 1 AS a; CREATE TABLE s."my t" AS SELECT 1 AS a')
    assert con.execute(f"SELECT count(*) FROM {relation(given)} AS c").fetchone()[0] >= 1
