"""One DuckDB session of the anonymizer: render templates, execute them, time them.

The engine is the only place that renders SQL. Templates live in
``anonymizer/templates/<area>/<operation>.sql.j2``; they receive identifiers already
quoted (see :mod:`anonymizer.sqlnames`) and user values only as bound parameters
(``$name`` placeholders passed in ``params``).

Work tables of a run live in a private in-memory database attached to the connection as
``_anon_work_<id>`` (so ``"_anon_work_<id>"."base"`` names a work table): they hold coded QIs,
sensitive values and row ids, and never reach the user's database file, so a run that is
killed leaves nothing behind in it (DuckDB may spill a large work table to its temporary
directory; those files are not the database). :meth:`Engine.close_work` detaches it. With
``keep_work=True`` (debugging) the work tables go to a schema ``_anon_kept_<id>`` of the
database itself instead, and stay there, raw data included, until the user drops them.
Schemas named ``_anon_work_<id>`` in a database file are leftovers of killed runs of
earlier versions (which kept their work there); :func:`drop_stale_work` removes them.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Iterator

import duckdb
import jinja2

from .errors import DataError, TemplateError
from .sqlnames import ident, table

_TEMPLATES = resources.files("anonymizer") / "templates"


def _loader() -> jinja2.BaseLoader:
    return jinja2.FileSystemLoader(str(_TEMPLATES))


_ENV = jinja2.Environment(
    loader=_loader(),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)


def render(template: str, **context: Any) -> str:
    """Render ``templates/<template>`` with ``context`` and return the SQL text.

    Example:
        >>> "count(*)" in render("models/class_sizes.sql.j2", source='"t"', qis=['"a"'])
        True
    """
    try:
        return _ENV.get_template(template).render(**context)
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(template, "no such template") from exc
    except jinja2.UndefinedError as exc:
        raise TemplateError(template, f"missing context: {exc.message}") from exc


def list_templates() -> list[str]:
    """Every template name under ``templates/``, sorted."""
    return sorted(n for n in _ENV.list_templates() if n.endswith(".sql.j2"))


@dataclass
class StatementLog:
    """A statement the engine ran: its template, its SQL and how long it took."""

    template: str
    sql: str
    seconds: float


@dataclass
class Engine:
    """A DuckDB connection plus rendering, timing, progress and a private work schema.

    Args:
        con: an open DuckDB connection (the user's; the engine never closes it).
        progress: called with short human messages on long runs, or ``None``.
        keep_work: keep the work schema after the run (debugging).
    """

    con: duckdb.DuckDBPyConnection
    progress: Callable[[str], None] | None = None
    keep_work: bool = False
    log: list[StatementLog] = field(default_factory=list)
    work_schema: str | None = None

    # -- rendering and execution -------------------------------------------------
    def sql(self, template: str, **context: Any) -> str:
        """Render a template (see :func:`render`)."""
        return render(template, **context)

    def run(self, template: str, params: dict | None = None, **context: Any):
        """Render ``template`` and execute it with bound ``params``; return the cursor."""
        text = render(template, **context)
        return self.execute(text, params, template=template)

    def execute(self, text: str, params: dict | list | None = None, *, template: str = "<inline>"):
        """Execute SQL text with bound parameters, logging its time."""
        start = time.perf_counter()
        try:
            cur = self.con.execute(text, params) if params else self.con.execute(text)
        except duckdb.Error as exc:
            raise TemplateError(template, f"{type(exc).__name__}: {exc}") from exc
        self.log.append(StatementLog(template, text, time.perf_counter() - start))
        return cur

    def one(self, template: str, params: dict | None = None, **context: Any) -> tuple:
        """Run a template that returns one row (an aggregate) and return it."""
        return self.run(template, params, **context).fetchone()

    def rows(self, template: str, params: dict | None = None, **context: Any) -> list[tuple]:
        """Run a template returning a *small aggregate* (per class size, per partition
        statistic) and return its rows. Never use it to read table rows."""
        return self.run(template, params, **context).fetchall()

    def columns(self, relation: str, shown: str | None = None) -> dict[str, str]:
        """Column name -> DuckDB type of ``relation`` (metadata, not rows).

        Raises DataError naming ``shown`` (default: the relation) if it cannot be read.
        """
        try:
            cur = self.con.execute(f"DESCRIBE SELECT * FROM {relation}")
        except duckdb.CatalogException as exc:
            raise DataError(shown or relation, "does not exist") from exc
        except duckdb.Error as exc:
            raise DataError(shown or relation, f"cannot be read: {exc}") from exc
        return {row[0]: row[1] for row in cur.fetchall()}

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
                self.execute(f"ATTACH ':memory:' AS {ident(self.work_schema)} (READ_WRITE)")
        return self.work_schema

    def work(self, name: str) -> str:
        """Quoted name of the work table ``name`` of this run."""
        return table(self.open_work(), name)

    def close_work(self) -> None:
        """Detach the work database with everything in it (unless ``keep_work``)."""
        if self.work_schema is not None and not self.keep_work:
            self.execute(f"DETACH DATABASE IF EXISTS {ident(self.work_schema)}")
        self.work_schema = None

    @contextmanager
    def workspace(self) -> Iterator["Engine"]:
        """``with engine.workspace():`` opens the work schema and always drops it."""
        self.open_work()
        try:
            yield self
        finally:
            self.close_work()


def drop_stale_work(engine: Engine) -> list[str]:
    """Drop the ``_anon_work_<id>`` schemas of the connected database file: work state (coded
    QIs, sensitive values, row ids) that killed runs of earlier versions left behind. No run
    of this version creates such a schema, so none is in use. A database opened read-only
    (the source of a release publishing into ``output.database``) is left as it is. Returns
    the dropped names."""
    if engine.execute("SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()"
                      ).fetchone()[0]:
        return []
    stale = [r[0] for r in engine.execute(
        "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database() "
        "AND regexp_full_match(schema_name, '_anon_work_[0-9a-f]{10}')").fetchall()]
    for name in stale:
        engine.execute(f"DROP SCHEMA {ident(name)} CASCADE")
        engine.say(f"dropped {name}, the work schema a killed run left behind")
    return stale
