"""What each engine declares it can do (:mod:`anonymizer.engine.capabilities`), asked by the
pipeline and the families instead of the engine's name."""

from __future__ import annotations

import dataclasses

import duckdb
import pytest

from anonymizer.engine.backend import engine_for
from anonymizer.engine.capabilities import DUCKDB, SPARK, Capabilities
from anonymizer.engine.session import Engine
from anonymizer.engine.spark import SparkEngine


def test_each_engine_declares_its_capabilities():
    with duckdb.connect() as con:
        engine = engine_for(con)
        assert type(engine) is Engine and engine.capabilities is DUCKDB and engine.name == "duckdb"
    assert SparkEngine.capabilities is SPARK and SparkEngine.name == "spark"
    assert DUCKDB != SPARK
    with pytest.raises(dataclasses.FrozenInstanceError):
        DUCKDB.rowid = False   # type: ignore[misc]


@pytest.mark.parametrize(("recursive", "asof_inside", "asof", "one"), [
    (True, False, False, True), (True, False, True, False), (True, True, True, True), (False, True, False, False)])
def test_a_loop_runs_as_one_statement_where_the_engine_can(recursive, asof_inside, asof, one):
    """LGB's local bucketization and Mondrian's rounds: one recursive CTE where the engine has
    them and, for an ASOF join's checks, takes one inside (DuckDB 2.0 does not)."""
    can = dataclasses.replace(DUCKDB, recursive_loops=recursive, asof_in_recursive=asof_inside)
    assert isinstance(can, Capabilities) and can.one_statement(asof) is one
    assert DUCKDB.one_statement() and not DUCKDB.one_statement(asof=True) and not SPARK.one_statement()
