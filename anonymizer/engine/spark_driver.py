"""Work over aggregates on Spark's driver, in an embedded DuckDB (issue 58).

A Spark release touches its rows in a few passes (check the source, collapse it to the QIs'
values and to the cells, join the classes to the rows and write them, count what was
written); everything between reads only *aggregates* of the rows: the QIs' distinct values
(the hierarchies), Mondrian's cells (one per distinct vector of QI codes and the sensitive
values the models read, with a count) and rounds, the classes, the counts the models and
metrics read. As Spark statements each is a few jobs over a table that fits in the driver's
memory (at 1M rows about 36 jobs a Mondrian round for 278k cells). So a run has one
:class:`DriverEngine`: a DuckDB engine whose work database bears the Spark run's work
database's name, so that a template names a work table the same way on both.

- :meth:`~anonymizer.engine.spark.SparkEngine.for_aggregate` gives it for work over a Spark
  work table of at most :data:`DRIVER_CELLS` rows, copied there as Arrow (the copy counts it;
  a larger one is read as far as the bound and the work stays in Spark);
- :class:`Tables` keeps, per work table, which side holds its current rows: a statement on
  either side first gets a copy of each work table it reads whose current rows are the other
  side's (a statement on the driver that reads one above the bound is refused, never
  collected); a table one side drops is dropped on both;
- :meth:`~anonymizer.engine.spark.SparkEngine.adopt` copies a transient result (the finished
  cells) back under a work table's name.

The statements are the templates DuckDB's releases run, in DuckDB's dialect, so the classes,
labels and figures are DuckDB's.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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


#: a statement's written table: ``CREATE [OR REPLACE] TABLE``, ``INSERT INTO``, ``UPDATE``,
#: ``DELETE FROM``, ``ALTER TABLE`` (kind "write") or ``DROP TABLE`` (kind "drop"); group 1 the keyword,
#: group 2 the quoted work table (the pattern is completed per run by :meth:`Tables.pattern`)
_WRITES = (r"\b(CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
           r"|INSERT\s+(?:OR\s+\w+\s+)?INTO\s+|UPDATE\s+|DELETE\s+FROM\s+|ALTER\s+TABLE\s+"
           r"|DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?)")
SPARK, DRIVER = "spark", "driver"


@dataclass
class Tables:
    """Which side holds the current rows of each work table of a Spark run that has a driver:
    the side whose statement last wrote it, and the other side too once a statement there read
    it and it was copied over (until the writer writes it again). A name the map does not hold
    is Spark's (the rows, the source, what Spark's readers loaded). A statement on either side
    first gets a current copy of each work table it reads, then records what it wrote: so the
    hierarchies built on the driver reach Spark only when a Spark statement reads them, and
    the cells Spark collapsed reach the driver when its rounds read them."""

    work: str
    holders: dict[str, set[str]] = field(default_factory=dict)   # the sides holding its current rows
    present: dict[str, set[str]] = field(default_factory=dict)   # the sides where a table of the name stands

    def named(self, text: str) -> list[str]:
        """The work tables ``text`` names (unquoted), in order of first mention."""
        found = re.findall(re.escape(ident(self.work)) + r'\.("(?:[^"]|"")+")', text)
        return list(dict.fromkeys(q[1:-1].replace('""', '"') for q in found))

    def written(self, text: str) -> dict[str, str]:
        """The work tables ``text`` writes -> the keyword that writes them (upper case, first word)."""
        pattern = _WRITES + re.escape(ident(self.work)) + r'\.("(?:[^"]|"")+")'
        return {q[1:-1].replace('""', '"'): kind.split()[0].upper() for kind, q in re.findall(pattern, text, re.I)}

    def stale_on(self, side: str, text: str) -> list[str]:
        """The work tables ``text`` reads on ``side`` whose current rows are only on the other
        side (a table the statement creates or drops is not read)."""
        skip = {n for n, kind in self.written(text).items() if kind in ("CREATE", "DROP")}
        return [n for n in self.named(text) if n not in skip and n in self.holders and side not in self.holders[n]]

    def wrote(self, side: str, text: str) -> list[str]:
        """Record what ``text`` wrote on ``side``; returns the tables it wrote or dropped that
        stand on the other side too (a copy there is stale, or was dropped here): to drop there."""
        other = []
        for name, kind in self.written(text).items():
            if self.present.get(name, set()) - {side}:
                other.append(name)
            if kind == "DROP":
                self.holders.pop(name, None)
                self.present.pop(name, None)
            else:
                self.holders[name], self.present[name] = {side}, {side}
        return other

    def copied(self, name: str, side: str) -> None:
        self.holders.setdefault(name, {SPARK}).add(side)
        self.present.setdefault(name, {SPARK}).add(side)


@dataclass
class DriverEngine(Engine):
    """An :class:`~anonymizer.engine.session.Engine` on an in-memory DuckDB in the driver
    whose work database bears the name of ``spark``'s, so that a template names a work table
    the same way on both; each statement first gets the Spark work tables it reads
    (:class:`Tables`)."""

    spark: "SparkEngine | None" = None
    tables: Tables | None = None

    def execute(self, text: str, params: dict | list | None = None, *, template: str = "<inline>"):
        assert self.spark is not None and self.tables is not None
        for name in self.named_in_spark(text):
            self._copy_in(name, text)
        cursor = super().execute(text, params, template=template)
        for name in self.tables.wrote(DRIVER, text):   # Spark's copy is stale, or the table is gone
            self.spark.drop_copy(name)
        return cursor

    def columns(self, relation: str, shown: str | None = None) -> dict[str, str]:
        for name in self.named_in_spark(f"SELECT * FROM {relation}"):
            self._copy_in(name, f"SELECT * FROM {relation}")
        return super().columns(relation, shown)

    def load_csv(self, path, delimiter: str, target: str) -> None:
        """A hierarchy file: DuckDB reads a local one on the driver (the executors never see
        the path); Spark's reader a URI."""
        if "://" in str(path):
            assert self.spark is not None
            self.spark.load_csv(path, delimiter, target)
        else:
            super().load_csv(path, delimiter, target)

    def holds(self, relation: str) -> bool:
        """Whether the current rows of every work table ``relation`` names are here."""
        assert self.tables is not None
        named = self.tables.named(relation)
        return bool(named) and all(DRIVER in self.tables.holders.get(n, ()) for n in named)

    def named_in_spark(self, text: str) -> list[str]:
        """The work tables ``text`` reads whose current rows are Spark's only."""
        assert self.spark is not None and self.tables is not None
        stale = self.tables.stale_on(DRIVER, text)
        unknown = [n for n in self.tables.named(text) if n not in self.tables.holders
                   and n not in self.tables.written(text) and self.spark.has_work_table(n)]
        return stale + unknown

    def take(self, relation: str) -> bool:
        """Copy here the Spark work tables ``relation`` names whose current rows are Spark's,
        each if it holds at most :data:`DRIVER_CELLS` rows; whether all of ``relation`` is here
        now (``False``: one was larger, read as far as the bound and left in Spark)."""
        try:
            for name in self.named_in_spark(relation):
                self._copy_in(name, relation)
        except Oversized:
            return False
        except Exception:  # noqa: BLE001 - Spark refused the collect (spark.driver.maxResultSize, the heap)
            return False   # the work stays in Spark, as above the bound
        return self.holds(relation)

    def _copy_in(self, name: str, text: str) -> None:
        assert self.spark is not None and self.tables is not None and self.work_schema is not None
        start, target = time.perf_counter(), table(self.work_schema, name)
        arrow = self.spark.collect_work_table(name, DRIVER_CELLS + 1)
        if arrow is None or arrow.num_rows > DRIVER_CELLS:
            raise Oversized(template_of(text), f"work table {name} holds more than {DRIVER_CELLS:,} rows: "
                                               "it is not an aggregate the driver may hold")
        view = f"__anon_arrow_{uuid.uuid4().hex[:10]}"
        with self.con.cursor() as cursor:   # its own: the connection may hold a result not read to its end (the
            # work database, attached to the database, is every cursor's)
            cursor.register(view, arrow)
            cursor.execute(f"CREATE OR REPLACE TABLE {target} AS SELECT {_plain_times(arrow.schema)} FROM {ident(view)}")
        self.tables.copied(name, DRIVER)
        self.log.append(StatementLog("<to the driver>", f"-- {self.spark.work(name)} -> DuckDB {target} "
                                     f"({arrow.num_rows} rows)", time.perf_counter() - start))


#: the most values of a domain a Spark statement looks codes up in as a map (``lookup``): Spark
#: searches a map's keys one by one (2M rows: 1.0 s at 500 keys, 5.2 s at 5,000, 0.26 s to sum
#: a column), where a broadcast join costs a job to send the table
LOOKUP_VALUES = 128
#: the value types whose bound lists Spark compares as DuckDB does (no zone, no rounding)
LOOKUP_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "VARCHAR", "BOOLEAN", "DATE")


def lookup(driver: DriverEngine, relation: str, key: str, value: str) -> tuple[list, list] | None:
    """The ``key`` and ``value`` columns of ``relation``, a table whose rows are the driver's,
    as two lists, where it has at most :data:`LOOKUP_VALUES` rows and ``key`` is of a
    :data:`LOOKUP_TYPES` type; ``None`` otherwise (or where the table is Spark's)."""
    if not driver.holds(relation):
        return None
    if driver.columns(relation).get(key, "").upper() not in LOOKUP_TYPES:
        return None
    rows = driver.execute(f"SELECT {ident(key)}, {ident(value)} FROM {relation} ORDER BY {ident(value)} "
                          f"LIMIT {LOOKUP_VALUES + 1}", template="<lookup>").fetchall()
    return None if len(rows) > LOOKUP_VALUES else ([k for k, _ in rows], [v for _, v in rows])


class Oversized(TemplateError):
    """A work table a statement on the driver reads holds more rows than the driver may."""


def template_of(text: str) -> str:
    """The statement's first line, to name it in an error."""
    return text.strip().splitlines()[0][:80] if text.strip() else "<statement>"


def open_driver(spark: "SparkEngine") -> DriverEngine:
    """A :class:`DriverEngine` beside ``spark`` for the rest of its run (its statements in
    ``spark``'s log, its progress messages to ``spark``'s), in the time zone of Spark's session
    (a date or time bucket, a label, are the same on both), spilling (cells with their
    sensitive values) only to a private temporary folder (mode 0700), not DuckDB's default
    ``./.tmp``; :func:`close_driver` closes it and removes the folder."""
    spill = tempfile.mkdtemp(prefix="anonymizer_driver_")
    con = duckdb.connect(config={"temp_directory": spill})
    con.execute("SET TimeZone = $tz", {"tz": str(spark.con.conf.get("spark.sql.session.timeZone", "UTC"))})
    work = spark.open_work()
    con.execute(f"ATTACH ':memory:' AS {ident(work)}")
    return DriverEngine(con, progress=spark.progress, log=spark.log, work_schema=work, spark=spark,
                        tables=Tables(work))


def close_driver(driver: DriverEngine) -> None:
    """Close the driver's DuckDB, its work database (in memory) and every table with it, and
    remove the folder it may have spilled to."""
    spill = driver.con.execute("SELECT current_setting('temp_directory')").fetchone()[0]
    driver.con.close()
    shutil.rmtree(spill, ignore_errors=True)


def bring(spark: "SparkEngine", driver: DriverEngine, text: str) -> None:
    """Copy to Spark each work table the Spark statement ``text`` reads whose current rows are
    the driver's only (:class:`Tables`), replacing a stale copy there."""
    assert driver.tables is not None
    for name in driver.tables.stale_on(SPARK, text):
        start, target = time.perf_counter(), spark.work(name)
        spark.from_driver(to_spark(driver, driver.work(name)), target, driver.work(name), start, replace=True)
        driver.tables.copied(name, SPARK)


def _plain_times(schema) -> str:
    """The select list of an Arrow table from Spark with each time-zoned timestamp (Spark's
    ``timestamp``, an instant) as DuckDB's ``TIMESTAMP`` in the session's zone: what DuckDB's
    release holds, so that labels and date buckets read as there."""
    import pyarrow as pa
    return ", ".join(f"CAST({ident(f.name)} AS TIMESTAMP) AS {ident(f.name)}"
                     if pa.types.is_timestamp(f.type) and f.type.tz is not None else ident(f.name) for f in schema)


def to_spark(driver: DriverEngine, relation: str):
    """The rows of ``relation`` (quoted) of ``driver`` as a pyarrow Table, its 128-bit
    integers (DuckDB's sums of counts) as 64-bit ones, which Spark reads as ``bigint`` (a
    ``TIMESTAMP``, a wall time in the session's zone, Spark reads as ``timestamp_ntz``)."""
    columns = driver.con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()   # (a transient: this connection's)
    wider = {"HUGEINT": "BIGINT", "UHUGEINT": "BIGINT"}   # a TIMESTAMP stays a wall time: Spark's timestamp_ntz
    select = ", ".join(f"CAST({ident(c[0])} AS {wider[c[1]]}) AS {ident(c[0])}" if c[1] in wider else ident(c[0])
                       for c in columns)
    return driver.con.sql(f"SELECT {select} FROM {relation}").to_arrow_table()
