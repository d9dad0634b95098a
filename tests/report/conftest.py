"""Fixtures for the HTML report: a database with the demo release published twice (v1 with
k=10, v2 with k=20) and the page of its latest version written by the command line."""

from __future__ import annotations

from dataclasses import replace

import duckdb
import pytest

from anonymizer.demo import data_path, demo_spec, load_adult
from anonymizer.release.run import run_release
from anonymizer.spec.types import History
from tests.cli.conftest import run_cli

SPEC = data_path("demo.yml")


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "demo.duckdb"
    with duckdb.connect(str(db)) as con:
        load_adult(con)
        run_release(demo_spec(), con)
        run_release(replace(demo_spec(k=20), history=History("independent")), con)   # a second generalization
    return db


@pytest.fixture(scope="session")
def demo_page(demo_db):
    """The page of the demo release's latest version (v2), as ``anonymizer report`` writes it."""
    out = demo_db.parent / "adult_demo.html"
    res = run_cli("report", "adult_demo", "--db", demo_db, "--html", out, "--spec", SPEC)
    assert res.exit_code == 0, res.output
    assert f"report of adult_demo v2 for the custodian written to {out}" in res.output
    return out
