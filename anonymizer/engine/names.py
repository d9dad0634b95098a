"""The one place where identifiers become SQL text.

Every table, schema and column name that reaches a template passes through :func:`ident`
or :func:`table`, which quote with sqlglot, so a column called ``select``, ``my col`` or
``a"b`` is safe. Templates receive these pre-quoted strings and never add quotes.

Example:
    >>> ident('a"b')
    '"a""b"'
    >>> table("published", "my view")
    '"published"."my view"'
    >>> in_catalog("out", "published", "v"), in_catalog(None, "published", "v")
    ('"out"."published"."v"', '"published"."v"')
"""

from __future__ import annotations

from sqlglot import exp


def ident(name: str) -> str:
    """Return ``name`` as a quoted DuckDB identifier."""
    if not isinstance(name, str) or name == "":
        raise ValueError(f"identifier must be a non-empty string, got {name!r}")
    return exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


def table(*parts: str) -> str:
    """Return a qualified, quoted relation name from its parts (``schema``, ``name``)."""
    return ".".join(ident(p) for p in parts)


def in_catalog(catalog: str | None, *parts: str) -> str:
    """:func:`table` inside the attached database ``catalog`` (``catalog.schema.name``), or in
    the connection's default database when ``catalog`` is ``None``."""
    return table(catalog, *parts) if catalog is not None else table(*parts)
