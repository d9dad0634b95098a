"""The command line on a Spark Connect server (issue 58): a server started here from pyspark's
own ``spark-submit`` (its ``SparkConnectServer`` class, bound to 127.0.0.1), and ``anonymizer``
as its client, as a team runs it against a shared server (``--spark-remote sc://...``, or
``SPARK_REMOTE`` as pyspark reads it). Two versions publish DuckDB's release, ``anonymizer
history`` reads them back, and what cannot be combined with a server is refused in one line
before any work. Marked ``spark``; needs pyspark's ``connect`` extra (grpcio)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import yaml

from anonymizer.api import anonymize
from anonymizer.spec.parse import load_spec
from tests.engine.test_spark_cluster import free_port

pytestmark = pytest.mark.spark
pyspark = pytest.importorskip("pyspark")
pytest.importorskip("grpc")
HOME = Path(pyspark.__file__).parent


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``sc://127.0.0.1:PORT``: a Spark Connect server on ``local[2]`` whose catalog (in memory)
    lives as long as it runs; stopped by its process group at the end."""
    root = tmp_path_factory.mktemp("connect")
    port = free_port()
    env = {**os.environ, "SPARK_HOME": str(HOME), "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_REMOTE", None)
    log = root / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(HOME / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--master", "local[2]", "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", "spark.ui.enabled=false",
             "--conf", f"spark.sql.warehouse.dir={root / 'warehouse'}", "--conf", "spark.sql.shuffle.partitions=2"],
            cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while "Spark Connect server started" not in log.read_text():
            assert time.monotonic() < deadline and process.poll() is None, log.read_text()[-3000:]
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


SPEC = {"release": "people", "columns": {"age": {"role": "quasi", "type": "numeric"},
                                         "edu": {"role": "quasi", "type": "numeric"}, "disease": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 6}, {"type": "distinct-l-diversity", "l": 3, "sensitive": "disease"}],
        "output": {"view": "people"}}


@pytest.fixture
def job(tmp_path) -> Path:
    duckdb.sql("SELECT 18 + (i * 37) % 60 AS age, (i * 13) % 16 AS edu, ['flu', 'cold', 'hiv', 'ulcer'][1 + (i * 7) % 4] "
               "AS disease FROM range(500) t(i)").write_parquet(str(tmp_path / "people.parquet"))
    spec = {**SPEC, "source": {"path": str(tmp_path / "people.parquet"), "table": "people"}}
    (tmp_path / "people.yml").write_text(yaml.safe_dump(spec))
    return tmp_path


def cli(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "anonymizer.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, **(env or {})})


def test_two_versions_on_a_connect_server_are_duckdbs_release_and_history_reads_them(server, job):
    first = cli(job, "run", "people.yml", "--engine", "spark", "--spark-remote", server, "--json")
    assert first.returncode == 0, first.stderr[-3000:]
    again = cli(job, "run", "people.yml", "--engine", "spark", "--force", "--json", env={"SPARK_REMOTE": server})
    assert again.returncode == 0, again.stderr[-3000:]
    one, two = (json.loads(done.stdout.strip().splitlines()[-1]) for done in (first, again))
    on_duckdb = anonymize(load_spec(yaml.safe_load((job / "people.yml").read_text()), base_dir=job))
    for published in (one, two):
        assert (published["classes"], published["rows_out"], published["measures"]["k"]) == \
            (on_duckdb.classes, on_duckdb.rows_out, on_duckdb.measures["k"])
        assert published["algorithm"]["rounds_engine"] == "duckdb"   # the rounds on the client's driver side
    assert (one["version"], two["version"]) == (1, 2)
    history = cli(job, "history", "people", "--engine", "spark", "--spark-remote", server, "--json")
    assert history.returncode == 0, history.stderr[-3000:]
    versions = json.loads(history.stdout)["versions"]
    assert [v["version"] for v in versions] == [1, 2] and all("spark" in v["engine_version"] for v in versions)
    assert not list(job.glob("anonymizer-spark*")) and not (job / "spark-warehouse").exists()   # nothing local


@pytest.mark.parametrize("args, message", [
    (("--spark-master", "local[2]"), "engine.remote: a Spark Connect server (sc://"),
    (("--spark-warehouse", "wh"), "leave out the warehouse"),
])
def test_what_a_server_decides_is_refused_beside_it_in_one_line(server, job, args, message):
    done = cli(job, "run", "people.yml", "--engine", "spark", "--spark-remote", server, *args)
    said = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 2 and len(said) == 1 and message in said[0], done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_a_format_the_server_has_no_source_for_is_refused_before_any_work(server, job):
    spec = yaml.safe_load((job / "people.yml").read_text())
    (job / "delta.yml").write_text(yaml.safe_dump({**spec, "release": "in_delta",
                                                   "output": {"view": "in_delta", "format": "delta"}}))
    done = cli(job, "run", "delta.yml", "--engine", "spark", "--spark-remote", server)
    said = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 2 and len(said) == 1 and "output.format" in said[0] and "'delta'" in said[0], \
        done.stderr[-2000:]
    listed = cli(job, "history", "in_delta", "--engine", "spark", "--spark-remote", server)
    assert listed.returncode != 0 and "Traceback" not in listed.stderr   # nothing was published
