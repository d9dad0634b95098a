"""``anonymizer bench arx-grid --arx-jar JAR`` (issue 57): ARX run live, each run taking turns
with one of ours, without ARX itself (CI has none): a stub ``org.deidentifier.arx.ARXAnonymizer``
in a jar and a stub driver that writes a known published table, compiled with javac here."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer.bench import arx, arx_live
from anonymizer.bench.arx import QIS, Config, format_arx_grid, run_arx_grid
from anonymizer.bench.arx_live import ARX_CLASS, arx_args
from anonymizer.cli import main

needs_javac = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None,
                                 reason="needs a JDK (javac and java)")

STUB_ARX = """package org.deidentifier.arx;
public class ARXAnonymizer { public static final String VERSION = "0-stub"; }
"""
#: writes the source with every QI but sex as '*' and its first row suppressed (ARX's form)
STUB_DRIVER = r"""
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class ArxBench {
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : args) a.put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        List<String> qis = Arrays.asList(a.get("qis").split(","));
        List<String> lines = Files.readAllLines(Paths.get(a.get("data")), StandardCharsets.UTF_8);
        String[] head = lines.get(0).split(";");
        boolean dp = "safepub".equals(a.get("mode"));   // as ArxBench: each SafePub run's table FILE-<run>
        String out = dp ? a.get("out").replace(".csv", "-0.csv") : a.get("out");
        try (PrintWriter w = new PrintWriter(out, "UTF-8")) {
            w.println(lines.get(0) + ";_outlier");
            for (int r = 1; r < lines.size(); r++) {
                String[] f = lines.get(r).split(";", -1);
                for (int c = 0; c < f.length; c++) if (qis.contains(head[c]) && !head[c].equals("sex")) f[c] = "*";
                w.println(String.join(";", f) + (r == 1 ? ";1" : ";0"));
            }
        }
        System.out.println("{\"tool\":\"ARX " + org.deidentifier.arx.ARXAnonymizer.VERSION + "\",\""
                           + (dp ? "anonymize_ms" : "cold_ms") + "\":250.0,\"suppressed\":1,"
                           + "\"transformations_checked\":7,\"classes\":2,\"out\":\""
                           + Paths.get(out).getFileName() + "\"}");
    }
}
"""


@pytest.fixture(scope="module")
def stub(tmp_path_factory) -> tuple[Path, Path]:
    """A jar holding only a stub ARXAnonymizer, and the stub driver's source."""
    if shutil.which("javac") is None:
        pytest.skip("needs javac")
    folder = tmp_path_factory.mktemp("stub_arx")
    source = folder / "src" / "org" / "deidentifier" / "arx" / "ARXAnonymizer.java"
    source.parent.mkdir(parents=True)
    source.write_text(STUB_ARX)
    subprocess.run(["javac", "-d", str(folder / "classes"), str(source)], check=True)
    jar = folder / "stub-arx.jar"
    with zipfile.ZipFile(jar, "w") as out:
        out.write(folder / "classes" / ARX_CLASS, ARX_CLASS)
    driver = folder / "driver" / "ArxBench.java"
    driver.parent.mkdir()
    driver.write_text(STUB_DRIVER)
    return jar, driver


def fake_ours(calls: list[str]):
    """Our side without a release: the source itself as its published table (loss 0)."""
    def run_config(config: Config, workdir: Path) -> dict:
        calls.append(config.name)
        published = workdir / "ours.csv"
        if not published.exists():
            with duckdb.connect() as con:
                con.execute("COPY (SELECT * FROM read_csv($src, delim = ';', header = true, all_varchar = true)) "
                            "TO $out (FORMAT csv, HEADER true)", {"src": str(arx._data("adult.csv.gz")),
                                                                  "out": str(published)})
        return {"whole": 0.5, "in_process": 0.4, "algorithm_seconds": 0.2, "release_loss": 0.0, "suppressed": 0,
                "classes": 30162, "node": None, "checks": None, "published": published}
    return run_config


@needs_javac
def test_the_live_grid_takes_turns_and_measures_both_tables_alike(stub, monkeypatch):
    jar, driver = stub
    calls: list[str] = []
    said: list[str] = []
    monkeypatch.setattr(arx, "run_config", fake_ours(calls))
    lines = list(run_arx_grid(("t-closeness",), repeat=2, say=said.append, arx_jar=jar, driver=driver))
    assert [s.split(": ", 1)[1].rsplit(" ", 2)[0] for s in said] == ["ours 1/2", "ARX 1/2", "ours 2/2", "ARX 2/2"]
    (line,) = lines
    assert line["arx_source"] == "live" and line["loss"] == 0.0 == line["release_loss"]
    got = line["arx"]
    rows, d = 30162, len(QIS)   # one row suppressed; 7 of the others' 8 cells at '*'
    assert got["loss"] == pytest.approx(((rows - 1) * 7 + d) / (rows * d), abs=1e-12)
    assert got["tool"] == "ARX 0-stub" and got["jvm"] == 0.25 and got["whole"] > 0 and got["runs"] == 2
    table = format_arx_grid(lines)
    assert "ARX 0-stub: live, interleaved" in table.splitlines()[0] and "not live" not in table


@needs_javac
def test_a_live_safepub_run_is_measured_on_its_numbered_table(stub, monkeypatch):
    jar, driver = stub
    monkeypatch.setattr(arx, "run_config", fake_ours([]))
    (line,) = run_arx_grid(("safepub",), repeat=1, arx_jar=jar, driver=driver, names=("safepub eps=1",))
    got = line["arx"]
    assert got["jvm"] == 0.25 and got["losses"] == [got["loss"]]
    assert got["loss"] == pytest.approx(((30162 - 1) * 7 + len(QIS)) / (30162 * len(QIS)), abs=1e-12)


@needs_javac
def test_the_command_says_live_in_its_heading_and_lines(stub, monkeypatch):
    jar, driver = stub
    monkeypatch.setattr(arx, "run_config", fake_ours([]))
    monkeypatch.setattr(arx_live, "driver_source", lambda: driver)
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--arx-jar", str(jar), "--group", "t-closeness",
                                       "--repeat", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["arx_source"] == "live"
    assert "live, interleaved" in result.stderr


def test_without_a_jar_the_heading_says_stored():
    line = {"config": "local k=5", "group": "local", "whole": 1.0, "in_process": 0.9, "algorithm_seconds": 0.5,
            "loss": 0.03, "release_loss": 0.03, "suppressed": 0, "arx_source": "stored", "arx": arx.ARX["local k=5"]}
    assert "stored figures measured 2026-11-24 (not live)" in format_arx_grid([line]).splitlines()[0]
    assert "DIFFER" in format_arx_grid([dict(line, release_loss=0.04)])


def test_the_driver_is_asked_for_each_configuration():
    named = {c.name: c for c in arx.configs()}
    assert arx_args(named["optimal k=5 s=2%"].models, 0.02, False) == ["mode=global", "k=5", "supp=0.02"]
    # local recoding keeps the GUI's first-step limit unless the configuration has one
    local = named["local k=10 t=0.2"]
    assert arx_args(local.models, local.suppression, local.local) == [
        "mode=local", "k=10", "tclose=equal:0.2", "sens=occupation"]
    limited = named["local k=50 s=2%"]
    assert arx_args(limited.models, limited.suppression, limited.local) == ["mode=local", "k=50", "supp=0.02"]
    assert arx_args(named["local k=2 l=2"].models, 0.0, True)[2:] == ["ldiv=distinct:2", "sens=occupation"]
    assert arx_args(named["local k=2 entropy-l=2"].models, 0.0, True)[2:] == ["ldiv=entropy:2", "sens=occupation"]
    assert arx_args(named["local k=10 s=5%"].models, 0.05, True) == ["mode=local", "k=10", "supp=0.05"]
    assert {f"local k={k} {m}" for k in (2, 5, 10, 50)
            for m in ("l=2", "entropy-l=2", "t=0.2", "s=2%", "s=5%")} <= set(named)
    assert all(c.algorithm == arx.OURS_LOCAL for c in named.values() if c.local)


def test_safepub_runs_both_tools_at_the_same_epsilon_and_delta():
    named = {c.name: c for c in arx.configs(("safepub",))}
    assert sorted(named) == ["safepub eps=0.5", "safepub eps=1", "safepub eps=2"]
    one = named["safepub eps=1"]
    assert arx_args(one.models, one.suppression, one.local, one.algorithm) == ["mode=safepub", "eps=1.0",
                                                                             "delta=1e-05"]
    spec = one.spec()   # QIs only, a budget of one release, no k or suppression limit of ours
    assert spec["algorithm"] == {"name": "safepub", "epsilon": 1.0, "delta": 1e-5}
    assert spec["budget"] == {"epsilon": 1.0, "delta": 1e-5} and spec["default_role"] == "identifier"
    assert "models" not in spec and "suppression_limit" not in spec
    assert {c for c, v in spec["columns"].items() if v["role"] == "quasi"} == set(QIS)
    from anonymizer.spec import parse_spec
    assert parse_spec(spec, Path(".")).algorithm.name == "safepub"


def test_a_random_release_is_judged_by_the_median_of_its_runs():
    runs = [{"whole": w, "in_process": w - 0.3, "algorithm_seconds": 0.2, "loss": loss, "release_loss": loss,
             "suppressed": 9, "classes": 3, "node": None, "checks": None}
            for w, loss in ((1.0, 0.70), (1.2, 0.60), (1.1, 0.65))]
    ours = arx._ours(runs)
    assert ours["loss"] == 0.65 and ours["losses"] == [0.70, 0.60, 0.65] and ours["whole"] == 1.1
    theirs = arx_live.summarize([{"whole": w, "jvm": 0.5, "loss": loss, "figures": {"tool": "ARX 3.9.2"}}
                                 for w, loss in ((4.0, 0.66), (4.6, 0.80), (4.4, 0.70))])
    assert theirs["loss"] == 0.70 and theirs["whole"] == 4.4
    line = dict(ours, config="safepub eps=1", group="safepub", arx_source="live", arx=theirs)
    assert format_arx_grid([line]).splitlines()[-1].endswith("| time 0.25x ARX, loss <= ARX")
    slow = dict(line, whole=1.2)
    assert format_arx_grid([slow]).splitlines()[-1].endswith("| TIME 0.27x ARX > 0.25x, loss <= ARX")
    lossy = dict(line, loss=0.71, release_loss=0.71)
    assert "LOSS > ARX" in format_arx_grid([lossy])
    # a run of ARX whose table is missing leaves the median unknown, never one of the others
    assert arx_live.summarize([{"whole": 4.0, "jvm": 0.5, "figures": {}}, {"whole": 4.2, "jvm": 0.5, "loss": 0.7,
                                                                          "figures": {}}])["loss"] is None


def _refused(*args: str) -> str:
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--group", "t-closeness", "--repeat", "1", *args])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    return line


def test_a_jar_without_arx_is_one_line(tmp_path):
    jar = tmp_path / "other.jar"
    with zipfile.ZipFile(jar, "w") as out:
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    assert "org.deidentifier.arx.ARXAnonymizer" in _refused("--arx-jar", str(jar))
    assert "no file" in _refused("--arx-jar", str(tmp_path / "absent.jar"))
    (tmp_path / "text.jar").write_text("not a zip")
    assert "no jar" in _refused("--arx-jar", str(tmp_path / "text.jar"))


def test_no_jdk_is_one_line(tmp_path, monkeypatch):
    jar = tmp_path / "arx.jar"
    with zipfile.ZipFile(jar, "w") as out:
        out.writestr(ARX_CLASS, b"")
    monkeypatch.setattr(arx_live.shutil, "which", lambda tool: None if tool == "javac" else f"/usr/bin/{tool}")
    assert "javac not found" in _refused("--arx-jar", str(jar))


def test_config_runs_the_named_configurations_only(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(arx, "run_config", fake_ours(calls))
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--config", "local k=10 s=5%", "--config",
                                       "local k=2 entropy-l=2", "--repeat", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert calls == ["local k=2 entropy-l=2", "local k=10 s=5%"]     # in the grid's order
    assert [json.loads(s)["config"] for s in result.stdout.splitlines()] == calls


def test_an_unknown_config_is_refused_by_name(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(arx, "run_config", fake_ours(calls))
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--config", "local k=3"])
    assert result.exit_code == 2 and calls == []
    assert "no configuration is called 'local k=3'" in result.stderr
    # a name outside the groups asked for would run nothing: refused, not silently empty
    result = CliRunner().invoke(main, ["bench", "arx-grid", "--group", "optimal", "--config", "local k=10"])
    assert result.exit_code == 2 and calls == []
    assert "no configuration of the groups given is called 'local k=10'" in result.stderr
