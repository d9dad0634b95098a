"""Shared fixtures: a fresh in-memory DuckDB per test, the bundled Adult data, and one local
Spark session for every Spark test of the run (``spark``; a session costs about ten seconds
to start; its catalog's files in ``warehouse``). Without pyspark or Java the tests that ask
for ``spark`` are skipped; ``pytest -m 'not spark'`` leaves them out."""

from __future__ import annotations

import re
import shutil
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


def flat(figures: dict, prefix: str = "") -> dict:
    """Nested figures as one level (``{"ncp_per_qi": {"age": x}}`` -> ``{"ncp_per_qi.age": x}``),
    which ``pytest.approx`` compares."""
    out = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def arx_hierarchy(attr: str) -> str:
    """Path of ARX's hierarchy file for an Adult attribute."""
    return str(ARX / f"adult_hierarchy_{attr}.csv")


@pytest.fixture
def arx_adult(con):
    """The 30,162-row ARX Adult table as table `adult` (columns as in ARX's adult.csv)."""
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    return con


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("spark") / "warehouse"


@pytest.fixture(scope="session")
def spark(warehouse):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("no Java: the Spark tests need a JRE (Java 17)")
    from anonymizer.engine.spark import session
    spark = session("local[2]", {"spark.sql.warehouse.dir": str(warehouse), "spark.sql.shuffle.partitions": "2"})
    yield spark
    spark.stop()


@pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist: without it installed, never called
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (``-n auto``, the README's test command) every Spark test runs on one
    worker: one Spark session serves them all, not one JVM per worker fighting for the cores;
    the other tests go one by one to whichever worker is free. (pytest-xdist's own
    ``--dist loadgroup`` cannot group on pytest 9: it rewrites ``item._nodeid``, which
    pytest 9 no longer reads.) A Spark test is one in a file named ``*spark*`` (every file
    marked ``spark`` is; tests/project/test_layout.py keeps it so)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SparkTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "spark" if SPARK_FILE.search(nodeid.split("::")[0]) else nodeid

    return SparkTogether(config, log)


#: the test files of the Spark tests (module docstring of :func:`pytest_xdist_make_scheduler`)
SPARK_FILE = re.compile(r"(^|/)test_[^/]*spark[^/]*\.py$")
