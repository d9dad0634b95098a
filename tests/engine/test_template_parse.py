"""Every template rendered again with parameters recorded from real runs
(tests/template_contexts.py), and each statement read by the installed DuckDB's own parser
without running it: a second or two, on the locked set and in both smoke jobs (.ci/smoke), so a
parser change in a new DuckDB release (2.0.1 stopped reading ``FROM ("t")``) is caught here."""

from __future__ import annotations

import re

import duckdb

from anonymizer.engine import rendering as session
from anonymizer.engine.rendering import list_templates
from tests.template_contexts import stored
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
