"""Every template rendered again with parameters recorded from real runs
(tests/template_contexts.py), and each statement read by the installed DuckDB's own parser
without running it: a second or two, on the locked set and in both smoke jobs (.ci/smoke), so a
parser change in a new DuckDB release (2.0.1 stopped reading ``FROM ("t")``) is caught here."""

from __future__ import annotations

import re

import duckdb

from anonymizer.engine import rendering as session
from anonymizer.engine.rendering import list_templates
from tests.template_contexts import FIXTURE, RECORD, stored
from tests.engine.test_templates import EXEMPT

#: exempt from the release runs and rendered by their own tests, but recorded all the same
RECORDED_ELSEWHERE = ("hierarchy/",)


def test_every_statement_template_parses_in_this_duckdb():
    con, failed, parsed = duckdb.connect(), [], 0
    kinds = {"statement": "{}", "expression": "SELECT ({}\n)"}   # an expression as a statement takes it in
    for name, entries in stored().items():
        for entry in entries:
            text = session._ENV.get_template(name).render(**entry["context"])
            try:
                parsed += len(con.extract_statements(kinds[entry["kind"]].format(text)))
            except duckdb.ParserException as exc:
                failed.append(f"{name}: {str(exc).splitlines()[0]}")
    assert not failed, f"DuckDB {duckdb.__version__} cannot parse: " + "; ".join(failed)
    assert parsed >= 200


def test_every_template_is_recorded():
    """Each template the real runs cover is in the recording, but for the macro libraries other
    templates import (``{% from "x.sql.j2" import ... %}``: never rendered alone)."""
    recorded = stored()
    exempt = tuple(p for p in EXEMPT if p not in RECORDED_ELSEWHERE)
    imported = {m for t in list_templates()
                for m in re.findall(r'{%-?\s*(?:from|import)\s+"([^"]+)"', session._ENV.loader.get_source(session._ENV, t)[0])}
    missing = [t for t in list_templates() if t not in recorded and t not in imported and not t.startswith(exempt)]
    assert not missing, f"templates with no recorded parameters: {missing}"
    unread = [n for n, entries in recorded.items() for e in entries if e["kind"] not in ("statement", "expression")]
    assert not unread, f"recorded renders that are neither a statement nor an expression: {unread}"


SNAPSHOTS = FIXTURE.parent / "template_sql"


def _snapshot(name: str, entries: list[dict]) -> str:
    """What ``name`` renders from each of its recorded parameter sets, one after the other."""
    renders = [f"-- render {i} of {len(entries)} ({entry['kind']})\n"
               + session._ENV.get_template(name).render(**entry["context"]).rstrip() + "\n"
               for i, entry in enumerate(entries, 1)]
    return "\n".join(renders)


def test_every_template_renders_as_its_sql_snapshot():
    """A change in what a template renders shows in review: ``tests/fixtures/template_sql/``
    holds each template's SQL for its recorded parameters (issue 37). After a deliberate
    change, write them anew: ``ANONYMIZER_RECORD_TEMPLATES=1 python -m pytest
    tests/engine/test_template_parse.py``."""
    expected = {SNAPSHOTS / name.replace(".sql.j2", ".sql"): _snapshot(name, entries)
                for name, entries in stored().items()}
    if RECORD:
        for path in set(SNAPSHOTS.rglob("*.sql")) - set(expected):
            path.unlink()
        for path, text in expected.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    changed = sorted(str(p.relative_to(SNAPSHOTS)) for p, text in expected.items()
                     if not p.exists() or p.read_text(encoding="utf-8") != text)
    assert not changed, f"templates that render otherwise than their snapshot: {changed}"
    stale = sorted(str(p.relative_to(SNAPSHOTS)) for p in set(SNAPSHOTS.rglob("*.sql")) - set(expected))
    assert not stale, f"snapshots of templates no longer recorded: {stale}"
