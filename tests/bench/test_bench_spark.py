"""``anonymizer bench spark`` on a tiny size: the same release on DuckDB and on local Spark,
every figure of the table and the JSON there, and both engines find the same classes (the big
sizes are commands, not tests: see the README's "On Apache Spark" section). Marked ``spark``:
it needs Java 17 and pyspark (``pytest -m 'not spark'`` skips it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("no Java: the Spark tests need a JRE (Java 17)", allow_module_level=True)

from anonymizer.bench.release import PHASES  # noqa: E402
from anonymizer.bench.spark import format_spark_bench  # noqa: E402
from anonymizer.bench.spark_floor import OPS, floor_seconds  # noqa: E402

pytestmark = pytest.mark.spark

FIELDS = {"bench", "rows", "engine", "seconds", "runs", "scan_seconds", "ratio", "spark_duckdb", "scan_spark_duckdb",
          "steps", "rounds", "round_seconds", "classes", "same_classes", "statements", "jobs", "job_seconds", "round_rows",
          "rounds_engine", "peak_mb", "memory", "generate_seconds", "load_seconds", "passes", "shuffle", "busy"}


def test_a_tiny_spark_bench_gives_both_engines_the_same_classes(tmp_path):
    # in a process of its own: the bench starts its own session, and the other Spark tests'
    # session (tests/conftest.py) may be running in this one
    done = subprocess.run([sys.executable, "-m", "anonymizer.cli", "bench", "spark", "--rows", "1000", "--repeat",
                           "1", "--json", "--data-dir", str(tmp_path), "--conf", "spark.sql.shuffle.partitions=2", "--floor"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = [json.loads(line) for line in done.stdout.strip().splitlines()]
    assert [(r["engine"], r["rows"]) for r in runs] == [("duckdb", 1000), ("spark", 1000)]
    duck, spark = runs
    assert all(FIELDS <= set(r) for r in runs), [FIELDS - set(r) for r in runs]
    assert duck["classes"] == spark["classes"] > 0 and duck["rounds"] == spark["rounds"] > 0
    assert duck["same_classes"] and spark["same_classes"]
    for r in runs:
        assert len(r["runs"]) == 1 and r["seconds"] > 0 and r["scan_seconds"] > 0
        assert r["ratio"] == pytest.approx(r["seconds"] / r["scan_seconds"], rel=0.1)
        assert set(r["steps"]) == set(PHASES) and sum(r["steps"].values()) <= r["seconds"] + 0.1
    assert duck["spark_duckdb"] == 1.0 and spark["spark_duckdb"] == pytest.approx(spark["seconds"] / duck["seconds"],
                                                                                 rel=0.1)
    assert duck["jobs"] is None and duck["statements"] is None and duck["load_seconds"] is None
    assert spark["jobs"] > 0 and spark["statements"] >= spark["rounds"] and spark["load_seconds"] > 0
    # what the executors did, from Spark's status store (anonymizer/bench/spark_stages.py): the source read at
    # least once, some bytes shuffled, the cores busy part of the time; each target judged on the figure printed
    assert spark["passes"] >= 1 and spark["shuffle"] > 0 and 0 < spark["busy"] <= 1.05 and spark["cores"] == 2
    assert duck["passes"] is None and "targets" not in duck and duck["model"] is None
    # the model: the release's seconds on 1 to 64 executors; more executors never cost more, and the
    # time outside the stages (the driver's) is a floor no executor count goes below
    model, staged = spark["model"]["seconds"], spark["model"]["stages"]
    assert list(model) == ["1", "2", "4", "8", "16", "32", "64"]   # JSON's keys
    assert all(a >= b for a, b in zip(list(model.values()), list(model.values())[1:]))
    assert all(0 <= staged[e] <= model[e] for e in model)
    goals = spark["targets"]
    assert goals["jobs"] == {"value": spark["jobs"], "bound": spark["rounds"] + 20,
                             "met": spark["jobs"] <= spark["rounds"] + 20}
    assert goals["passes"]["met"] == (spark["passes"] <= 4) and goals["busy"]["met"] == (spark["busy"] >= 0.5)
    assert spark["master"] == "local[2]" and 50 < duck["peak_mb"] < 4000
    assert spark["codec"] == "zstd" and "codec" not in duck   # the session's default (engine/spark_session.py)
    # the driver JVM's memory is measured here (Linux, a JVM pyspark started), said so when it is not
    assert spark["peak_mb"] > 100 if spark["memory"].startswith("driver JVM") else spark["peak_mb"] is None
    assert not list(tmp_path.glob("adult_like_*"))   # the source's DuckDB file and Parquet copy are gone
    # both engines run the rounds as one recursive statement: Spark's on its driver, over the cells
    assert duck["round_rows"] is None and spark["round_rows"] is None and spark["rounds_engine"] == "duckdb"
    # the floor: every essential operation timed on both engines; the rounds ran on no engine's rows
    for r in runs:
        assert list(r["floor_ops"]) == list(OPS) and all(v > 0 for v in r["floor_ops"].values())
        assert 0 < r["floor_seconds"] == floor_seconds(r["floor_ops"], 1000, None)
        assert r["floor_seconds"] == round(sum(r["floor_ops"][op] for op in ("collapse", "classes", "publish",
                                                                               "verify")), 2)
    assert floor_seconds(spark["floor_ops"], 1000, [1000, 600]) > spark["floor_seconds"]   # rounds over rows add
    assert "floor_duckdb" not in duck and spark["floor_duckdb"] == round(spark["floor_seconds"] / duck["seconds"], 2)
    table = format_spark_bench(runs).splitlines()
    assert table[0].split()[:4] == ["rows", "engine", "release", "s"]
    assert [line.split()[:2] for line in table[1:3]] == [["1000", "duckdb"], ["1000", "spark"]]
    assert table[-8].startswith("peak MB: duckdb: process peak RSS") and table[-7].startswith("targets (jobs <=")
    assert table[-6].split()[:3] == ["1000", "spark", "jobs"] and "passes" in table[-6] and "busy" in table[-6]
    assert f"shuffle {goals['shuffle']['value']:g} (zstd) <= 3" in table[-6]
    assert table[-5].startswith("model (release s on E executors") and table[-4].split()[:4] == ["1000", "spark", "1:",
                                                                                                 f"{model['1']:.1f}"]
    assert table[-3].startswith("floor (median s")
    assert [line.split()[:3] for line in table[-2:]] == [["1000", "duckdb", "collapse"], ["1000", "spark", "collapse"]]
    assert table[-1].endswith("x DuckDB's release") and f"floor {spark['floor_seconds']:.2f}" in table[-1]
