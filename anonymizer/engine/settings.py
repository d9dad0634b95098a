"""DuckDB settings of a run (the spec's ``engine`` field, :class:`Settings`) and how a
setting is put back after it (:func:`restore_setting`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import duckdb


@dataclass(frozen=True)
class Settings:
    """DuckDB settings of a run (the spec's ``engine`` field; ``None``: DuckDB's own).

    ``memory_limit``: as DuckDB reads it (``8GB``, ``512MB``, ``50%``); beyond it DuckDB
    spills to ``temp_directory`` (default: ``<database>.tmp`` next to a database file, ``.tmp``
    for an in-memory one). ``threads``: DuckDB's worker threads.
    """

    memory_limit: str | None = None
    threads: int | None = None
    temp_directory: str | None = None

    def items(self) -> list[tuple[str, Any]]:
        """The settings given, as ``(DuckDB setting, value)`` pairs."""
        return [(name, getattr(self, name)) for name in ("memory_limit", "threads", "temp_directory")
                if getattr(self, name) is not None]


def restore_setting(con: duckdb.DuckDBPyConnection, name: str, value: Any) -> None:
    """Set ``name`` back to ``value`` as read before a run. DuckDB shows a size cut to one decimal
    (``18.8 GiB``): a setting that was DuckDB's default is reset, another one is set to the shown size
    or, if that reads back lower, to the middle of the shown decimal (so it is back within 0.05 of its
    unit). A temporary directory in use may refuse to move back: it is left as it is."""
    shown = str(value)
    middle = re.fullmatch(r"(\d+\.\d+)( \w+)", shown)
    tries = [None, shown] + ([f"{middle.group(1)}5{middle.group(2)}"] if middle else [])
    try:
        for attempt in tries:
            if attempt is None:
                con.execute(f"RESET {name}")
            else:
                con.execute(f"SET {name} = $value", {"value": value if attempt == shown else attempt})
            if str(con.execute(f"SELECT current_setting('{name}')").fetchone()[0]) == shown:
                return
    except duckdb.Error:
        pass
