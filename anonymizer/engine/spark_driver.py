"""Rounds over cells on Spark's driver, in an embedded DuckDB (issue 58).

A Spark release touches its rows in a few passes (load, collapse to cells, assign the classes
and write, verify); the rounds between them (Mondrian's splits) read and write only the
*cells*, an aggregate of the rows (one per distinct vector of QI codes and the sensitive
values the models read, with a count). Run as Spark statements each round is a few jobs
over a table that fits in the driver's memory: at 1M rows about 36 jobs a round for 278k
cells. So, when the cells number at most :data:`DRIVER_CELLS`, the rounds run on the driver
instead: :meth:`~anonymizer.engine.spark.SparkEngine.for_cells` gives a :class:`DriverEngine`,
a DuckDB engine whose work database has the Spark run's work database's name, and which copies
each Spark work table a statement names into it the first time one does (as Arrow, at most
:data:`DRIVER_CELLS` rows: a larger table is refused, never collected);
:meth:`~anonymizer.engine.spark.SparkEngine.adopt` copies a result (the finished cells) back.
The statements are the templates DuckDB's releases run, in DuckDB's dialect, so the classes
are DuckDB's. Above the bound the rounds stay in Spark, as before.
"""

from __future__ import annotations

import re
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import duckdb

from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine, StatementLog
from anonymizer.errors import TemplateError

if TYPE_CHECKING:
    from anonymizer.engine.spark import SparkEngine

#: the most cells (rows of an aggregate) that go to the driver: about 100 bytes each as Arrow
#: and again in DuckDB, so 2M cells hold about 0.4 GB of the driver's memory; above it the
#: rounds run as Spark statements
DRIVER_CELLS = 2_000_000


@dataclass
class DriverEngine(Engine):
    """An :class:`~anonymizer.engine.session.Engine` on an in-memory DuckDB in the driver
    whose work database bears the name of ``spark``'s, so that a template names a work table
    the same way on both; a Spark work table is copied in when a statement first names it."""

    spark: "SparkEngine | None" = None
    copied: list[str] = field(default_factory=list)   # the Spark tables copied in, quoted

    def execute(self, text: str, params: dict | list | None = None, *, template: str = "<inline>"):
        self._copy_in(text)
        return super().execute(text, params, template=template)

    def _copy_in(self, text: str) -> None:
        assert self.spark is not None and self.work_schema is not None
        for quoted in sorted(set(re.findall(re.escape(ident(self.work_schema)) + r'\.("(?:[^"]|"")+")', text))):
            name = quoted[1:-1].replace('""', '"')
            target = table(self.work_schema, name)
            if target in self.copied or self._has(name) or not self.spark.has_work_table(name):
                continue
            start = time.perf_counter()
            arrow = self.spark.collect_work_table(name, DRIVER_CELLS + 1)
            if arrow.num_rows > DRIVER_CELLS:
                raise TemplateError(template_of(text), f"work table {name} holds more than {DRIVER_CELLS:,} rows: "
                                                       "it is not an aggregate the driver may hold")
            view = f"__anon_arrow_{uuid.uuid4().hex[:10]}"
            self.con.register(view, arrow)
            try:
                self.con.execute(f"CREATE TABLE {target} AS SELECT * FROM {ident(view)}")
            finally:
                self.con.unregister(view)
            self.copied.append(target)
            self.log.append(StatementLog("<to the driver>", f"-- {self.spark.work(name)} -> DuckDB {target} "
                                         f"({arrow.num_rows} rows)", time.perf_counter() - start))

    def _has(self, name: str) -> bool:
        return bool(self.con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = $db AND table_name = $t",
                                     {"db": self.work_schema, "t": name}).fetchall()[0][0])


def template_of(text: str) -> str:
    """The statement's first line, to name it in an error."""
    return text.strip().splitlines()[0][:80] if text.strip() else "<statement>"


@contextmanager
def on_the_driver(spark: "SparkEngine") -> Iterator[DriverEngine]:
    """A :class:`DriverEngine` beside ``spark`` for the block (its statements in ``spark``'s log,
    its progress messages to ``spark``'s), closed after it."""
    con = duckdb.connect()
    work = spark.open_work()
    con.execute(f"ATTACH ':memory:' AS {ident(work)}")
    driver = DriverEngine(con, progress=spark.progress, log=spark.log, work_schema=work, spark=spark)
    try:
        yield driver
    finally:
        driver.close_work()
        con.close()


def to_spark(driver: DriverEngine, relation: str):
    """The rows of ``relation`` (quoted) of ``driver`` as a pyarrow Table, its 128-bit
    integers (DuckDB's sums of counts) as 64-bit ones, which Spark reads as ``bigint``."""
    columns = driver.con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
    select = ", ".join(f"CAST({ident(c[0])} AS BIGINT) AS {ident(c[0])}" if c[1] in ("HUGEINT", "UHUGEINT")
                       else ident(c[0]) for c in columns)
    return driver.con.sql(f"SELECT {select} FROM {relation}").to_arrow_table()
