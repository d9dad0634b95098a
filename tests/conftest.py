"""Shared fixtures: a fresh in-memory DuckDB per test, the bundled Adult data, and one local
Spark session per process for its Spark tests (``spark``; a session costs about ten seconds
to start; its catalog's files in ``warehouse``). Without pyspark or Java the tests that ask
for ``spark`` are skipped; ``pytest -m 'not spark'`` leaves them out. The session runs with
:data:`SPARK_FOR_TESTS`."""

from __future__ import annotations

import importlib.util
import os
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


#: Spark settings for the tests' small tables (a few thousand rows, hundreds of short statements):
#: there a statement's cost is the JVM compiling, Spark's generated code and the JIT's, not the
#: rows (a Mondrian release on Adult took as long on 3,000 of its rows as on all 30,162). No
#: whole-stage code generation, no adaptive re-planning, the JIT's first tier only and one GC
#: thread: a Mondrian release with seven models went from 148 s to 103 s; the demo's command
#: line on Spark used 154 s of the JVM's CPU with them against 238 s. They change how Spark
#: computes, never what. The command lines the tests start read them as a team's
#: ``spark-defaults.conf`` (:func:`spark_defaults`, :func:`pytest_configure`).
SPARK_FOR_TESTS = {"spark.sql.codegen.wholeStage": "false", "spark.sql.adaptive.enabled": "false",
                   "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=256m"}


def spark_defaults(folder: Path, **settings: str) -> dict[str, str]:
    """The environment of a process whose ``SPARK_CONF_DIR`` is ``folder``, its
    ``spark-defaults.conf`` holding :data:`SPARK_FOR_TESTS` and then ``settings`` (a team's)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spark-defaults.conf").write_text("# a team's settings\n" + "".join(
        f"{key} {value}\n" for key, value in {**SPARK_FOR_TESTS, **settings}.items()))
    return {**os.environ, "SPARK_CONF_DIR": str(folder)}


def pytest_configure(config):
    """Every Spark session a test's command line starts (``anonymizer ... --engine spark``,
    ``spark-submit``) reads :data:`SPARK_FOR_TESTS` from ``spark-defaults.conf`` in
    ``SPARK_CONF_DIR``, a folder of this process's, not a user's own."""
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="anonymizer-tests-spark-conf-"))
    os.environ.update(spark_defaults(folder))
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("spark") / "warehouse"


@pytest.fixture(scope="session")
def spark(warehouse):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("no Java: the Spark tests need a JRE (Java 17)")
    from anonymizer.engine.spark_session import session
    spark = session("local[2]", {"spark.sql.warehouse.dir": str(warehouse), "spark.sql.shuffle.partitions": "2",
                                   **SPARK_FOR_TESTS})
    yield spark
    spark.stop()


@pytest.fixture
def one_shuffle_partition(spark):
    """The session's shuffles in one partition for the test (restored after): for the releases
    whose order is total by construction (Mondrian's and the lattice searches' statements, the
    md5 draws), where a second partition costs the JVM about an eighth more CPU and tells
    nothing more. The families' releases, the versions across nights, the order attack and
    every command line keep two or more."""
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    yield
    spark.conf.set("spark.sql.shuffle.partitions", before)


@pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist: without it installed, never called
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (``-n auto``, the README's test command) the Spark tests run in
    piles of about equal time (:data:`SPARK_PILES`), each on one worker with one Spark session
    for the whole pile; the other tests go one by one to whichever worker is free. A Spark
    test's time is mostly its session's JVM planning, compiling and scheduling each statement
    (a Mondrian release on 3,000 rows: 89 s of the JVM's CPU in 72 s, 2 s of Python's), so the
    suite's time on two cores is the CPU all tests need; the piles only keep them from waiting
    on one another. (pytest-xdist's own ``--dist loadgroup`` cannot group on pytest 9: it
    rewrites ``item._nodeid``, which pytest 9 no longer reads.) A Spark test is one in a file
    named ``*spark*`` (every file marked ``spark`` is; tests/project/test_layout.py keeps it
    so)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SparkPiles(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::")[0]
            if not SPARK_FILE.search(path):
                return nodeid
            return f"spark-{SPARK_PILES.get(Path(path).name, 1)}"

    return SparkPiles(config, log)


@pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` for the whole suite where Spark runs: one worker per core and one more per
    Spark pile beyond the first, so that the other tests run beside the piles (see
    :func:`pytest_xdist_make_scheduler`); else pytest-xdist's own count (one per core, or
    ``PYTEST_XDIST_AUTO_NUM_WORKERS``)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.getoption("markexpr"):
        return None
    if shutil.which("java") is None or importlib.util.find_spec("pyspark") is None:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + len(set(SPARK_PILES.values()) | {1}) - 1


#: the test files of the Spark tests (module docstring of :func:`pytest_xdist_make_scheduler`)
SPARK_FILE = re.compile(r"(^|/)test_[^/]*spark[^/]*\.py$")
#: the pile of each Spark test file (one not named here: the first), two piles of about equal
#: time, chosen by the files' times in one pile: the releases of every family and algorithm;
#: the guide's walk, the versions across nights, spark-submit and the bench. (Three piles on
#: two cores took longer, 2,128 s against 2,035: the sessions compute more than they wait, and
#: the third starved the worker that runs the other tests.)
SPARK_PILES = {"test_spark_docs.py": 2, "test_versions_spark.py": 2, "test_spark_submit.py": 2,
               "test_spark_cluster.py": 2, "test_spark_order.py": 2, "test_spark_parse.py": 2,
               "test_bench_spark.py": 2, "test_spark_connect.py": 2}
