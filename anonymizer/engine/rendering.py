"""Rendering: the one jinja environment over ``templates/`` and :func:`render`, which every
statement of the product goes through (:class:`anonymizer.engine.session.Engine` executes
what it renders). Templates receive identifiers already quoted (:mod:`anonymizer.engine.names`)
and user values only as bound parameters (``$name``)."""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from anonymizer.errors import TemplateError
from anonymizer.resources import TEMPLATES, resource_dir
from anonymizer.engine.names import ident, relation

_TEMPLATES = resource_dir(TEMPLATES)
#: the connection's temporary catalog, where transient work tables live (:meth:`Engine.transient`)
TEMP = "temp"


def _loader() -> jinja2.BaseLoader:
    return jinja2.FileSystemLoader(str(_TEMPLATES))


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The compiled templates, kept between processes: compiling the fifty-odd templates of a
    release takes about 90 ms, loading them from the cache a few. jinja2's own per-user
    directory in the temporary directory (created with mode 0700, refused unless the user owns
    it and no one else may write it: its files are code), keyed by the template's name and
    checked against its source, so a changed template is compiled again. None (compile every
    time) when that directory cannot be had."""
    try:
        return jinja2.FileSystemBytecodeCache(pattern="__anonymizer_%s.cache")
    except (OSError, RuntimeError):
        return None


_ENV = jinja2.Environment(
    loader=_loader(),
    bytecode_cache=_bytecode_cache(),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)


def _temporary(target: str) -> str:
    """``TEMPORARY `` when ``target`` names a table of the temporary catalog (a transient work
    table, :meth:`Engine.transient`), else nothing: ``CREATE {{ temporary(target) }}TABLE``."""
    return "TEMPORARY " if str(target).startswith(f"{ident(TEMP)}.") else ""


_ENV.globals["temporary"] = _temporary
_ENV.filters["relation"] = relation   # FROM {{ x | relation }}: a quoted name, or a query as a subquery


def render(template: str, dialect: str = "duckdb", **context: Any) -> str:
    """Render ``templates/<template>`` with ``context`` and return the SQL text; for another
    ``dialect`` than DuckDB, ``templates/dialects/<dialect>/<template>`` if there is one
    (a statement that has no transpiled form there, see :mod:`.transpile`).

    Example:
        >>> "count(*)" in render("models/class_sizes.sql.j2", source='"t"', qis=['"a"'])
        True
    """
    name = template
    if dialect != "duckdb" and f"dialects/{dialect}/{template}" in _overrides():
        name = f"dialects/{dialect}/{template}"
    try:
        return _ENV.get_template(name).render(dialect=dialect, **context)
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(template, "no such template") from exc
    except jinja2.UndefinedError as exc:
        raise TemplateError(template, f"missing context: {exc.message}") from exc


@functools.cache
def _overrides() -> frozenset[str]:
    """The templates with a form of their own for another dialect (``dialects/<d>/...``)."""
    return frozenset(n for n in _ENV.list_templates() if n.startswith("dialects/"))


def list_templates() -> list[str]:
    """Every template name under ``templates/``, sorted."""
    return sorted(n for n in _ENV.list_templates() if n.endswith(".sql.j2"))
