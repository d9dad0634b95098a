"""One DuckDB session of the anonymizer: execute rendered templates, time them.

The engine is the only place that runs SQL. Templates live in
``templates/<area>/<operation>.sql.j2`` and are rendered by :mod:`anonymizer.engine.rendering`;
they receive identifiers already quoted (see :mod:`anonymizer.engine.names`) and user values
only as bound parameters (``$name`` placeholders passed in ``params``).

Work tables of a run live in a private in-memory database attached to the connection as
``_anon_work_<id>`` (so ``"_anon_work_<id>"."base"`` names a work table): they hold coded QIs,
sensitive values and row ids, and never reach the user's database file, so a run that is
killed leaves nothing behind in it. The work database is compressed like a file (``COMPRESS``)
and, under a memory limit, DuckDB spills its blocks to the temporary directory (those files
are not the database, and DuckDB removes them). Tables a loop creates and drops round after
round (Mondrian's) are *transient* (:meth:`Engine.transient`): they live in the connection's
temporary catalog, in memory too, which never checkpoints. :meth:`Engine.close_work` detaches
the work database and drops the transient tables. With ``keep_work=True`` (debugging) the work
tables go to a schema ``_anon_kept_<id>`` of the database itself instead, and stay there, raw
data included, until the user drops them. Schemas named ``_anon_work_<id>`` in a database file
are leftovers of killed runs of earlier versions; :func:`.database.drop_stale_work` removes them.

Resources: :class:`Settings` (the spec's ``engine`` field, ``anonymizer run --memory-limit``)
are DuckDB settings applied for the length of :meth:`Engine.workspace` and restored after it,
so a user's connection gets its own settings back: ``memory_limit`` bounds DuckDB's memory
(sorts, joins and work tables beyond it spill to ``temp_directory``), ``threads`` its threads.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator

import duckdb

from anonymizer.errors import DataError, SpecError, TemplateError, UnsupportedError
from anonymizer.engine.capabilities import DUCKDB, Capabilities
from anonymizer.engine.heartbeat import Heartbeat
from anonymizer.engine.interrupts import check, running, stopped
from anonymizer.engine.names import ident, table
from anonymizer.engine.rendering import TEMP, render
from anonymizer.engine.settings import Settings, restore_setting

if TYPE_CHECKING:
    import pandas

    from anonymizer.spec.types import Source

#: rows in a DuckDB row group, the unit by which DuckDB splits a scan between threads
ROW_GROUP = 122_880


@dataclass
class StatementLog:
    """A statement the engine ran: its template, its SQL and how long it took."""

    template: str
    sql: str
    seconds: float
    dialect: str = "duckdb"
    source: str | None = None   # the DuckDB text it was transpiled from (another dialect)


@dataclass
class Engine:
    """A DuckDB connection plus rendering, timing, progress and a private work schema.

    Args:
        con: an open DuckDB connection (the user's; the engine never closes it).
        progress: called with short human messages on long runs, or ``None``.
        keep_work: keep the work schema after the run (debugging).
        settings: DuckDB settings for the length of :meth:`workspace` (see :class:`Settings`).
    """

    con: duckdb.DuckDBPyConnection
    progress: Callable[[str], None] | None = None
    keep_work: bool = False
    log: list[StatementLog] = field(default_factory=list)
    work_schema: str | None = None
    settings: Settings | None = None
    _beat: Heartbeat | None = field(default=None, init=False, repr=False, compare=False)
    dialect: ClassVar[str] = "duckdb"   # the SQL its templates render to (:func:`render`)
    name: ClassVar[str] = "duckdb"      # as the spec's ``engine: {name}`` says, shown in the audit
    capabilities: ClassVar[Capabilities] = DUCKDB   # what it can do, asked instead of its name

    # -- rendering and execution -------------------------------------------------
    def sql(self, template: str, **context: Any) -> str:
        """Render a template (see :func:`render`)."""
        return render(template, self.dialect, **context)

    def run(self, template: str, params: dict | None = None, **context: Any):
        """Render ``template`` and execute it with bound ``params``; return the cursor."""
        text = render(template, self.dialect, **context)
        return self.execute(text, params, template=template)

    def execute(self, text: str, params: dict | list | None = None, *, template: str = "<inline>"):
        """Execute SQL text with bound parameters, logging its time; a statement that runs
        long is reported while it runs (:mod:`.heartbeat`)."""
        start = time.perf_counter()
        beat = self._heartbeat()
        if beat is not None:
            beat.running(template)
        try:
            check()
            with running(self):
                cur = self.con.execute(text, params) if params else self.con.execute(text)
            check()
        except duckdb.Error as exc:   # interrupted by a stop (engine/interrupts.py) it is no failed statement
            raise KeyboardInterrupt if stopped() else TemplateError(template, f"{type(exc).__name__}: {exc}") from exc
        finally:
            if beat is not None:
                beat.running(None)
        self.log.append(StatementLog(template, text, time.perf_counter() - start))
        return cur

    def version(self) -> str:
        """The engine's version (DuckDB's ``version()``)."""
        return str(self.one("publish/engine_version.sql.j2")[0])

    def interrupt(self) -> None:
        """Stop the statement running now (from another thread: :mod:`.interrupts`)."""
        self.con.interrupt()

    @contextmanager
    def watch(self, label: str) -> Iterator[None]:
        """Report ``label`` every few seconds while the block runs (Python work between two
        statements that may take long: compiling or running MSB's greedy), as a long
        statement is (:mod:`.heartbeat`)."""
        beat = self._heartbeat()
        if beat is not None:
            beat.running(label)
        try:
            yield
        finally:
            if beat is not None:
                beat.running(None)

    def _heartbeat(self) -> Heartbeat | None:
        """This engine's :class:`Heartbeat`, started with its first statement (``None``
        without a progress callback)."""
        if self.progress is None:
            return None
        if self._beat is None:
            self._beat = Heartbeat(self, self.progress)
        return self._beat

    def lookup(self, relation: str, key: str, value: str) -> tuple[list, list] | None:
        """``relation``'s ``key`` and ``value`` columns as two lists to bind, where looking values up
        in them (a map) is cheaper than a join (Spark: a small table on its driver); ``None`` here."""
        return None

    def write_counted(self, template: str, counted: str, reading: list[str], **context: Any) -> tuple | None:
        """Run ``template`` (a ``CREATE TABLE .. AS`` query); return what template ``counted`` (one
        row over ``relation``'s ``columns``: ``reading``) finds in the rows the write reads, where the
        write takes it (Spark: ``DataFrame.observe``); ``None`` here: the caller reads the source."""
        self.run(template, **context)
        return None

    def one(self, template: str, params: dict | None = None, **context: Any) -> tuple:
        """Run a template that returns one row (an aggregate) and return it (``None``: no row).
        The result is read to its end, so the connection has no unfinished result (DuckDB
        2.0 refuses a relation, ``con.sql``, beside one)."""
        found = self.run(template, params, **context).fetchall()
        return found[0] if found else None

    def state_home(self) -> tuple[str | None, bool]:
        """Private state's home: the connection's database file (``None``: memory), read-only?"""
        return self.one("versions/combination/state_home.sql.j2")

    def rows(self, template: str, params: dict | None = None, **context: Any) -> list[tuple]:
        """Run a template returning a *small aggregate* (per class size, per partition
        statistic) and return its rows. Never use it to read table rows."""
        return self.run(template, params, **context).fetchall()

    def columns(self, relation: str, shown: str | None = None) -> dict[str, str]:
        """Column name -> DuckDB type of ``relation`` (metadata, not rows); a DataError naming
        ``shown`` (default: the relation) if it cannot be read."""
        try:
            cur = self.con.execute(f"DESCRIBE SELECT * FROM {relation}")
        except duckdb.CatalogException as exc:
            raise DataError(shown or relation, "does not exist") from exc
        except duckdb.Error as exc:
            raise DataError(shown or relation, f"cannot be read: {exc}") from exc
        return {row[0]: row[1] for row in cur.fetchall()}

    def check_format(self, where: str, name: str) -> None:
        """Refuse, before any work, a table or file format (spec field ``where``) the engine
        cannot read or write; DuckDB's readers refuse theirs when they load."""

    def load_csv(self, path, delimiter: str, target: str) -> None:
        """A headerless CSV file (a hierarchy) as table ``target``, every field text, in
        columns ``column0``, ``column1``, ...; a URI other than a local file's is Spark's."""
        if "://" in str(path):
            raise UnsupportedError(f"the hierarchy {path}: Spark reads it (engine: {{name: spark}}); DuckDB reads "
                                   "local hierarchy files")
        try:
            self.run("hierarchy/csv_load.sql.j2", {"path": str(path), "delim": delimiter}, target=target)
        except TemplateError as exc:   # DuckDB's reader refused the file (not text, not CSV): the user's input
            said = [line.strip() for line in str(exc.__cause__ or exc).splitlines() if line.strip()][:2]
            raise SpecError(f"hierarchy {path}", f"cannot be read as a CSV file of lines value{delimiter}level1"
                                                 f"{delimiter}...: {' '.join(said)}") from exc

    def load_file(self, src: "Source", target: str) -> None:
        """Load the spec's source files (a CSV, Parquet or JSON file ``src.path``, or a folder
        of Parquet parts) into new table ``target``; a URI of another scheme and Spark's reader
        options are Spark's (:meth:`SparkEngine.load_file`)."""
        reader = src.reader
        if src.uri is not None or src.options or reader not in ("csv", "parquet", "json"):
            what = (f"the URI {src.uri}" if src.uri is not None else "reader options (source.options)"
                    if src.options else f"format {reader}")
            raise UnsupportedError(f"{what}: Spark reads it (engine: {{name: spark}}); DuckDB reads local CSV, "
                                   "Parquet and JSON files and folders of Parquet parts")
        assert src.path is not None   # a local path (the spec names a path or a URI)
        folder = src.path.is_dir()
        params: dict = {"path": str(src.path / "**" / f"*.{reader}") if folder else str(src.path)}
        if reader == "csv":
            params["header"] = src.header
            if src.delimiter:
                params["delim"] = src.delimiter
            if src.null_string is not None:
                params["nullstr"] = src.null_string
        try:
            self.run("prepare/load_file.sql.j2", params, target=target, reader=reader,
                     has_delim=bool(src.delimiter), has_nullstr=src.null_string is not None)
        except TemplateError as exc:   # the file, not our SQL: DuckDB's reason, first line, named by the field
            reason = _file_reason(str(exc.__cause__ or exc))
            hint = "source.delimiter, source.header or source.format" if reader == "csv" else "source.format"
            raise SpecError("source.path", f"cannot be read as {reader}: {reason} (check the file, or {hint})",
                            str(src.path)) from None

    def load_frame(self, data: "pandas.DataFrame | dict[str, Any]", target: str) -> None:
        """Copy ``data``, a DataFrame or columns of numpy arrays, into the new table ``target`` (quoted)."""
        name = f"__anonymizer_input_{uuid.uuid4().hex[:10]}"
        self.con.register(name, data)
        try:
            self.execute(f"CREATE TABLE {target} AS SELECT * FROM {ident(name)}")
        finally:
            self.con.unregister(name)

    def say(self, message: str) -> None:
        """Report progress to the user, if a progress callback was given."""
        if self.progress is not None:
            self.progress(message)

    # -- the private work schema -------------------------------------------------
    def open_work(self) -> str:
        """Attach this run's private in-memory work database (or, with ``keep_work``, create a
        schema in the user's database) and return its (unquoted) name."""
        if self.work_schema is None:
            suffix = uuid.uuid4().hex[:10]
            if self.keep_work:
                self.work_schema = f"_anon_kept_{suffix}"
                self.execute(f"CREATE SCHEMA {ident(self.work_schema)}")
            else:
                self.work_schema = f"_anon_work_{suffix}"
                # READ_WRITE: attachable on a read-only connection too (output.database runs)
                self.execute(f"ATTACH ':memory:' AS {ident(self.work_schema)} (READ_WRITE, COMPRESS)")
        return self.work_schema

    def work(self, name: str) -> str:
        """Quoted name of the work table ``name`` of this run."""
        return table(self.open_work(), name)

    def transient(self, name: str) -> str:
        """Quoted name of the transient work table ``name`` of this run: a table a loop creates and drops
        again and again (Mondrian's rounds), kept in the connection's temporary catalog, which never
        checkpoints. In the work database, DuckDB would checkpoint (compress and rewrite) it every time
        changes pass 16 MiB: a fifth of Mondrian's CPU time on 10M rows. Create it with ``CREATE {{
        temporary(target) }}TABLE``. It holds work data like any work table (in memory, spilled to the
        temporary directory), and :meth:`close_work` drops it. With ``keep_work``: a kept work table."""
        if self.keep_work:
            return self.work(name)
        return table(TEMP, "main", f"{self.open_work()}_{name}")

    def close_work(self) -> None:
        """Detach the work database with everything in it and drop the run's transient
        tables (unless ``keep_work``)."""
        if self.work_schema is not None and not self.keep_work:
            self.execute(f"DETACH DATABASE IF EXISTS {ident(self.work_schema)}")
            self.drop_transient()
        self.work_schema = None

    def release_tables(self, *tables: str, always: bool = False) -> None:
        """Drop work tables (quoted names) a run no longer reads, so that their memory serves
        the rest of the run (kept with ``keep_work``, for debugging, unless ``always``: a step
        that makes them anew)."""
        if always or not self.keep_work:
            self.drop(*tables)

    def drop(self, *tables: str) -> None:
        """Drop the tables ``tables`` (quoted names), those that exist."""
        for name in tables:
            self.execute(f"DROP TABLE IF EXISTS {name}", template="<drop>")

    def count(self, relation: str, where: str | None = None) -> int:
        """The rows of ``relation`` (a quoted name), those where ``where`` holds if given (a
        condition on its columns, written by our code, never a user value)."""
        return self.execute(f"SELECT count(*) FROM {relation}" + (f" WHERE {where}" if where else ""),
                            template="<count>").fetchone()[0]

    def drop_transient(self) -> None:
        """Drop this run's transient tables (their memory is free again)."""
        if self.work_schema is None or self.keep_work:
            return
        for (name,) in self.con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = $temp "
                                        "AND starts_with(table_name, $p)",
                                        {"temp": TEMP, "p": f"{self.work_schema}_"}).fetchall():
            self.con.execute(f"DROP TABLE IF EXISTS {table(TEMP, 'main', name)}")

    @contextmanager
    def workspace(self) -> Iterator["Engine"]:
        """``with engine.workspace():`` applies the engine's settings, opens the work schema,
        and always drops it and restores the settings."""
        with self.configured():
            self.open_work()
            try:
                yield self
            finally:
                self.close_work()

    @contextmanager
    def configured(self) -> Iterator["Engine"]:
        """Apply :attr:`settings` to the connection and restore the previous values after."""
        previous: list[tuple[str, Any]] = []
        try:
            for name, value in (self.settings.items() if self.settings else []):
                previous.append((name, self.con.execute(f"SELECT current_setting('{name}')").fetchone()[0]))
                try:
                    self.execute(f"SET {name} = $value", {"value": value}, template=f"<SET {name}>")
                except TemplateError as exc:
                    raise SpecError(f"engine.{name}", f"DuckDB refused it: {exc.problem}", value) from None
            yield self
        finally:
            for name, value in reversed(previous):
                restore_setting(self.con, name, value)

    @contextmanager
    def for_cells(self, cells: int) -> Iterator["Engine"]:
        """The engine for work over a table of ``cells`` aggregate rows (Mondrian's rounds): this
        one (Spark's runs it on its driver, :mod:`.spark_driver`). A table the block makes is
        this engine's through :meth:`adopt`."""
        yield self

    @contextmanager
    def for_aggregate(self, *relations: str) -> Iterator["Engine"]:
        """The engine for work that reads the aggregate tables ``relations`` (the QIs' values,
        Mondrian's cells, a release's counted rows, its classes, and what is read beside them)
        and not the rows: this one (Spark's: its driver, where they all fit there,
        :mod:`.spark_driver`)."""
        yield self

    def adopt(self, other: "Engine", relation: str, name: str) -> str:
        """``relation`` of ``other``, an engine :meth:`for_cells` gave, as a table of this one
        (``name``: the work table it becomes where it is copied); here ``relation`` itself."""
        return relation

    @contextmanager
    def small(self, rows: int) -> Iterator["Engine"]:
        """The block on one DuckDB thread when its statements read at most ``rows`` rows and that fits in
        one row group (:data:`ROW_GROUP`): DuckDB splits a scan by row groups, so a second thread has no
        rows of its own there and only adds the scheduling of every statement's pipelines (a search's
        hundreds of small statements: on ARX's Adult frequency set, 10-18 % a check). The thread count is
        restored after the block, as :meth:`configured` restores its settings."""
        (threads,) = self.con.execute("SELECT current_setting('threads')").fetchone()
        if rows > ROW_GROUP or int(threads) == 1:
            yield self
            return
        self.execute("SET threads = $value", {"value": 1}, template="<SET threads>")
        try:
            yield self
        finally:
            restore_setting(self.con, "threads", threads)

    @contextmanager
    def transaction(self) -> Iterator["Engine"]:
        """The block in one transaction: all of it, or (on an error) none of it."""
        self.execute("BEGIN TRANSACTION")
        try:
            yield self
        except BaseException:
            self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    def undo(self, step: Callable[[], None]) -> None:
        """What undoes the last step of a :meth:`transaction` where the database cannot roll
        back (:class:`~anonymizer.engine.spark.SparkEngine`); DuckDB rolls back itself."""

    def keep_for_undo(self, schema: str, name: str) -> None:
        """Keep table ``schema.name`` before a :meth:`transaction` rewrites or creates it, to
        bring it back if the block fails (as :meth:`undo`)."""

    def relation(self, catalog: str | None, schema: str, name: str) -> tuple[str, str | None] | None:
        """``("view", its stored SQL)`` or ``("table", None)`` for ``schema.name`` of the
        database ``catalog`` (``None``: the connection's own), or ``None``."""
        return self.one("publish/relation.sql.j2", {"database": catalog, "schema": schema, "name": name})

    @contextmanager
    def scratch(self, select: str, params: dict | None = None, *, template: str = "<scratch>") -> Iterator[str]:
        """A temporary table holding ``select``'s rows for the block (then dropped); yields its
        quoted name. For a small aggregate read several times (measures, metrics), on any
        connection: temporary tables live in memory and work on read-only databases too."""
        name = ident(f"__anon_scratch_{uuid.uuid4().hex[:10]}")
        self.execute(f"CREATE TEMPORARY TABLE {name} AS {select}", params, template=template)
        try:
            yield name
        finally:
            self.con.execute(f"DROP TABLE IF EXISTS temp.main.{name}")


def _file_reason(message: str) -> str:
    """DuckDB's reason a file could not be read, on one line: up to its suggestions or our SQL."""
    lines = []
    for line in (part.strip() for part in message.splitlines()):
        if line.startswith(("Possible Solution", "LINE ")):
            break
        if line and not line.startswith("Original Line"):
            lines.append(line)
    return "; ".join(lines).split("Error: ", 1)[-1][:400]
