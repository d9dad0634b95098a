"""Shared fixtures: a fresh in-memory DuckDB per test, and the bundled Adult data."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

DATA = Path(__file__).resolve().parents[1] / "anonymizer" / "data"
ARX = DATA / "arx_adult"


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


def arx_hierarchy(attr: str) -> str:
    """Path of ARX's hierarchy file for an Adult attribute."""
    return str(ARX / f"adult_hierarchy_{attr}.csv")


@pytest.fixture
def arx_adult(con):
    """The 30,162-row ARX Adult table as table `adult` (columns as in ARX's adult.csv)."""
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    return con
