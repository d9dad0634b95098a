"""``anonymizer bench <target>``: JSON lines per run, and each target with only its own
options (``bench release`` runs in tests/bench/test_bench_release.py, ``bench spark`` in tests/bench/test_bench_spark.py)."""

from __future__ import annotations

import json

import pytest

from anonymizer.cli.bench import bench
from anonymizer.cli.reproduce import p003


def test_bench_prints_json_lines(invoke):
    for kind in ("mondrian", "k-check"):
        res = invoke("bench", kind, "--rows", 3000, "--repeat", 1, "--k", 5)
        assert res.exit_code == 0, res.output
        line = json.loads(res.output.strip().splitlines()[-1])
        assert line["rows"] == 3000 and line["bench"] == kind
        assert {"seconds", "scan_seconds", "ratio", "peak_mb"} <= set(line)


@pytest.mark.parametrize("target, own, foreign", [
    ("mondrian", ["--rows", "--k", "--qis", "--repeat"], ["--algorithm", "--dims", "--memory-limit", "--data"]),
    ("k-check", ["--rows", "--k", "--qis", "--repeat"], ["--algorithm", "--quiet"]),
    ("release", ["--rows", "--k", "--memory-limit", "--data-dir", "--quiet", "--algorithm"], ["--qis"]),
    ("msb", ["--algorithm", "--dims", "--batch"], ["--k", "--model", "--l"]),
    ("lgb", ["--algorithm", "--k"], ["--dims", "--qis", "--model"]),
    ("ir", ["--algorithm", "--l", "--model", "--qis"], ["--k", "--dims", "--batch"]),
    ("macros", ["--rows", "--qis", "--repeat"], ["--k", "--algorithm"]),
    ("lattice", ["--data", "--rows", "--repeat"], ["--k", "--qis", "--algorithm"]),
    ("recursive", ["--rows", "--repeat", "--loop", "--json"], ["--k", "--algorithm"]),
    ("spark", ["--rows", "--repeat", "--k", "--master", "--conf", "--data-dir", "--json", "--quiet"],
     ["--qis", "--algorithm", "--memory-limit"]),
    ("history", ["--rows", "--versions", "--churn", "--change", "--k", "--l", "--family", "--plot"],
     ["--repeat", "--algorithm"]),
])
def test_each_target_takes_only_its_own_options(invoke, target, own, foreign):
    options = invoke("bench", target, "--help").output.split("Options:")[1]
    assert all(f"  {o} " in options or f"  {o}," in options or f", {o} " in options for o in own), options
    assert not any(f" {o} " in options for o in foreign), options
    res = invoke("bench", target, foreign[0], "1")
    assert res.exit_code == 2 and f"No such option {foreign[0]}" in res.output.replace("'", "").replace(":", "")


def test_bench_lattice_is_paper_003s_grid():
    assert bench.commands["lattice"] is p003


def test_an_algorithm_outside_the_targets_choices_is_refused(invoke):
    res = invoke("bench", "msb", "--algorithm", "lgb-mdp")
    assert res.exit_code == 2 and "--algorithm" in res.output


def test_bench_recursive_times_both_forms_of_a_loop(invoke):
    res = invoke("bench", "recursive", "--rows", 1500, "--repeat", 1, "--loop", "mondrian", "--json")
    assert res.exit_code == 0, res.output
    runs = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert {(r["data"], r["form"]) for r in runs} == {(d, f) for d in ("adult", "synthetic", "distinct")
                                                       for f in ("python", "recursive")}
    by = {(r["data"], r["form"]): r for r in runs}
    for data in ("adult", "synthetic", "distinct"):   # the two forms find the same classes
        assert by[data, "python"]["classes"] == by[data, "recursive"]["classes"] > 0
    assert all(r["bench"] == "recursive" and r["loop"] == "mondrian" and r["seconds"] > 0 and r["scan_seconds"] > 0
               for r in runs)


def test_release_bench_tables_show_every_run(invoke):
    res = invoke("bench", "lgb", "--rows", 2000, "--repeat", 1, "--algorithm", "lgb-mdp", "--k", 3)
    assert res.exit_code == 0, res.output
    line = json.loads(res.stdout.strip().splitlines()[0])
    assert line["bench"] == "lgb" and line["rows"] == 2000 and line["algorithm"] == "lgb-mdp"
    assert {"seconds", "scan_seconds", "ratio", "peak_mb", "steps", "suppressed", "groups"} <= set(line)
    table = res.output.strip().splitlines()[-2:]
    assert table[0].split()[:3] == ["rows", "algorithm", "seconds"] and table[1].split()[:2] == ["2000", "lgb-mdp"]


@pytest.mark.parametrize("conf", ["spark.driver.memory", "=4g"])
def test_bench_spark_refuses_a_conf_without_key_and_value(invoke, conf):
    res = invoke("bench", "spark", "--rows", 10, "--conf", conf)   # refused before Spark starts
    assert res.exit_code == 2 and "must be key=value" in res.output


@pytest.mark.slow
def test_bench_history_releases_each_night_both_ways(invoke, tmp_path):
    plot = tmp_path / "nights.png"
    res = invoke("bench", "history", "--rows", 3000, "--versions", 3, "--churn", 0.05, "--plot", plot)
    assert res.exit_code == 0, res.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"plot written to {plot}" in res.output
    runs = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [r["version"] for r in runs] == [1, 2, 3] and all(r["scan_seconds"] > 0 for r in runs)
    for r in runs[1:]:   # the invariant versions isolate no one; counterfeits hold the leavers' places
        assert r["invariant"]["isolated"] == 0 and r["invariant"]["counterfeits"] > 0
        assert r["invariant"]["suppressed"] == r["independent"]["counterfeits"] == 0
    assert sum(r["independent"]["isolated"] for r in runs) > 0
    assert res.output.strip().splitlines()[-5].split()[:3] == ["version", "rows", "scan"]
    assert invoke("bench", "history", "--churn", "inf").exit_code == 2


@pytest.mark.slow
def test_bench_history_releases_anatomy_too(invoke):
    res = invoke("bench", "history", "--family", "anatomy", "--rows", 3000, "--versions", 3, "--churn", 0.05)
    assert res.exit_code == 0, res.output
    runs = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [r["family"] for r in runs] == ["anatomy"] * 3
    for r in runs[1:]:
        assert r["invariant"]["isolated"] == r["invariant"]["below_l"] == 0 and r["invariant"]["counterfeits"] > 0
    assert sum(r["independent"]["below_l"] + r["independent"]["isolated"] for r in runs) > 0


@pytest.mark.slow
def test_bench_history_releases_identity_reserved_patients_too(invoke):
    """Paper 004's patients (``--rows`` counts records): GeneIR under EIR l-diversity; the
    invariant versions publish counterfeit individuals for the leavers and isolate no one."""
    res = invoke("bench", "history", "--family", "identity_reserved", "--rows", 9000, "--versions", 3,
                 "--churn", 0.05, "--change", 0.02)
    assert res.exit_code == 0, res.output
    runs = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [r["family"] for r in runs] == ["identity_reserved"] * 3 and runs[0]["rows"] > 8000
    for r in runs[1:]:
        assert r["invariant"]["isolated"] == r["invariant"]["below_l"] == 0 and r["invariant"]["counterfeits"] > 0
        assert r["invariant"]["loss"] > 0
    assert sum(r["independent"]["below_l"] + r["independent"]["isolated"] for r in runs) > 0
