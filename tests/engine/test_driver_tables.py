"""Which side of a Spark run holds the current rows of each work table (issue 58,
``anonymizer/engine/spark_driver.py: Tables``): Spark's statements and the driver's DuckDB
read each other's work tables, a table is copied over only when the other side reads it and
its rows there are not current, and a table one side drops is gone on both. No Spark needed."""

from __future__ import annotations

from anonymizer.engine.names import table
from anonymizer.engine.spark_driver import DRIVER, SPARK, Tables

WORK = "_anon_work_0123456789"


def t(name: str) -> str:
    return table(WORK, name)


def test_a_statement_reads_and_writes_the_work_tables_it_names():
    tables = Tables(WORK)
    text = (f"-- a comment naming {t('not_read')} is still a mention\nCREATE OR REPLACE TABLE {t('out')} AS "
            f"SELECT * FROM {t('cells')} JOIN {t('dom0')} USING (code) JOIN other.{t('x')}")
    assert tables.named(text)[:3] == ["not_read", "out", "cells"]
    assert tables.written(text) == {"out": "CREATE"}
    assert tables.written(f"INSERT INTO {t('a')} SELECT 1; DROP TABLE IF EXISTS {t('b')}; "
                          f"UPDATE {t('c')} SET x = 1; DELETE FROM {t('d')}") == \
        {"a": "INSERT", "b": "DROP", "c": "UPDATE", "d": "DELETE"}
    odd = table(WORK, 'odd"name')
    assert tables.named(f"SELECT * FROM {odd}") == ['odd"name']


def test_a_table_is_copied_only_to_the_side_that_reads_it_while_stale():
    tables = Tables(WORK)
    assert tables.stale_on(DRIVER, f"SELECT * FROM {t('base')}") == []   # unknown: Spark's (the driver asks Spark)
    assert tables.wrote(DRIVER, f"CREATE TABLE {t('dom0')} AS SELECT 1") == []
    assert tables.stale_on(SPARK, f"SELECT * FROM {t('dom0')}") == ["dom0"]
    assert tables.stale_on(SPARK, f"CREATE TABLE {t('dom0')} AS SELECT 2") == []   # a table created is not read
    tables.copied("dom0", SPARK)
    assert tables.stale_on(SPARK, f"SELECT * FROM {t('dom0')}") == []
    assert tables.stale_on(SPARK, f"INSERT INTO {t('dom0')} SELECT 3") == []
    assert tables.wrote(DRIVER, f"INSERT INTO {t('dom0')} SELECT 3") == ["dom0"]   # Spark's copy is stale: dropped
    assert tables.stale_on(SPARK, f"SELECT * FROM {t('dom0')}") == ["dom0"]
    assert tables.stale_on(DRIVER, f"SELECT * FROM {t('dom0')}") == []


def test_a_table_written_or_dropped_on_one_side_leaves_no_copy_on_the_other():
    tables = Tables(WORK)
    tables.wrote(SPARK, f"CREATE TABLE {t('cells')} AS SELECT 1")
    tables.copied("cells", DRIVER)
    assert tables.wrote(SPARK, f"DROP TABLE IF EXISTS {t('cells')}") == ["cells"]   # dropped there too
    assert "cells" not in tables.holders and "cells" not in tables.present
    tables.wrote(DRIVER, f"CREATE TABLE {t('only_here')} AS SELECT 1")
    assert tables.wrote(DRIVER, f"DROP TABLE {t('only_here')}") == []   # never copied: nothing to drop elsewhere
    tables.wrote(DRIVER, f"CREATE TABLE {t('dom0')} AS SELECT 1")
    tables.copied("dom0", SPARK)
    assert tables.wrote(DRIVER, f"CREATE OR REPLACE TABLE {t('dom0')} AS SELECT 2") == ["dom0"]   # stale there: dropped
    assert tables.present["dom0"] == {DRIVER}
    assert tables.wrote(DRIVER, f"DROP TABLE {t('dom0')}") == []   # no copy stands there any more
