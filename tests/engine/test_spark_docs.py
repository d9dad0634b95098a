"""The Spark guide (docs/spark.md) walked as a reader walks it (issue 56): its commands, as
written, in a fresh folder (two processes, each its own local Spark, sharing the catalog kept in
``wh``), then the same check and report on DuckDB's demo: the same figures, printed alike. The
``spark-submit`` line needs a cluster's launcher: its command is parsed (and
tests/engine/test_spark_submit.py runs the entry point it names). Marked ``spark``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.project.test_docs import ROOT, parsed
from tests.project.test_docs_walk import blocks, shell_lines

pytestmark = pytest.mark.spark


def run(args: list[str], cwd) -> subprocess.CompletedProcess:
    assert args[0] == "anonymizer", args
    return subprocess.run([sys.executable, "-m", "anonymizer.cli", *args[1:]], cwd=cwd, capture_output=True,
                          text=True, timeout=1200)


def test_the_spark_guide_runs_as_written(tmp_path):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("no Java: the Spark guide needs a JRE (Java 17)")
    lines = [line for kind, body in blocks(ROOT / "docs" / "spark.md") if kind == "bash" for line in shell_lines(body)]
    printed = {}
    for line in lines:
        for args in line:
            if args[:4] == ["python", "-m", "pip", "install"]:
                continue   # the package, installed (tests/project/test_docs.py checks the extra it names)
            if args[0] == "spark-submit":
                parsed(args[args.index(next(a for a in args if a.endswith("__main__.py"))) + 1:])
                continue
            res = run(args, tmp_path)
            assert res.returncode == 0, (args, res.stderr[-3000:])
            printed[args[1]] = res.stdout
    assert set(printed) == {"demo", "check", "report", "history"}
    assert (tmp_path / "adult_demo.html").stat().st_size > 10_000 and "reads v1" in printed["history"]
    # one catalog, in the folder the guide names; Derby's log, when it writes one, there too
    assert (tmp_path / "wh" / "metastore").is_dir()
    assert not (tmp_path / "derby.log").exists()
    # the same check of DuckDB's demo prints the same figures
    check = next(args for line in lines for args in line if args[1:2] == ["check"])
    on_duckdb = ["anonymizer", "check", "--db", "d.duckdb"] + [a for a in check[2:] if a not in (
        "--engine", "spark", "--spark-warehouse", "wh")]
    assert run(["anonymizer", "demo", "--db", "d.duckdb", "--quiet"], tmp_path).returncode == 0
    res = run(on_duckdb, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.replace("d.duckdb", "") == printed["check"].replace("wh", ""), (res.stdout, printed["check"])
    # the report reads the Spark release's audit as DuckDB's: the same figures
    figures = []
    for where in (["--engine", "spark", "--spark-warehouse", "wh"], ["--db", "d.duckdb"]):
        res = run(["anonymizer", "report", "adult_demo", "--version", "1", "--json", *where], tmp_path)
        assert res.returncode == 0, res.stderr[-3000:]
        found = json.loads(res.stdout)
        figures.append((found["rows_out"], found["suppressed"], found["figures"]["models"]))
    assert figures[0] == figures[1] and figures[0][0] == 30162
