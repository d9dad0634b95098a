"""``anonymizer bench arx-grid``: the grid's configurations, one run in a fresh process, and the
table's verdicts (issue 21)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from anonymizer.bench.arx import ARX, QIS, configs, format_arx_grid
from anonymizer.cli import main


def test_the_grid_is_the_issues_table():
    names = [c.name for c in configs()]
    assert len([n for n in names if n.startswith("optimal")]) == 12
    assert "t-closeness t=0.2 s=2%" in names
    assert {f"local k={k}" for k in (2, 5, 10, 20, 50, 100)} <= set(names)
    assert {f"local k={k} l=3" for k in (2, 5, 10, 20, 50, 100)} <= set(names)
    assert set(ARX) <= set(names)
    spec = configs(("t-closeness",))[0].spec()
    assert spec["columns"]["occupation"]["role"] == "sensitive" and spec["suppression_limit"] == 0.02


def test_one_configuration_runs_in_its_own_process():
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--group", "t-closeness", "--repeat", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    line = json.loads(result.stdout.splitlines()[0])
    # ARX's node for this configuration (issue 21), with its 235 suppressed rows
    assert line["node"] == {"age": 4, "sex": 1, "race": 1, "marital-status": 1, "education": 3,
                            "native-country": 1, "workclass": 2, "salary-class": 1}
    assert line["suppressed"] == 235 and line["checks"] < 200
    assert line["whole"] >= line["in_process"] > 0
    table = format_arx_grid([line])
    assert "t-closeness t=0.2 s=2%" in table and f"{ARX[line['config']]['whole']:.2f}" in table


def test_verdicts_say_behind_when_behind():
    line = {"config": "local k=50", "group": "local", "whole": 20.0, "in_process": 19.0, "algorithm_seconds": 18.0,
            "loss": 0.2, "suppressed": 0, "arx": ARX["local k=50"]}
    table = format_arx_grid([line])
    assert "SLOWER" in table and "ALGO > 2x JVM" in table and "LOSS > ARX" in table
    ahead = format_arx_grid([dict(line, whole=1.0, algorithm_seconds=0.5, loss=0.1)])
    assert "faster, algo <= 2x JVM, loss <= ARX" in ahead


def test_the_table_says_when_the_two_sides_publish_different_forms():
    """Issue 57: a loss compared across forms is said to be so, in the row and under the table."""
    line = {"config": "local k=50", "group": "local", "whole": 1.0, "in_process": 0.9, "algorithm_seconds": 0.5,
            "loss": 0.08, "suppressed": 0, "arx": ARX["local k=50"], "form": "value sets and ranges"}
    table = format_arx_grid([line])
    assert "loss <= ARX (other form)" in table
    assert table.splitlines()[-1].startswith("local: ours publishes each class's value sets and ranges, ARX hierarchy")
    same = format_arx_grid([dict(line, form="hierarchy nodes")])
    assert "other form" not in same and "different published forms" not in same
    assert {c.group: c.algorithm["name"] for c in configs(("local", "local-models"))} == {"local": "top-down",
                                                                                        "local-models": "top-down"}


def test_a_safepub_configuration_is_judged_by_the_median_of_its_releases():
    """Issue 60: SafePub beside ARX's, each run a fresh random release, both runs' tables measured."""
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--config", "safepub eps=1", "--repeat", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    line = json.loads(result.stdout.splitlines()[0])
    assert line["group"] == "safepub" and len(line["losses"]) == 2 and line["node"].keys() == set(QIS)
    assert line["loss"] == sum(line["losses"]) / 2 and abs(line["loss"] - line["release_loss"]) < 1e-9
    assert 0.5 < line["loss"] < 0.8 and line["suppressed"] > 0   # about 40 % of the rows not sampled at ε = 1
    table = format_arx_grid([line])
    assert "stored figures measured 2026-12-01 (not live)" in table and "x ARX" in table.splitlines()[-1]
