"""Representative parameters for every template, recorded from the real runs of
``tests/engine/test_templates.py`` and ``tests/hierarchy/test_sql_parses.py`` into
``tests/fixtures/template_contexts.json``, so that ``tests/engine/test_template_parse.py`` can render
every template again and have DuckDB's own parser read each statement without running it, in
a second or two, on whichever DuckDB is installed (issue 35: a parser change is caught by one
fast test, not by a user).

The real runs check that the file is current: each template they render must be in it with
the same parameter names. When a template's parameters change, record again:

    ANONYMIZER_RECORD_TEMPLATES=1 python -m pytest tests/engine/test_templates.py tests/hierarchy/test_sql_parses.py

and then the SQL each template renders from them (``tests/fixtures/template_sql/``):

    ANONYMIZER_RECORD_TEMPLATES=1 python -m pytest tests/engine/test_template_parse.py
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "template_contexts.json"
RECORD = os.environ.get("ANONYMIZER_RECORD_TEMPLATES") == "1"
#: contexts kept per template, one per shape (see :func:`_shape`), the first met of each
PER_TEMPLATE = 6


@dataclass
class Recorded:
    """What the real runs rendered: template name -> the parameters of each render and its text."""

    renders: dict[str, list[tuple[dict[str, Any], str]]] = field(default_factory=dict)

    def add(self, name: str, context: dict[str, Any], text: str) -> None:
        self.renders.setdefault(name, []).append((context, text))


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (tuples as lists); ``ValueError`` if it cannot be."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise ValueError(f"not JSON: {type(value).__name__}")


def stored() -> dict[str, list[dict[str, Any]]]:
    """The file: template name -> entries ``{"kind": "statement" | "expression" | "fragment",
    "context": {...}}``."""
    return json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.exists() else {}


def _kind(text: str, executed: set[str]) -> str:
    """``statement``: executed as it is, or a query DuckDB reads alone; ``expression``: what
    a statement takes in as a value (DuckDB reads ``SELECT (text)``); else ``fragment``."""
    if text.strip() in executed:
        return "statement"
    for kind, whole in (("statement", text), ("expression", f"SELECT ({text}\n)")):
        try:
            if duckdb.connect().extract_statements(whole):
                return kind
        except duckdb.Error:
            pass
    return "fragment"


def _shape(context: dict[str, Any]) -> tuple:
    """The parameter names, with the values that choose a template's branches: flags, small
    numbers and short words (``kind: ir_kl``, ``finer: true``), not names or SQL."""
    return tuple(sorted((k, v if isinstance(v, (bool, int)) or isinstance(v, str) and v.isidentifier()
                         and len(v) <= 20 else None) for k, v in context.items()))


def _entries(renders: list[tuple[dict[str, Any], str]], executed: set[str]) -> list[dict[str, Any]]:
    kept: dict[tuple, dict[str, Any]] = {}
    for context, text in renders:
        try:
            plain = _plain(context)
        except ValueError:
            continue
        if len(kept) < PER_TEMPLATE and _shape(plain) not in kept:
            kept[_shape(plain)] = {"kind": _kind(text, executed), "context": plain}
    return list(kept.values())


def keep_current(recorded: Recorded, executed: dict[str, list[str]]) -> None:
    """Write what the run rendered into the file (``ANONYMIZER_RECORD_TEMPLATES=1``), or check
    that the file holds each template rendered here with the same parameter names."""
    ran = {text.strip() for texts in executed.values() for text in texts}
    have = stored()
    if RECORD:
        from anonymizer.engine.rendering import list_templates
        existing = set(list_templates())
        have = {name: entries for name, entries in have.items() if name in existing}   # a deleted template goes
        for name, renders in recorded.renders.items():
            have[name] = _entries(renders, ran) or have.get(name, [])
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(dict(sorted(have.items())), indent=0, sort_keys=True) + "\n", encoding="utf-8")
        return
    stale = sorted(name for name, renders in recorded.renders.items()
                   if not any(set(e["context"]) == set(c) for c, _ in renders for e in have.get(name, [])))
    assert not stale, (f"{FIXTURE.name} lacks these templates or their parameter names changed: {stale}; "
                       f"record again ({__name__}'s docstring says how)")
