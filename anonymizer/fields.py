"""Checks shared by every part of the spec and by each family's ``algorithm:`` options
(:mod:`anonymizer.families`): names, mappings of known keys, choices, flags, per-QI values,
paths."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from anonymizer.errors import SpecError
from anonymizer.numbers import number


def name_field(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError(where, "must be a non-empty name", value)
    if len(value) > 120:
        raise SpecError(where, "must be at most 120 characters", value)
    return value


def mapping_field(value: Any, where: str, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise SpecError(where, "must be a mapping", value)
    extra = set(value) - keys
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", f"is not an option here (options: {', '.join(sorted(keys))})")
    return value


def path_or_uri(given: str, base: Path) -> tuple[Path | None, str | None]:
    """A location of the spec: a local path (relative to ``base``; a ``file://`` URI names one
    too) or a URI of another scheme (``s3a://``, ``hdfs://``, ...), which only Spark reads and
    which is kept as written (a ``Path`` would collapse its ``//``)."""
    scheme, sep, rest = given.partition("://")
    if sep and scheme.lower() != "file":
        return None, given
    path = Path(rest if sep else given).expanduser()
    return (path if path.is_absolute() else base / path), None


def table_format(value: Any, where: str) -> str | None:
    """A table or reader format name (``parquet``, ``csv``, ``delta``, ...), lower-cased."""
    if value is not None and (not isinstance(value, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", value)):
        raise SpecError(where, "must be a format name: parquet, csv, json, orc, delta, iceberg, ...", value)
    return value.lower() if value else None


def relative_path(path: str, base: Path) -> Path:
    """A path of the spec: absolute as given, or relative to the spec file's folder."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def choice(value: Any, where: str, allowed: tuple[str, ...], why: str = "") -> str:
    """One of ``allowed`` (``why``: what the choice decides, for the message)."""
    if value not in allowed:
        raise SpecError(where, f"must be one of {', '.join(allowed)}{f' ({why})' if why else ''}", value)
    return value


def flag(value: Any, where: str) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise SpecError(where, "must be true or false", value)
    return value


def per_qi(value: Any, where: str, quasi: set[str], kind: type | tuple[type, ...], what: str) -> dict:
    """A mapping from quasi-identifier names to numbers of ``kind`` (>= 0)."""
    if not isinstance(value, dict):
        raise SpecError(where, "must map quasi-identifiers to values", value)
    for q, x in value.items():
        if q not in quasi:
            raise SpecError(f"{where}.{q}", "is not a quasi-identifier")
        if not isinstance(x, kind):
            raise SpecError(f"{where}.{q}", f"must be {what}", x)
        number(x, f"{where}.{q}", 0, whole=kind is int, what=what)
    return dict(value)
