"""Fixtures for the hierarchy builders: an engine on a fresh in-memory DuckDB, the bundled
UCI Adult table (loaded once per module), and a helper that builds one column's hierarchy."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from anonymizer.demo import load_adult
from anonymizer.engine.session import Engine
from anonymizer.hierarchy import Coded, build_hierarchy, column_type, parse_hierarchy
from anonymizer.spec.types import Column
from tests.families.generalized.conftest import engine  # noqa: F401 - the same fresh-engine fixture


@pytest.fixture(scope="module")
def adult_con():
    con = duckdb.connect()
    load_adult(con)
    yield con
    con.close()


@pytest.fixture
def adult(adult_con):
    """An engine on the module's Adult table (its work schema dropped after the test)."""
    eng = Engine(adult_con)
    yield eng
    eng.close_work()


def build(engine: Engine, relation: str, column: str, hierarchy=None, key: str = "0") -> Coded:
    """Build ``hierarchy`` (a spec value, or None) on ``column`` of ``relation`` (quoted)."""
    h = parse_hierarchy(hierarchy, f"columns.{column}.hierarchy", Path(".")) if hierarchy is not None else None
    db_type = engine.columns(relation)[column]
    return build_hierarchy(engine, relation, Column(column, "quasi", column_type(h, "h", db_type, None), h), key)


def labels(engine: Engine, coded: Coded, level: int) -> dict[str, str]:
    """value -> its node's label at ``level`` (test tables are small)."""
    rows = engine.execute(f"SELECT d.value::VARCHAR, h.label FROM {coded.dom} d JOIN {coded.hier} h "
                          f"ON h.code = d.code AND h.level = {level}").fetchall()
    return dict(rows)


def nodes(engine: Engine, coded: Coded, level: int) -> list[tuple[str, int, int, float]]:
    """The nodes of ``level`` in code order: (label, lo, hi, distortion)."""
    return engine.execute(f"SELECT DISTINCT label, lo, hi, distortion FROM {coded.hier} WHERE level = {level} "
                          "ORDER BY lo").fetchall()
