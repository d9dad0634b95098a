"""A release's key on Spark, kept out of Spark's plans.

Spark binds a named parameter by writing its value into the statement's plan as a literal, and
it shows plans: in the SQL tab of its UI, in the event log a history server reads, in
``EXPLAIN`` and in some errors. A release's key there would let whoever reads them re-derive
every draw of the release (:mod:`anonymizer.randomness`: the row order inside a class, LGB's
permutations, ...). So a bound :class:`~anonymizer.randomness.Secret` is written once per run
into a one-row work table (beside the run's work rows, dropped with them, as private as they
are: on a local master in a folder of mode 0700; its name a hash of the key salted by this
process, so no key, a seed's neither, can be tested against it) and each statement reads it
through a scalar subquery in place of its marker, outside quoted text and comments: a plan names the
table and never shows the value. Spark's own
``spark.sql.redaction.string.regex`` would not do: it hides the value from a plan's text but
not from the plan graph's nodes, which the UI and the event log keep too.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import TYPE_CHECKING

from anonymizer.randomness import Secret

if TYPE_CHECKING:
    from anonymizer.engine.spark import SparkEngine

#: Spark SQL's text no marker is in: comments (``-- ..`` to the line's end, ``/* .. */``), string
#: literals ('..', "..", backslash escapes) and `identifiers`; whichever starts first wins, so an
#: apostrophe in a comment opens no string
_QUOTED = re.compile(r"""(--[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`)""", re.S)
#: this process's salt of the key tables' names
_SALT = secrets.token_hex(16)


def hidden(engine: "SparkEngine", statement: str, params: dict | list | None) -> tuple[str, dict | list | None]:
    """``statement`` and ``params`` with each :class:`Secret` parameter read from its work table
    (:func:`kept`) instead of bound: its marker ``:name`` becomes ``(SELECT k FROM <table>)``."""
    if not isinstance(params, dict) or not any(isinstance(v, Secret) for v in params.values()):
        return statement, params
    parts = _QUOTED.split(statement)   # odd parts: quoted text (strings, identifiers), left as it is
    for name, value in params.items():
        if isinstance(value, Secret):
            marker, read = re.compile(rf"(?<![\w:]):{re.escape(name)}\b"), f"(SELECT k FROM {kept(engine, value)})"
            parts = [part if i % 2 else marker.sub(read, part) for i, part in enumerate(parts)]
    return "".join(parts), {k: v for k, v in params.items() if not isinstance(v, Secret)}


def kept(engine: "SparkEngine", secret: Secret) -> str:
    """The run's work table holding ``secret`` (one row, column ``k``), written the first time
    (from the driver, as data: a literal would be in that write's plan)."""
    name = f"__anon_key_{hashlib.sha256((_SALT + secret).encode()).hexdigest()[:16]}"
    target = f"`{engine.open_work()}`.`{name}`"
    if not engine.con.catalog.tableExists(target):
        engine.con.createDataFrame([(str(secret),)], "k STRING").write.saveAsTable(target)
    return target
