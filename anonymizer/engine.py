"""One DuckDB session of the anonymizer: render templates, execute them, time them.

The engine is the only place that renders SQL. Templates live in
``anonymizer/templates/<area>/<operation>.sql.j2``; they receive identifiers already
quoted (see :mod:`anonymizer.sqlnames`) and user values only as bound parameters
(``$name`` placeholders passed in ``params``).

Work tables of a run live in a private schema (``_anon_work_<id>``) that
:meth:`Engine.close_work` drops, unless the engine was created with ``keep_work=True``.
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
        """Create this run's private schema and return its (unquoted) name."""
        if self.work_schema is None:
            self.work_schema = f"_anon_work_{uuid.uuid4().hex[:10]}"
            self.execute(f"CREATE SCHEMA {ident(self.work_schema)}")
        return self.work_schema

    def work(self, name: str) -> str:
        """Quoted name of the work table ``name`` in this run's private schema."""
        return table(self.open_work(), name)

    def close_work(self) -> None:
        """Drop the private schema with everything in it (unless ``keep_work``)."""
        if self.work_schema is not None and not self.keep_work:
            self.execute(f"DROP SCHEMA IF EXISTS {ident(self.work_schema)} CASCADE")
        self.work_schema = None

    @contextmanager
    def workspace(self) -> Iterator["Engine"]:
        """``with engine.workspace():`` opens the work schema and always drops it."""
        self.open_work()
        try:
            yield self
        finally:
            self.close_work()
