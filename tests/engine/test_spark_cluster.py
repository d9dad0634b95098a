"""Spark as a cluster runs it (issue 58): a standalone master and two workers on 127.0.0.1,
started from pyspark's own ``spark-class`` and stopped by PID; releases sent with
``spark-submit --master spark://...``. A submit whose catalog cannot hold a release (Spark's
in-memory catalog, or the warehouse left at Spark's default on the driver's disk) is refused
in one line before any work; with a catalog every executor and the next submit see, two
versions publish DuckDB's releases. Marked ``spark``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import yaml

import anonymizer.cli
from anonymizer.api import anonymize
from tests.conftest import spark_defaults
from tests.engine.test_spark_submit import parts

pytestmark = pytest.mark.spark
pyspark = pytest.importorskip("pyspark")
HOME = Path(pyspark.__file__).parent
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(env: dict[str, str], log: Path, *args: str) -> subprocess.Popen:
    """One daemon of the standalone cluster (``spark-class CLASS ARGS``), in a process group of
    its own so that stopping it stops its JVM."""
    with log.open("w") as out:
        return subprocess.Popen([str(HOME / "bin" / "spark-class"), *args], env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``spark://127.0.0.1:PORT``: a master and two workers of one core and 1 GB each."""
    root = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_HOME": str(HOME), "SPARK_LOG_DIR": str(root), "SPARK_WORKER_DIR": str(root)}
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    daemons = [start(env, root / "master.log", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                     "--port", str(port), "--webui-port", str(free_port()))]
    try:
        for w in range(2):
            daemons.append(start(env, root / f"worker{w}.log", "org.apache.spark.deploy.worker.Worker",
                                 "--host", "127.0.0.1", "--cores", "1", "--memory", "1g", "--webui-port",
                                 str(free_port()), "--work-dir", str(root / f"work{w}"), url))
        deadline = time.monotonic() + 120
        while (root / "master.log").read_text().count("Registering worker") < 2:
            assert time.monotonic() < deadline, (root / "master.log").read_text()[-3000:]
            assert all(d.poll() is None for d in daemons), "a daemon of the cluster stopped"
            time.sleep(0.5)
        yield url
    finally:
        for d in daemons:
            os.killpg(d.pid, signal.SIGTERM)
        for d in daemons:
            d.wait(timeout=60)


def submit(tmp_path: Path, url: str, *args: str, conf: tuple[str, ...] = (),
           main: Path = Path(anonymizer.cli.__file__).with_name("__main__.py"),
           timeout: int = 900, command: tuple[str, ...] = ("run", "people.yml")) -> subprocess.CompletedProcess:
    """``spark-submit --master url [conf] MAIN ARGS`` in ``tmp_path``: by default the command
    line's ``anonymizer run people.yml [args]`` (``command``: another of its commands)."""
    env = {**os.environ, **spark_defaults(tmp_path / "conf"), "SPARK_HOME": str(HOME),
           "PYSPARK_PYTHON": sys.executable, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get(
               "PYTHONPATH")]))}
    args = (*command, *args) if main.name == "__main__.py" else args
    return subprocess.run([str(Path(sys.executable).with_name("spark-submit")), "--master", url,
                           "--conf", "spark.executor.memory=768m", *conf, str(main), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)


SPEC = {"release": "people", "columns": {"age": {"role": "quasi", "type": "numeric"},
                                         "edu": {"role": "quasi", "type": "numeric"}, "disease": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 5}], "engine": {"name": "spark"}, "output": {"view": "people"}}


def write_spec(tmp_path: Path) -> dict:
    spec = {**SPEC, "source": {"path": (tmp_path / "people").as_uri(), "format": "parquet", "table": "people"}}
    (tmp_path / "people.yml").write_text(yaml.safe_dump(spec))
    return spec


@pytest.mark.parametrize("conf, names", [((), "spark.sql.catalogImplementation=in-memory"),
                                         (("--conf", "spark.sql.catalogImplementation=hive"), "spark.sql.warehouse.dir")])
def test_a_catalog_the_cluster_cannot_share_is_refused_in_one_line_before_any_work(cluster, tmp_path, conf, names):
    parts(tmp_path / "people", 40)
    write_spec(tmp_path)
    done = submit(tmp_path, cluster, conf=conf)
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("error:")]
    assert len(said) == 1 and names in said[0] and "nothing was run" in said[0], said
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "spark-warehouse").exists()   # nothing staged on the driver's disk


def test_two_versions_on_the_cluster_are_duckdbs_releases(cluster, tmp_path):
    """With a catalog every executor and the next submit see (here ``--spark-warehouse`` on a
    folder they share), the release publishes DuckDB's classes; a second submit, another
    application, finds the first version in that catalog and publishes the second (forced:
    the same rows; new rows that would isolate people across versions are refused on both
    engines alike, tests/privacy)."""
    duck = duckdb.connect(str(tmp_path / "duck.duckdb"))
    parts(tmp_path / "people", 60)
    spec = write_spec(tmp_path)
    for version, force in ((1, ()), (2, ("--force",))):
        done = submit(tmp_path, cluster, "--spark-warehouse", str(tmp_path / "team"), "--json", *force)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        released = json.loads(done.stdout)
        on_duckdb = anonymize({k: v for k, v in spec.items() if k != "engine"}, con=duck, force=bool(force))
        assert (released["version"], released["rows_out"], released["classes"], released["measures"]["k"]) == \
            (version, 60, on_duckdb.classes, on_duckdb.measures["k"]) == \
            (on_duckdb.version, on_duckdb.rows_out, on_duckdb.classes, on_duckdb.measures["k"])
        assert released["algorithm"]["rounds_engine"] == "duckdb"   # the rounds ran on the driver
    assert not (tmp_path / "spark-warehouse").exists()


def test_the_demo_runs_on_the_cluster(cluster, tmp_path):
    """``anonymizer demo --engine spark`` under ``spark-submit``: Adult reaches the executors as
    data from the driver (before: a Parquet file in the driver's temporary folder), and the demo
    publishes DuckDB's release (docs/spark.md: 225 classes, 30,162 rows, k = 10)."""
    done = submit(tmp_path, cluster, "--engine", "spark", "--spark-warehouse", str(tmp_path / "team"), "--json",
                  command=("demo",), timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip(), done.stderr[-5000:]
    released = json.loads(done.stdout)
    assert (released["rows_out"], released["classes"], released["measures"]["k"]) == (30162, 225, 10)
    assert not (tmp_path / "spark-warehouse").exists()


def test_every_familys_example_publishes_two_versions_on_the_cluster_as_on_duckdb(cluster, tmp_path):
    """One application on the cluster (``tests/engine/cluster_releases.py``, with the team's
    shared catalog): each family's example (Mondrian; MSB's MMDCF-MSLF; LGB_MDP; DAnonyIR,
    each seeded) publishes two versions, each with DuckDB's rows, suppression, classes and
    model figures."""
    from tests.engine.cluster_releases import releases, sources
    done = submit(tmp_path, cluster, str(tmp_path / "out.json"), str(tmp_path / "team"),
                  conf=("--conf", "spark.sql.shuffle.partitions=2"),   # small tables: the tests' sessions run without
                  main=ROOT / "tests" / "engine" / "cluster_releases.py",   # adaptive execution, which would merge them
                  timeout=2400)   # 337 s alone here, past 900 s beside the rest of the suite
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    on_cluster = json.loads((tmp_path / "out.json").read_text())
    duck = duckdb.connect()
    sources(duck)
    on_duckdb = releases(duck)
    assert [(r["family"], r["version"]) for r in on_cluster] == [(f, v) for f in ("generalized", "anatomy", "lgb",
                                                                                    "identity_reserved") for v in (1, 2)]
    for ours, theirs in zip(on_cluster, on_duckdb):
        theirs["models"] = [[m, pytest.approx(f, rel=1e-9) if isinstance(f, float) else f] for m, f in theirs["models"]]
        assert ours == theirs
    assert not (tmp_path / "spark-warehouse").exists()
