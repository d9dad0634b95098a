"""Checks shared by every part of the spec: names, mappings of known keys, paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonymizer.errors import SpecError


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


def relative_path(path: str, base: Path) -> Path:
    """A path of the spec: absolute as given, or relative to the spec file's folder."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p
