"""Bad input stays the user's error (issue 56, "Errors stay errors"): every kind of bad input
we know, fed to the real command in a fresh process, exits 2 (the input) or 3 (the
database) with one line on stderr naming the problem, never a traceback, and leaves what
was there as it was. Each case here exited 4 with a traceback before (a hierarchy CSV with
ragged rows, a binary file given as a hierarchy, an interval width of 1e300, a user's own
``main._audit`` beside ``snapshot_schema: main``, a disk that fills at COMMIT)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from anonymizer.cli.failure import known, status
from anonymizer.errors import TemplateError
from tests.engine.test_open_errors import cli, one_line


def people(path: Path, rows: int = 300) -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE people AS SELECT 20 + i % 40 AS age, ['F', 'M'][i % 2 + 1] AS sex, "
                    f"['a', 'b', 'c'][i % 3 + 1] AS disease FROM range({rows}) t(i)")
    return path


def spec(folder: Path, sex: str = "quasi", age: str = "{role: quasi, type: numeric}", output: str = "{view: out}") -> Path:
    path = folder / "spec.yml"
    path.write_text(f"release: r\nsource: {{table: people}}\ncolumns:\n  age: {age}\n  sex: {sex}\n"
                    f"  disease: sensitive\nmodels: [{{type: k-anonymity, k: 5}}]\noutput: {output}\n")
    return path


def run(folder: Path, spec_path: Path, db: Path, status: int, *words: str) -> str:
    return one_line(cli("run", spec_path, "-q", "--db", db, cwd=folder), *words, status=status)


@pytest.mark.parametrize("text, words", [
    ("F;*;*\nM;*\n", ("sex.csv", "fewer fields", "'M'")),            # ragged: a line short of a level
    ("F;X;*\nM;;*\n", ("sex.csv", "an empty level", "'M'")),        # a level left empty (the review of issue 60)
    (None, ("sex.csv", "cannot be read as a CSV file")),    # not text at all
])
def test_a_hierarchy_file_that_is_no_hierarchy_is_the_specs_error(tmp_path, text, words):
    hierarchy = tmp_path / "sex.csv"
    if text is None:
        hierarchy.write_bytes(bytes(range(256)) * 4)
    else:
        hierarchy.write_text(text)
    db = people(tmp_path / "w.duckdb")
    run(tmp_path, spec(tmp_path, sex="{role: quasi, hierarchy: {csv: sex.csv}}"), db, 2, *words)


@pytest.mark.parametrize("width, words", [("1.0e+300", ("intervals[1]", "2^53", "1e+300")),
                                          (".inf", ("intervals", "increasing positive widths", "inf"))])
def test_an_interval_width_no_bound_can_state_is_the_specs_error(tmp_path, width, words):
    db = people(tmp_path / "w.duckdb")
    run(tmp_path, spec(tmp_path, age=f"{{role: quasi, type: numeric, hierarchy: {{intervals: [5, {width}]}}}}"),
        db, 2, *words)


@pytest.mark.parametrize("name", ["_audit", "_classes"])
def test_a_users_own_table_in_the_snapshot_schema_is_refused_and_left_alone(tmp_path, name):
    db = people(tmp_path / "w.duckdb")
    with duckdb.connect(str(db)) as con:
        con.execute(f"CREATE TABLE main.{name} (x INTEGER, note VARCHAR); INSERT INTO main.{name} VALUES (1, 'mine')")
    line = run(tmp_path, spec(tmp_path, output="{view: out, snapshot_schema: main}"), db, 2,
               f"main.{name}", "is not this package's", "snapshot_schema")
    assert "note, x" in line
    with duckdb.connect(str(db)) as con:
        assert con.execute(f"SELECT * FROM main.{name}").fetchall() == [(1, "mine")]
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'out'").fetchone() == (0,)
    if name == "_audit":   # the commands that read the audit refuse it too
        one_line(cli("history", "r", "--db", db, "--schema", "main"), "main._audit", "is not this package's", status=2)
        one_line(cli("report", "--db", db, "--schema", "main"), "main._audit", "is not this package's", status=2)


def test_a_write_that_fails_at_commit_is_the_databases_error():
    """DuckDB reports a full disk at COMMIT as a TransactionException (measured on a 1 MB
    tmpfs: 'Failed to commit: Could not write file ...wal: No space left on device'), which
    the engine wraps as any failed statement."""
    cause = duckdb.TransactionException('TransactionContext Error: Failed to commit: Could not write file '
                                        '"w.duckdb.wal": No space left on device')
    try:
        raise TemplateError("<inline>", str(cause)) from cause
    except TemplateError as exc:
        err = known(exc)
    assert err is not None and status(err) == 3 and "No space left on device" in str(err)
    assert known(TemplateError("<inline>", "x")) is None   # any other failed statement stays a bug


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="mounting a small tmpfs needs root")
def test_a_disk_that_fills_at_commit_exits_3_and_publishes_nothing(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small)], capture_output=True).returncode:
        pytest.skip("this machine refuses to mount a tmpfs")
    try:
        people(small / "w.duckdb", rows=30_000)   # a source that fits the small disk, a release that does not
        res = cli("run", spec(tmp_path), "-q", "--db", small / "w.duckdb", cwd=tmp_path)
        if res.returncode == 0:
            pytest.skip("everything fit on the small disk")
        one_line(res, "No space left on device", status=3)
        with duckdb.connect(str(small / "w.duckdb"), read_only=True) as con:
            assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'out'").fetchone() == (0,)
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)
