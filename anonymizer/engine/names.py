r"""The one place where identifiers become SQL text.

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

A template that reads a relation writes ``FROM {{ x | relation }}`` (see :func:`relation`):
``x`` may be a quoted name or a query, and the one helper decides how it stands after
``FROM``, so no template relies on what one parser version accepts around a name (DuckDB
2.0.1 rejects ``FROM ("t")``, which 2.0.0 read).

    >>> relation('"w"."t"'), relation("(SELECT 1 AS a)"), relation("SELECT 1 AS a")
    ('"w"."t"', '(SELECT 1 AS a)', '(SELECT 1 AS a\n)')
"""

from __future__ import annotations

import re

#: a name, possibly qualified: each part quoted as :func:`table` writes it, or a bare word (a
#: CTE a template names itself)
_PART = r'(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_]*)'
_NAME = re.compile(_PART + r"(?:\." + _PART + r")*")
#: how a query's text begins (after opening parentheses, white space and comments)
_QUERY = re.compile(r"(?:[(\s]|--[^\n]*\n|/\*.*?\*/)*(SELECT|WITH|FROM|VALUES)\b", re.IGNORECASE | re.DOTALL)


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


def relation(sql: str) -> str:
    """Return ``sql`` as it stands after ``FROM`` or ``JOIN``: a name (quoted and maybe
    qualified, or a CTE's bare word) as it is, a query (``SELECT``, ``WITH``, ``FROM``, ``VALUES``) as a subquery in
    parentheses (once: a query already wrapped whole is left as it is), the closing one on
    a line of its own so that a query ending in a ``--`` comment stays closed.

    Raises:
        ValueError: ``sql`` is neither, or ends with ``;``; a caller of ours passed something
        else (a bug, not the user's input).
    """
    text = sql.strip() if isinstance(sql, str) else ""
    if _NAME.fullmatch(text):
        return text
    if not _QUERY.match(text) or text.endswith(";"):
        raise ValueError(f"a template's relation must be a quoted name or one query, got {sql!r}")
    return text if _wrapped(text) else f"({text}\n)"   # the newline ends a closing line comment


def _wrapped(text: str) -> bool:
    """Whether the parenthesis that opens ``text`` closes at its end (strings, quoted names
    and comments skipped), i.e. ``text`` is one parenthesized query."""
    if not text.startswith("("):
        return False
    depth, i = 0, 0
    while i < len(text):
        ch, pair = text[i], text[i:i + 2]
        if ch in "'\"":
            i = _end(text, i + 1, ch)
        elif pair in ("--", "/*"):
            i = _end(text, i + 2, "\n" if pair == "--" else "*/")
        else:
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                return i == len(text) - 1
            i += 1
    return False


def _end(text: str, start: int, closer: str) -> int:
    """The index just past the first ``closer`` from ``start`` (the end of ``text`` if none)."""
    found = text.find(closer, start)
    return len(text) if found < 0 else found + len(closer)
