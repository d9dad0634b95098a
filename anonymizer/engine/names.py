"""The one place where identifiers become SQL text.

Every table, schema and column name that reaches a template passes through :func:`ident`
or :func:`table`, which always quote (DuckDB's and standard SQL's rule: wrap in double
quotes, double every double quote inside; what sqlglot's ``to_identifier(name,
quoted=True)`` writes for DuckDB, without importing sqlglot on every run), so a column
called ``select``, ``my col`` or ``a"b`` is safe. Templates receive these pre-quoted strings
and never add quotes.

Example:
    >>> ident('a"b')
    '"a""b"'
    >>> table("published", "my view")
    '"published"."my view"'
    >>> in_catalog("out", "published", "v"), in_catalog(None, "published", "v")
    ('"out"."published"."v"', '"published"."v"')
"""

from __future__ import annotations


def ident(name: str) -> str:
    """Return ``name`` as a quoted DuckDB identifier."""
    if not isinstance(name, str) or name == "":
        raise ValueError(f"identifier must be a non-empty string, got {name!r}")
    return '"' + name.replace('"', '""') + '"'


def table(*parts: str) -> str:
    """Return a qualified, quoted relation name from its parts (``schema``, ``name``)."""
    return ".".join(ident(p) for p in parts)


def in_catalog(catalog: str | None, *parts: str) -> str:
    """:func:`table` inside the attached database ``catalog`` (``catalog.schema.name``), or in
    the connection's default database when ``catalog`` is ``None``."""
    return table(catalog, *parts) if catalog is not None else table(*parts)
