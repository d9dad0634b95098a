"""The versions we declare are the versions we run (issue 35): the storage format of the files
we create matches the declared DuckDB floor, the dev extra's `duckdb` command line (DuckDB 1.5)
opens what a release wrote with this package's DuckDB, and `anonymizer --version` says which
versions are in use and whether each is inside the tested range."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.cli import main
from anonymizer.dependencies import Dependency, declared, dependencies
from anonymizer.engine.database import STORAGE_VERSION, attach_database, open_database, written_by

ROOT = Path(__file__).resolve().parents[2]


def _pyproject_floor(name: str) -> str:
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(rf'"{name}>=([0-9.]+),<[0-9.]+"', text).group(1)


def test_files_are_written_in_a_format_the_duckdb_command_line_reads():
    """The format is no newer than the oldest duckdb-cli the dev extra accepts (the smoke jobs
    run that one on a release's file), nor than the DuckDB floor."""
    cli = re.search(r'"duckdb-cli>=([0-9.]+?)(?:\.post[0-9]+)?,', (ROOT / "pyproject.toml").read_text()).group(1)
    version = tuple(map(int, STORAGE_VERSION.removeprefix("v").split(".")))
    assert version <= tuple(map(int, cli.split("."))) and version <= tuple(map(int, _pyproject_floor("duckdb").split(".")))


def _cli() -> str:
    cli = shutil.which("duckdb", path=str(Path(sys.executable).parent)) or shutil.which("duckdb")
    assert cli, "duckdb-cli is a dev dependency"
    return cli


@pytest.mark.slow
def test_the_duckdb_command_line_opens_what_a_release_wrote(tmp_path):
    """A release into a new --db file and into a new output.database file, both written by this
    package's DuckDB (2.0 in the locked set), then read by the `duckdb` command line of the dev
    extra (DuckDB 1.5), which cannot open DuckDB 2.0's own newest format."""
    db, out = tmp_path / "w.duckdb", tmp_path / "out.duckdb"
    with open_database(db) as con:
        con.execute("CREATE TABLE t AS SELECT range % 7 AS age, range % 3 AS s FROM range(200)")
        anonymize({"release": "r", "source": {"table": "t"}, "columns": {"age": "quasi", "s": "sensitive"},
                   "models": [{"type": "k-anonymity", "k": 5}]}, con)
        anonymize({"release": "o", "source": {"table": "t"}, "columns": {"age": "quasi", "s": "sensitive"},
                   "models": [{"type": "k-anonymity", "k": 5}], "output": {"view": "o", "database": str(out)}}, con)
    for path, view in ((db, "published.r"), (out, "published.o")):
        assert written_by(path) == duckdb.__version__
        read = subprocess.run([_cli(), "-readonly", "-csv", str(path), "-c", f"SELECT count(*) AS n FROM {view}"],
                              capture_output=True, text=True, timeout=120)
        assert read.returncode == 0, read.stderr
        assert read.stdout.split() == ["n", "200"]


def test_an_existing_file_keeps_its_format(tmp_path):
    """Only files we create get the floor's format: one the user made is opened as it is."""
    path = tmp_path / "mine.duckdb"
    duckdb.connect(str(path)).close()
    with open_database(path) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
        with attach_database(con, path) as alias:   # already open: its own alias, nothing attached
            assert con.execute(f'SELECT a FROM "{alias}".t').fetchone() == (1,)


def test_version_names_each_dependency_and_its_range():
    out = CliRunner().invoke(main, ["--version"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("anonymizer ")
    duck = next(line for line in lines if line.strip().startswith("duckdb "))
    assert f"duckdb {duckdb.__version__} (tested >={_pyproject_floor('duckdb')},<" in duck and "in range" in duck
    assert {line.split()[0] for line in lines[1:]} == {"duckdb", "sqlglot", "jinja2", "pandas", "numpy", "pyspark"}


def test_the_ranges_are_read_from_the_installed_metadata():
    ranges = declared()
    assert ranges["duckdb"] == (f">={_pyproject_floor('duckdb')},<2.1", None)
    assert ranges["pyspark"][1] == "spark"          # the extra a user installs, not the dev one
    assert all(d.in_range in (True, None) for d in dependencies())   # CI's environments are inside


@pytest.mark.parametrize(("dep", "said"), [
    (Dependency("duckdb", "2.1.0", ">=1.4.0,<2.1"), "duckdb 2.1.0 (tested >=1.4.0,<2.1: OUTSIDE the tested range"),
    (Dependency("duckdb", "1.3.2", ">=1.4.0,<2.1"), "OUTSIDE the tested range: expect errors; pip install 'duckdb>=1.4.0,<2.1'"),
    (Dependency("duckdb", "2.0.1", ">=1.4.0,<2.1"), "duckdb 2.0.1 (tested >=1.4.0,<2.1: in range)"),
    (Dependency("pyspark", None, ">=4.3,<4.4", "spark"), "pyspark not installed (tested >=4.3,<4.4; pip install 'anonymizer[spark]')"),
    (Dependency("duckdb", "2.0.1", ""), "duckdb 2.0.1 (tested ?: range unknown)"),
])
def test_a_version_outside_the_range_is_said(dep, said):
    assert said in dep.line()


def test_a_failure_on_an_untested_version_says_so(monkeypatch, capsys):
    """An engine error met on a version forced outside the tested range ends with a note naming
    it and the command that puts a tested one back (here a DuckDB 1.3 that lacks an option)."""
    import anonymizer.dependencies as deps
    from anonymizer.cli.failure import EXIT_BUG, fail
    from anonymizer.errors import TemplateError
    forced = [Dependency("duckdb", "1.3.0", ">=1.4.0,<2.1"), Dependency("sqlglot", "30.30.0", ">=27.0,<30.31")]
    monkeypatch.setattr(deps, "outside", lambda: [d for d in forced if d.in_range is False])
    with pytest.raises(SystemExit) as ended:
        fail(TemplateError("<inline>", 'BinderException: Unrecognized option for attach "compress"'), as_json=True)
    assert ended.value.code == EXIT_BUG   # a statement of ours failed: a bug, or the version outside the range
    out = capsys.readouterr()
    line = out.err.splitlines()[-1]   # after the traceback
    assert line.endswith("(note: duckdb 1.3.0 is outside the tested range >=1.4.0,<2.1: pip install 'duckdb>=1.4.0,<2.1')")
    assert '"untested": {"duckdb": {"installed": "1.3.0", "tested": ">=1.4.0,<2.1"}}' in out.out


def test_every_runtime_dependency_is_weighed(monkeypatch):
    """outside() reads every runtime range (click, rich, ... too), not only the ones --version
    lists first, and leaves an extra's package (pyspark) to the engine that runs on it."""
    import anonymizer.dependencies as deps
    monkeypatch.setattr(deps, "_installed", lambda name: {"rich": "99.0", "pyspark": "3.5.0"}.get(name, "0"))
    names = {d.name for d in deps.outside()}
    assert {"rich", "duckdb", "click"} <= names and "pyspark" not in names
    assert "rich 99.0 (tested >=13,<16: OUTSIDE" in deps.version_text()


def test_a_connection_the_command_line_opens_prints_no_progress_bar(tmp_path):
    """DuckDB prints its progress bar to standard output even into a pipe, in the middle of a
    command's --json; the command line's connections turn it off (before: on)."""
    for path in (None, tmp_path / "quiet.duckdb"):
        with open_database(path) as con:
            assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
