"""The rows a Spark CTAS wrote, counted by its write (anonymizer/engine/spark_written.py): which
statements are run as an observed write, and which make a count forgotten. No Spark needed."""

from __future__ import annotations

import pytest
from sqlglot import exp

from anonymizer.engine.spark_written import Written


def counted(*parts: str) -> Written:
    written = Written()
    written.wrote(exp.table_(parts[-1], db=parts[0] if len(parts) > 1 else None), 7)
    return written


def test_a_plain_ctas_is_a_write_with_its_format_and_partitions():
    target, query, using, by = Written().plain_ctas(
        "CREATE TABLE `w`.`t` USING parquet PARTITIONED BY (`a`, b) AS SELECT a, b FROM s WHERE c = :seed "
        "DISTRIBUTE BY a SORT BY a, d")
    assert [p.name for p in target.parts] == ["w", "t"]
    assert query == "SELECT a, b FROM s WHERE c = :seed DISTRIBUTE BY a SORT BY a, d"
    assert (using, by) == ("parquet", ["a", "b"])
    assert Written().plain_ctas("CREATE TABLE w.t AS SELECT 1 AS x")[2:] == (None, [])


@pytest.mark.parametrize("statement", [
    "CREATE TABLE IF NOT EXISTS w.t AS SELECT 1 AS x",
    "CREATE OR REPLACE TABLE w.t AS SELECT 1 AS x",
    "CREATE TABLE w.t TBLPROPERTIES ('a' = 'b') AS SELECT 1 AS x",
    "CREATE TABLE w.t (x INT)",
    "CREATE VIEW w.t AS SELECT 1 AS x",
    "INSERT INTO w.t SELECT 1",
    "SELECT count(*) FROM w.t",
])
def test_other_statements_stay_sql(statement):
    assert Written().plain_ctas(statement) is None


@pytest.mark.parametrize("statement", [
    "INSERT INTO `W`.`T` SELECT 1", "DROP TABLE IF EXISTS w.t", "DROP DATABASE w CASCADE",
    "ALTER TABLE w.t RENAME TO w.u", "DELETE FROM w.t WHERE x = 1", "CREATE TABLE w.t AS SELECT 2 AS x",
    "CREATE OR REPLACE TABLE w.t AS SELECT 2 AS x",
])
def test_a_statement_that_changes_the_table_forgets_its_count(statement):
    written = counted("w", "t")
    assert written.rows("W", "t") == 7
    written.plain_ctas(statement)
    assert written.rows("w", "t") is None


@pytest.mark.parametrize("statement", ["INSERT INTO w.u SELECT * FROM w.t", "DROP TABLE w.u",
                                       "DROP DATABASE v CASCADE", "SELECT * FROM w.t"])
def test_a_statement_on_another_table_keeps_the_count(statement):
    written = counted("w", "t")
    written.plain_ctas(statement)
    assert written.rows("w", "t") == 7


def test_what_a_write_observed_is_read_once():
    written = Written()
    written.observe(["COUNT(*) AS n"])
    assert written.observed() is None   # no write ran since
    written.wrote(exp.table_("t"), 1, (3,))
    assert written.observed() == (3,) and written.observed() is None


COPY = "SELECT `a`, `b` AS c FROM `w`.`t` DISTRIBUTE BY `a` SORT BY `a` NULLS LAST, `b`"


def test_a_sorted_copy_of_the_drivers_rows_sorts_in_one_task_its_text_kept():
    """A CTAS that copies the columns of a table copied from the driver, distributed and
    sorted, reads it into one partition and sorts it there: the text edited, not written again
    from sqlglot's tree (which turns ``DATE_TRUNC(u.unit, ..)``'s column into a literal)."""
    written = Written()
    written.copied(exp.table_("t", db="w"), 5)
    assert written.in_one_task(COPY) == "SELECT /*+ COALESCE(1) */ `a`, `b` AS c FROM `w`.`t` SORT BY `a` NULLS LAST, `b`"


@pytest.mark.parametrize("query", [
    "SELECT DATE_TRUNC(u.unit, u.d) AS d FROM `w`.`t` AS u DISTRIBUTE BY d SORT BY d",   # not a plain copy
    "SELECT explode(a) FROM `w`.`t` DISTRIBUTE BY x SORT BY x",                          # a generator
    "SELECT a FROM `w`.`t` WHERE a IN (SELECT y FROM w.big) DISTRIBUTE BY a SORT BY a",  # another table read
    "SELECT a FROM `w`.`t` JOIN w.u ON true DISTRIBUTE BY a SORT BY a",
    "WITH x AS (SELECT a FROM w.big) SELECT a FROM `w`.`t` DISTRIBUTE BY a SORT BY a",
    "SELECT a FROM `w`.`other` DISTRIBUTE BY a SORT BY a",                               # not the driver's copy
    "SELECT a FROM `w`.`t` SORT BY a",                                                   # not distributed
])
def test_any_other_query_is_left_as_it_is(query):
    written = Written()
    written.copied(exp.table_("t", db="w"), 5)
    assert written.in_one_task(query) == query


@pytest.mark.parametrize(("rows", "then"), [(3_000_000, None), (5, "DROP TABLE w.t"), (5, "INSERT INTO w.t SELECT 1, 2"),
                                            (5, "CREATE TABLE w.t AS SELECT 1 AS a, 2 AS b")])
def test_a_copy_above_the_bound_or_changed_since_is_distributed(rows, then):
    written = Written()
    written.copied(exp.table_("t", db="w"), rows)
    if then:
        written.plain_ctas(then)
    assert written.in_one_task(COPY) == COPY
