"""The engine on Apache Spark: the same templates, rendered as for DuckDB, transpiled to Spark
SQL (:mod:`.transpile`) and run by a ``SparkSession``.

What differs from DuckDB, and how the engine keeps the algorithms the same:

- **Work tables** live in a Spark database of the run, ``_anon_work_<id>``, dropped with
  everything in it when the run ends (DuckDB attaches an in-memory database instead). On a
  local master its files go to a private temporary directory (mode 0700), not the
  warehouse, so a killed run's work rows are not left beside the published tables; on a
  cluster they go to the warehouse, and a killed run leaves its ``_anon_work_<id>``
  database there until someone drops it.
  Transient tables (Mondrian's rounds) are work tables too: Spark has no temporary tables.
- **Statements**: every rendered statement goes through :func:`.transpile.to_spark`; a
  template may also have a Spark form of its own, ``templates/dialects/spark/<name>``, which
  :func:`~anonymizer.engine.rendering.render` takes instead; the log keeps each one's Spark text.
  A CTAS runs as its query's write, its rows counted as written (:mod:`.spark_written`).
- **Parameters** bind as Spark's named markers (``:name``), values never spliced in; a
  release's key is read from a work table, never shown in a plan (:mod:`.spark_secret`).
- **Transactions**: Spark's catalog has none. :meth:`SparkEngine.transaction` runs the block
  and, if it fails, undoes what it registered (:meth:`undo`) in reverse (dropping each new
  snapshot, re-pointing each view), so a failed release leaves the previous views reading
  the previous snapshots. Between two statements of a publish a reader may see the new view
  before the audit row is written; nothing else is visible. **Settings**: the spec's DuckDB
  settings do not apply; Spark's come from the session (``--spark-conf``).
- **The session** a release starts, and the catalogs a cluster's master refuses:
  :mod:`.spark_session`. **Work over aggregates** (hierarchies, Mondrian's rounds, class labels,
  verification, metrics) runs on the driver in an embedded DuckDB (:mod:`.spark_driver`).
- **Capabilities**: what the callers ask instead of the engine's name (loops round by round, no
  ``rowid``, ...): :data:`~anonymizer.engine.capabilities.SPARK`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator

import sqlglot
from sqlglot import exp

from anonymizer.engine.backend import is_spark
from anonymizer.engine.capabilities import SPARK
from anonymizer.engine.interrupts import check, running, stopped
from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine, StatementLog
from anonymizer.engine.spark_result import Result
from anonymizer.engine.spark_session import catalog_problem, has_format, is_connect
from anonymizer.engine.spark_secret import hidden
from anonymizer.engine.spark_written import Written, run
from anonymizer.engine.transpile import spark_statements, to_spark
from anonymizer.errors import DataError, SpecError, TemplateError, UnsupportedError

if TYPE_CHECKING:
    from anonymizer.engine.spark_driver import DriverEngine

#: Spark's type names -> DuckDB's, as :meth:`Engine.columns` reports them
_TYPES = {"int": "INTEGER", "bigint": "BIGINT", "smallint": "SMALLINT", "tinyint": "TINYINT", "double": "DOUBLE",
          "float": "FLOAT", "string": "VARCHAR", "boolean": "BOOLEAN", "date": "DATE", "timestamp": "TIMESTAMP",
          "timestamp_ntz": "TIMESTAMP", "binary": "BLOB"}


def copy_from_duckdb(spark, con, relation: str, name: str) -> str:
    """Copy the DuckDB ``relation`` (quoted) of ``con`` into the Spark table ``name``
    (replaced), its rows sent from the driver as Arrow data, never a path on the driver's disk
    (a cluster's executors cannot read it); no row becomes a Python object, a ``TIMESTAMP``
    without a time zone stays one (``TIMESTAMP_NTZ``, as from DuckDB's Parquet), and the rows
    keep their order (one file: Spark reads a table's files largest first). Returns ``name``."""
    import pyarrow as pa
    arrow = con.sql(f"SELECT * FROM {relation}").to_arrow_table()
    frame = spark.createDataFrame(arrow)
    naive = {f.name: frame[f.name].cast("timestamp_ntz") for f in arrow.schema if pa.types.is_timestamp(f.type) and f.type.tz is None}
    target = sqlglot.parse_one(name, into=exp.Table, read="duckdb").sql("spark")
    (frame.withColumns(naive) if naive else frame).coalesce(1).write.mode("overwrite").saveAsTable(target)
    return name


@dataclass
class SparkEngine(Engine):
    """:class:`~anonymizer.engine.session.Engine` on a ``SparkSession`` (``con``)."""

    dialect = "spark"
    name = "spark"
    capabilities = SPARK
    undo_steps: list[Callable[[], None]] = field(default_factory=list)
    work_dir: str | None = None   # where a local run's work database keeps its files
    driver: "DriverEngine | None" = None   # the run's DuckDB on the driver, once work over cells asked for it
    written: Written = field(default_factory=Written)   # rows of the tables its CTAS wrote (.spark_written)

    def __post_init__(self) -> None:
        """Refuse a catalog that cannot hold a release (:func:`catalog_problem`) before any work."""
        problem = catalog_problem(self.con)
        if problem is not None:
            raise UnsupportedError(problem)

    # -- execution -------------------------------------------------------------------------
    def execute(self, text: str, params: dict | list | None = None, *, template: str = "<inline>"):
        from pyspark.errors import PySparkException
        start = time.perf_counter()
        self._bring(text)
        statements, frame, pending = [], None, spark_statements(text, self._columns_of)
        while True:   # each statement transpiled after the one before ran (it may read the catalog)
            try:
                statement = next(pending, None)
            except Exception as exc:  # noqa: BLE001 - sqlglot's errors and a rewrite's refusal
                raise TemplateError(template, f"no Spark form: {exc}") from exc
            if statement is None:
                break
            statements.append(statement)
            try:
                check()
                with running(self):
                    frame = run(self.con, self.written, *hidden(self, statement, params))   # the key unshown
                check()
            except PySparkException as exc:
                if stopped():   # its jobs cancelled by a stop (engine/interrupts.py)
                    raise KeyboardInterrupt from exc
                raise TemplateError(template, f"Spark: {_first_line(exc)}") from exc
        self.log.append(StatementLog(template, "\n;\n".join(statements), time.perf_counter() - start,
                                     dialect=self.dialect, source=text))
        if self.driver is not None:   # a table written here: the driver's copy is stale; one dropped: gone there too
            from anonymizer.engine.spark_driver import SPARK as HERE
            for name in self.driver.tables.wrote(HERE, text):   # type: ignore[union-attr]
                self.driver.con.execute(f"DROP TABLE IF EXISTS {self.driver.work(name)}")
        return Result(frame)

    def lookup(self, relation: str, key: str, value: str) -> tuple[list, list] | None:
        from anonymizer.engine.spark_driver import lookup   # (a table on the driver, spark_driver.LOOKUP_VALUES)
        return None if self.driver is None else lookup(self.driver, relation, key, value)

    def write_counted(self, template: str, counted: str, reading: list[str], **context) -> tuple | None:
        """``counted``'s figures observed over the rows the write of ``template`` reads (its own tasks)."""
        figures = to_spark(self.sql(counted, relation="__anon_written", columns=reading), self._columns_of)[-1]
        self.written.observe([e.sql("spark") for e in sqlglot.parse_one(figures, read="spark").expressions])
        try:
            self.run(template, **context)
            return self.written.observed()
        finally:   # a failed write leaves nothing for the next one to observe
            self.written.observe([])

    def _bring(self, text: str) -> None:
        """Copy from the driver each work table ``text`` reads whose rows are there only (``spark_driver.bring``)."""
        if self.driver is not None:
            from anonymizer.engine.spark_driver import bring
            bring(self, self.driver, text)

    def version(self) -> str:   # as the session states it (no job)
        return str(self.con.version)

    def interrupt(self) -> None:
        """Cancel the Spark jobs running now (from another thread: :mod:`.interrupts`); on
        Spark Connect, the session's operations on its server."""
        if is_connect(self.con):
            self.con.interruptAll()
        else:
            self.con.sparkContext.cancelAllJobs()

    def _columns_of(self, relation: exp.Table) -> list[str]:
        return [f.name for f in self.con.table(relation.sql("spark")).schema.fields]

    def columns(self, relation: str, shown: str | None = None) -> dict[str, str]:
        from pyspark.errors import PySparkException
        self._bring(f"SELECT * FROM {relation}")
        try:
            schema = self.con.sql(to_spark(f"SELECT * FROM {relation} LIMIT 0", self._columns_of)[0]).schema
        except PySparkException as exc:
            problem = "does not exist" if "TABLE_OR_VIEW_NOT_FOUND" in str(exc) else f"cannot be read: {exc}"
            raise DataError(shown or relation, problem) from exc
        return {f.name: _duckdb_type(f.dataType.simpleString()) for f in schema.fields}

    def load_csv(self, path, delimiter: str, target: str) -> None:
        """Spark's CSV reader (Spark SQL takes no reader options), then the table."""
        start = time.perf_counter()
        frame = self.con.read.csv(str(path), sep=delimiter, header=False, inferSchema=False)
        frame = frame.toDF(*[f"column{i}" for i in range(len(frame.columns))])
        self._save(frame, target, f"-- DataFrameReader.csv({str(path)!r})", "hierarchy/csv_load.sql.j2", start)

    def check_format(self, where: str, name: str) -> None:
        """A format the session has no data source for (Delta or Iceberg without their
        packages) is refused before any work (:func:`.spark_session.has_format`): Spark would
        fail only when it first reads or writes one, with a Java error."""
        if not has_format(self.con, name):
            raise SpecError(where, f"this Spark session has no data source {name!r}: add its package to the session "
                                   "(for Delta: --packages io.delta:delta-spark_2.13:<version> with its SQL extension "
                                   "and catalog; for Iceberg: its spark-runtime package and catalog) or choose "
                                   "another format; nothing was run", name)

    def load_file(self, src, target: str) -> None:
        """A spec's files (``source.path``: a local file or folder, or any URI the session
        reads) through Spark's reader in ``source.format`` with ``source.options`` (over the
        CSV settings the spec names), then the table ``target``."""
        start = time.perf_counter()
        options: dict[str, object] = {}
        if src.reader == "csv":
            options = {"header": src.header, "inferSchema": True, "sep": src.delimiter or ","}
            if src.null_string is not None:
                options["nullValue"] = src.null_string
        options.update(src.options)
        frame = self.con.read.format(src.reader).options(**options).load(src.location)
        self._save(frame, target, f"-- DataFrameReader.format({src.reader!r}).load({src.location!r})",
                   "prepare/load_file.sql.j2", start)

    def load_frame(self, data, target: str) -> None:
        """A PySpark or pandas DataFrame (the ``data=`` of :func:`anonymizer.api.anonymize`), or
        columns of integer numpy arrays (MSB's runs), as ``target``; a PySpark DataFrame's rows
        are staged by the executors (never through the driver), and read as staged."""
        start, schema = time.perf_counter(), None
        if is_spark(data):
            self._save(data, target, "-- the DataFrame given as data", "<data>", start)
            return
        if isinstance(data, dict):
            schema = ", ".join(f"{name} BIGINT" for name in data)
            data = list(zip(*(column.tolist() for column in data.values())))
        self._save(self.con.createDataFrame(data, schema), target, "-- createDataFrame(data)", "<data>", start)

    def _save(self, frame, target: str, what: str, template: str, start: float, replace: bool = False) -> None:
        written = sqlglot.parse_one(target, into=exp.Table, read="duckdb")
        self.written.forget(written)
        name = written.sql("spark")
        (frame.write.mode("overwrite") if replace else frame.write).saveAsTable(name)
        if self.driver is not None and self.driver.tables is not None and not replace:   # Spark's rows now
            for work in self.driver.tables.wrote("spark", f"CREATE TABLE {target}"):
                self.driver.con.execute(f"DROP TABLE IF EXISTS {self.driver.work(work)}")
        self.log.append(StatementLog(template, f"{what} -> {name}", time.perf_counter() - start,
                                     dialect=self.dialect))

    # -- the run's work database -----------------------------------------------------------
    def open_work(self) -> str:
        if self.work_schema is None:
            prefix = "_anon_kept_" if self.keep_work else "_anon_work_"
            self.work_schema = f"{prefix}{uuid.uuid4().hex[:10]}"
            local = (str(self.con.conf.get("spark.master", "")).startswith("local") and not self.keep_work
                     and not is_connect(self.con))   # a Connect server's disk is not this machine's
            self.work_dir = tempfile.mkdtemp(prefix=f"{self.work_schema}_") if local else None
            self.execute(f"CREATE SCHEMA {ident(self.work_schema)}" + (" LOCATION $location" if local else ""),
                         {"location": self.work_dir} if local else None, template="<work database>")
        return self.work_schema

    def transient(self, name: str) -> str:
        return self.work(name)

    # -- work over cells on the driver (engine/spark_driver.py) ----------------------------
    @contextmanager
    def for_cells(self, cells: int) -> Iterator[Engine]:
        """Up to :data:`~anonymizer.engine.spark_driver.DRIVER_CELLS` cells: the run's embedded
        DuckDB on the driver (opened the first time, closed with the work database), which
        reads this run's work tables and whose tables Spark's statements read
        (:mod:`.spark_driver`); above it this engine. The block's transient tables are dropped
        after it."""
        from anonymizer.engine.spark_driver import DRIVER_CELLS, open_driver
        if cells > DRIVER_CELLS:
            yield self
            return
        if self.driver is None:
            self.driver = open_driver(self)
        try:
            yield self.driver
        finally:
            self.driver.drop_transient()

    @contextmanager
    def for_aggregate(self, *relations: str) -> Iterator[Engine]:
        """The driver, once the work tables ``relations`` name are there (copied now if each
        holds at most :data:`~anonymizer.engine.spark_driver.DRIVER_CELLS` rows: the copy
        counts them, so no Spark job counts them first); where one is larger, this engine, the
        copy read as far as the bound thrown away. The block must read no other Spark work
        table (one above the bound would be refused there)."""
        from anonymizer.engine.spark_driver import open_driver
        if self.driver is None:
            self.driver = open_driver(self)
        if not all(self.driver.take(relation) for relation in relations):
            yield self
            return
        try:
            yield self.driver
        finally:
            self.driver.drop_transient()

    def adopt(self, other: Engine, relation: str, name: str) -> str:
        """``relation`` of ``other`` (a :class:`~anonymizer.engine.spark_driver.DriverEngine`
        :meth:`for_cells` gave) as this run's work table ``name``; returns its quoted name."""
        if other is self:
            return relation
        from anonymizer.engine.spark_driver import to_spark
        start, target = time.perf_counter(), self.work(name)
        self.from_driver(to_spark(other, relation), target, relation, start)   # type: ignore[arg-type]
        return target

    def from_driver(self, arrow, target: str, relation: str, start: float, replace: bool = False) -> None:
        """The driver's ``relation`` read as ``arrow`` saved as ``target``, its rows counted (:meth:`count`)."""
        self._save(self.con.createDataFrame(arrow), target, f"-- DuckDB {relation} on the driver ({arrow.num_rows} rows)",
                   "<from the driver>", start, replace)
        self.written.copied(sqlglot.parse_one(target, into=exp.Table, read="duckdb"), arrow.num_rows)

    def drop_copy(self, name: str) -> None:
        """Drop Spark's copy of the driver's work table ``name`` (stale, or dropped there), outside ``Tables``."""
        self.written.forget(exp.table_(name, db=self.open_work()))
        self.con.sql(f"DROP TABLE IF EXISTS `{self.open_work()}`.`{name}`")

    def count(self, relation: str, where: str | None = None) -> int:   # no job where its CTAS counted it
        known = None if where else self.written.rows(*(p.name for p in exp.to_table(relation, dialect="duckdb").parts))
        return known if known is not None else super().count(relation, where)

    def has_work_table(self, name: str) -> bool:
        return bool(self.con.catalog.tableExists(f"`{self.open_work()}`.`{name}`"))

    def collect_work_table(self, name: str, limit: int):
        """At most ``limit`` rows of the work table ``name``, as a pyarrow Table on the driver
        (all of them, in one plain collect, where its write counted them and they are fewer;
        ``None``, nothing read, where it counted more)."""
        rows, frame = self.written.rows(self.open_work(), name), self.con.table(f"`{self.open_work()}`.`{name}`")
        return frame.limit(limit).toArrow() if rows is None else frame.toArrow() if rows < limit else None

    def close_work(self) -> None:
        if self.driver is not None:
            from anonymizer.engine.spark_driver import close_driver
            close_driver(self.driver)
            self.driver = None
        if self.work_schema is not None and not self.keep_work:
            self.con.sql(f"DROP DATABASE IF EXISTS `{self.work_schema}` CASCADE")
            if self.work_dir:
                shutil.rmtree(self.work_dir, ignore_errors=True)
        self.work_schema = self.work_dir = None

    def drop_transient(self) -> None:
        """Transient tables are work tables here: they go with the work database."""

    @contextmanager
    def configured(self) -> Iterator["Engine"]:
        yield self

    @contextmanager
    def small(self, rows: int) -> Iterator["Engine"]:   # Spark plans its own parallelism
        yield self

    @contextmanager
    def scratch(self, select: str, params: dict | None = None, *, template: str = "<scratch>") -> Iterator[str]:
        """A work table (Spark has no temporary ones); outside a run the work database opens for it."""
        opened = self.work_schema is None
        name = self.work(f"__anon_scratch_{uuid.uuid4().hex[:10]}")
        try:
            self.execute(f"CREATE TABLE {name} AS {select}", params, template=template)
            yield name
        finally:
            if opened:
                self.close_work()
            else:
                self.execute(f"DROP TABLE IF EXISTS {name}", template="<scratch>")

    # -- publishing ------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator["Engine"]:
        """Run the block; if it fails, its undo steps in reverse (Spark's catalog has no transactions)."""
        self.undo_steps = []
        try:
            yield self
        except BaseException:
            for step in reversed(self.undo_steps):
                try:
                    step()
                except Exception:  # noqa: BLE001 - undo what can be undone, then raise the cause
                    pass
            raise
        finally:
            self.undo_steps = []

    def undo(self, step: Callable[[], None]) -> None:
        self.undo_steps.append(step)

    def keep_for_undo(self, schema: str, name: str) -> None:
        """A copy of ``schema.name`` written back if the transaction fails (a new table: dropped)."""
        target = table(schema, name)
        if self.relation(None, schema, name) is None:
            self.undo(lambda: self.execute(f"DROP TABLE IF EXISTS {target}", template="<undo create>"))
            return
        copy = self.work(f"undo_{name}")
        self.execute(f"CREATE OR REPLACE TABLE {copy} AS SELECT * FROM {target}", template="<undo copy>")
        self.undo(lambda: self.execute(f"CREATE OR REPLACE TABLE {target} AS SELECT * FROM {copy}",
                                       template="<undo restore>"))

    def state_home(self) -> tuple[str | None, bool]:
        """Private state lives in the session's catalog (its warehouse), never read-only."""
        return self.con.conf.get("spark.sql.warehouse.dir"), False

    def relation(self, catalog: str | None, schema: str, name: str) -> tuple[str, str | None] | None:
        """``("view", its query)`` or ``("table", None)`` for ``schema.name``, or ``None``."""
        if catalog is not None:
            raise SpecError("output.database", "names a DuckDB file; on Spark a release publishes into the session's "
                                               "catalog (leave output.database out)")
        if not self.con.catalog.databaseExists(schema):
            return None
        qualified = spark_table(schema, name)   # not listTables: Spark runs jobs to list a database
        if not self.con.catalog.tableExists(qualified):
            return None
        if self.con.catalog.getTable(qualified).tableType != "VIEW":
            return ("table", None)
        details = self.con.sql(f"DESCRIBE TABLE EXTENDED {spark_table(schema, name)}").collect()
        text = next((r[1] for r in details if r[0] == "View Text"), None)
        # the query as DuckDB would write it: the owner's check (publish.reads) parses DuckDB SQL
        return ("view", sqlglot.transpile(text, read="spark", write="duckdb")[0] if text else None)


def _first_line(exc: Exception) -> str:
    """The first line of Spark's message that says something (some start with a blank one)."""
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)


def _duckdb_type(spark_type: str) -> str:
    if spark_type.startswith("decimal"):
        return spark_type.upper()
    return _TYPES.get(spark_type, spark_type.upper())


def spark_table(*parts: str) -> str:
    """``schema.name`` (or ``name``) quoted as Spark SQL writes it."""
    return exp.table_(parts[-1], db=parts[-2] if len(parts) > 1 else None, quoted=True).sql("spark")

