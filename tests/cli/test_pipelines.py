"""What pipelines need from the command line (issue 19): the exit-status table, each status
met for real; ``--json`` printing exactly one object also on failure; a locked or read-only
database as one clear line; ``validate --db`` refusing what ``run`` refuses; progress as a
bar in a terminal and as timestamped lines elsewhere; a suppression failure as a sentence.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from rich.console import Console

from anonymizer.cli import main
from anonymizer.cli.failure import known, status
from anonymizer.cli.progress import Progress
from anonymizer.errors import DatabaseError, TemplateError
from anonymizer.release.run import PHASE_SHARES, PHASES

# the table documented in anonymizer/cli/__init__.py, README "The command line" and --help
TABLE = {0: "done", 1: "privacy", 2: "input", 3: "database", 4: "internal", 130: "interrupted"}


def cli(*args, env=None) -> subprocess.CompletedProcess:
    """The real command in a fresh process: stdout, stderr and the exit status a pipeline sees."""
    return subprocess.run([sys.executable, "-m", "anonymizer.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=180, env=env)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], prog_name="anonymizer")


def failure(stdout: str, code: int, kind: str) -> dict:
    """The one JSON object of a failed command: exactly one line, ``ok`` false, its status and kind."""
    lines = stdout.strip().splitlines()
    assert len(lines) == 1, stdout
    out = json.loads(lines[0])
    assert out["ok"] is False and out["exit_status"] == code and out["error"]["kind"] == kind, out
    assert TABLE[code] == kind
    return out["error"]


@pytest.fixture
def db(tmp_path) -> Path:
    """90 rows: ages 20-29 three times, 30-59 twice (i % 40 over 0..89)."""
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE people AS SELECT 20 + i % 40 AS age, ['a', 'b', 'c'][i % 3 + 1] AS disease "
                    "FROM range(90) t(i)")
    return path


def spec(tmp_path: Path, columns: str = "{age: quasi, disease: sensitive}", k: int = 2, extra: str = "") -> Path:
    path = tmp_path / f"r{abs(hash((columns, k, extra)))}.yml"
    path.write_text(f"release: r\nsource: {{table: people}}\ncolumns: {columns}\n"
                    f"models: [{{type: k-anonymity, k: {k}}}]\n{extra}")
    return path


FULL_DOMAIN = ("{age: {role: quasi, hierarchy: {intervals: [5, 10]}}, disease: sensitive}",
               "algorithm: {name: full-domain, levels: {age: 0}}\nsuppression_limit: 0.1\n")


# -- 0 and 1 -------------------------------------------------------------------------------------
def test_status_0_and_ok_true(tmp_path, db):
    res = cli("run", spec(tmp_path), "--db", db, "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] is True and out["view"] == "published.r" and out["measures"]["k"] == 2


def test_status_1_privacy_failure_with_its_figures(tmp_path, db):
    """Full-domain at level 0 with k=3: the classes of size 2 fail; counted here in SQL, apart."""
    with duckdb.connect(str(db), read_only=True) as con:
        classes, rows = con.execute("SELECT count(*), sum(n) FROM (SELECT count(*) n FROM people GROUP BY age) "
                                    "WHERE n < 3").fetchone()
    assert (classes, rows) == (30, 60)
    limit = int(0.1 * 90)
    res = cli("run", spec(tmp_path, FULL_DOMAIN[0], 3, FULL_DOMAIN[1]), "--db", db, "--json")
    assert res.returncode == 1
    error = failure(res.stdout, 1, "privacy")
    assert (error["model"], error["achieved"], error["classes"]) == ("3-anonymity", rows, classes)
    assert error["achieved_is"] == "rows that would need suppression"   # what the figure counts, named
    sentence = (f"{rows} rows would need suppression ({rows} in classes failing 3-anonymity), "
                f"but suppression_limit allows {limit} rows")
    assert error["reason"] == sentence
    assert error["message"] == (f"verification failed: 3-anonymity does not hold ({classes} equivalence class(es) "
                                f"fail): {sentence}; nothing was published")
    assert "achieved" not in error["message"]
    assert res.stderr.strip().splitlines()[-1] == f"error: {error['message']}"


# -- 2 -------------------------------------------------------------------------------------------
def test_status_2_spec_error_names_the_field(tmp_path, db):
    res = cli("run", spec(tmp_path, extra="algorithm: {name: nosuch}\n"), "--db", db, "--json")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    error = failure(res.stdout, 2, "input")
    assert error["field"] == "algorithm.name" and error["value"] == "nosuch"
    assert error["message"].startswith("algorithm.name: must be one of mondrian,")


def test_status_2_bad_option_with_json(db):
    res = invoke("check", "--db", db, "--table", "people", "--qi", "age", "--json", "--bogus")
    assert res.exit_code == 2
    assert failure(res.stdout, 2, "input")["message"] == "No such option '--bogus'."
    assert "Usage: anonymizer check" in res.stderr


def test_status_2_unknown_table(db):
    res = invoke("check", "--db", db, "--table", "nobody", "--qi", "age", "--json")
    assert res.exit_code == 2
    assert failure(res.stdout, 2, "input")["table"] == "nobody"


# -- 3: a lock held by another process, a read-only database, the environment --------------------
@pytest.fixture
def held(db):
    """``db`` held open by a second process (``mode``: for writing, or read-only) until stdin closes."""
    holders = []

    def hold(read_only: bool = False) -> int:
        holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys\n"
                                   f"con = duckdb.connect({str(db)!r}, read_only={read_only})\n"
                                   "print('held', flush=True)\nsys.stdin.read()"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        holders.append(holder)
        assert holder.stdout.readline().strip() == "held"
        return holder.pid
    yield hold
    for holder in holders:
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.mark.parametrize("json_flag", [False, True])
@pytest.mark.parametrize("command", ["run", "check"])
def test_status_3_locked_database(tmp_path, db, held, command, json_flag):
    pid = held()
    args = ["run", spec(tmp_path), "-q"] if command == "run" else ["check", "--table", "people", "--qi", "age"]
    res = cli(*args, "--db", db, *(["--json"] if json_flag else []))
    assert res.returncode == 3 and "Traceback" not in res.stderr, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"error: --db {db}: is in use by another process (PID {pid}")
    if json_flag:
        error = failure(res.stdout, 3, "database")
        assert error["path"] == str(db) and error["message"] == line.removeprefix("error: ")
    else:
        assert res.stdout == ""


def test_status_3_written_while_another_process_reads(tmp_path, db, held):
    """A process holding the file read-only keeps writers out: ``run`` (writing) gets exit 3."""
    held(read_only=True)
    res = cli("run", spec(tmp_path), "-q", "--db", db)
    assert res.returncode == 3 and "in use by another process" in res.stderr and "Traceback" not in res.stderr


def test_status_3_read_only_attachment(tmp_path, db):
    """A release into output.database that the connection holds read-only: refused, exit 3.
    (A chmod 0444 file, as root, is tested in tests/engine/test_open_errors.py with the capabilities
    that let root write anywhere dropped.)"""
    out = tmp_path / "pub.duckdb"
    duckdb.connect(str(out)).close()
    res = invoke("run", spec(tmp_path, extra=f"output: {{view: r, database: {out}}}\n"), "-q", "--db", db,
                 "--json")
    assert res.exit_code == 0, res.output   # the guard: this release works when nothing holds pub.duckdb
    from anonymizer.engine.database import DatabaseOpenError, attach_database
    with duckdb.connect(str(db)) as con:
        con.execute(f"ATTACH '{out}' AS pub (READ_ONLY)")
        with pytest.raises(DatabaseOpenError, match="attached read-only on this connection") as err:
            with attach_database(con, out):
                pass
    assert status(known(err.value)) == 3


def test_status_3_environment_error_inside_a_run(tmp_path, db, monkeypatch):
    def full(*args, **kwargs):
        raise TemplateError("release/publish.sql.j2", "IOException: No space left on device") from \
            duckdb.IOException('IO Error: Could not write file "w.duckdb.wal": No space left on device')
    monkeypatch.setattr("anonymizer.release.run.run_release", full)
    res = invoke("run", spec(tmp_path), "--db", db, "--json")
    assert res.exit_code == 3 and "Traceback" not in res.stderr
    error = failure(res.stdout, 3, "database")
    assert error["where"] == "the database" and "No space left on device" in error["problem"]


@pytest.mark.parametrize("raised, where", [
    (duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block"), "the database"),
    (duckdb.ConnectionException("Connection Error: connection closed"), "the database"),
    (OSError(28, "No space left on device", "out.parquet"), "out.parquet"),
])
def test_environment_errors_are_database_errors(raised, where):
    err = known(raised)
    assert isinstance(err, DatabaseError) and err.where == where and status(err) == 3


def test_spark_failures_are_engine_errors():
    from py4j.protocol import Py4JNetworkError
    from pyspark.errors import AnalysisException, PySparkRuntimeError
    assert status(known(Py4JNetworkError("An error occurred while trying to connect to the Java server"))) == 3
    assert status(known(PySparkRuntimeError("JAVA_GATEWAY_EXITED", {}))) == 3
    wrapped = TemplateError("x.sql.j2", "Spark: table not found")
    wrapped.__cause__ = AnalysisException("TABLE_OR_VIEW_NOT_FOUND", {"relationName": "t"})
    assert status(known(wrapped)) == 4   # Spark refused a statement of ours: a bug


# -- 4 -------------------------------------------------------------------------------------------
def test_status_4_bug_with_json(tmp_path, db, monkeypatch):
    def bug(*args, **kwargs):
        raise KeyError("oops")
    monkeypatch.setattr("anonymizer.release.run.run_release", bug)
    res = invoke("run", spec(tmp_path), "-q", "--db", db, "--json")
    assert res.exit_code == 4 and "Traceback" in res.stderr and "KeyError: 'oops'" in res.stderr
    error = failure(res.stdout, 4, "internal")
    assert error["type"] == "KeyError" and "a bug" in error["message"]


def test_status_4_a_statement_of_ours_that_fails(tmp_path, db, monkeypatch):
    """A template whose statement the engine refuses is our bug: exit 4 with the report-a-bug
    text and the traceback, not "spec or input error" (issue 39)."""
    def broken(*args, **kwargs):
        raise TemplateError("release/x.sql.j2", 'BinderException: Referenced column "nope" not found') from \
            duckdb.BinderException('Binder Error: Referenced column "nope" not found')
    monkeypatch.setattr("anonymizer.release.run.run_release", broken)
    res = invoke("run", spec(tmp_path), "-q", "--db", db, "--json")
    assert res.exit_code == 4 and "Traceback" in res.stderr and "release/x.sql.j2" in res.stderr
    error = failure(res.stdout, 4, "internal")
    assert error["type"] == "TemplateError" and "a bug" in error["message"] and "release/x.sql.j2" in error["detail"]


def test_status_130_interrupted_with_json(tmp_path, db, monkeypatch):
    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr("anonymizer.release.run.run_release", ctrl_c)
    res = invoke("run", spec(tmp_path), "-q", "--db", db, "--json")
    assert res.exit_code == 130 and "Traceback" not in res.stderr and "interrupted" in res.stderr
    assert "all of it or nothing" in failure(res.stdout, 130, "interrupted")["message"]


def test_table_is_documented():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    helped = invoke("--help").output
    for code, words in {1: "a privacy check failed", 2: "spec or input error", 3: "database or engine error",
                        4: "internal error"}.items():
        assert re.search(rf"\b{code}\b.*{words}", helped), words
        assert re.search(rf"\| {code} \|.*{words}", readme, re.IGNORECASE), words


# -- --json on every command that has it ----------------------------------------------------------
JUNK = "JUNK"
COMMANDS = [["run", "SPEC"], ["validate", "SPEC"], ["demo"], ["check", "--table", "t", "--qi", "a"], ["report"],
            ["macros", "install"], ["hierarchy", "show", "--table", "t", "--column", "a", "--builder", "masking"],
            ["hierarchy", "lattice", "SPEC"], ["reproduce", "p000"], ["reproduce", "p001"], ["reproduce", "p002"],
            ["reproduce", "p004"]]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_json_failure_object_on_every_command(tmp_path, command):
    junk = tmp_path / "junk.duckdb"
    junk.write_text("name,email\nAda,ada@example.org\n")
    args = [str(spec(tmp_path)) if a == "SPEC" else a for a in command]
    res = invoke(*args, "--db", junk, "--json")
    assert res.exit_code == 3, res.output
    error = failure(res.stdout, 3, "database")
    assert error["problem"] == "is not a DuckDB database file" and error["path"] == str(junk)
    assert res.stderr == f"error: {error['message']}\n"


# -- validate --db ---------------------------------------------------------------------------------
@pytest.mark.parametrize("columns, k, extra, field, words", [
    ("{age: quasi, disease: {role: quasi, type: numeric}}", 2, "", "columns.disease.type",
     "is numeric but the column is VARCHAR"),
    ("{age: quasi, diseas: sensitive}", 2, "", "columns.diseas", 'is not a column of "people"'),
    ("{age: quasi}", 2, "", "columns.disease", "has no role"),
    ("{age: quasi, disease: {role: quasi, hierarchy: {dates: [month, year]}}}", 2, "", "columns.disease.hierarchy",
     "dates need a DATE or TIMESTAMP column, not VARCHAR"),
    ("{age: quasi, disease: sensitive}", 91, "", "models", "k=91 is larger than the table (90 rows)"),
])
def test_validate_db_refuses_what_run_refuses(tmp_path, db, columns, k, extra, field, words):
    path = spec(tmp_path, columns, k, extra)
    assert invoke("validate", path).exit_code == 0        # the spec alone is valid: what validate said before
    res = invoke("validate", path, "--db", db, "--json")
    assert res.exit_code == 2
    error = failure(res.stdout, 2, "input")
    assert error["field"] == field and words in error["message"]
    ran = invoke("run", path, "-q", "--db", db, "--json")   # and run refuses it the same way
    assert ran.exit_code == 2 and failure(ran.stdout, 2, "input")["message"] == error["message"]


def test_validate_db_reports_the_source(tmp_path, db):
    res = invoke("validate", spec(tmp_path), "--db", db)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[1] == "  source people in {}: 90 rows; age (quasi, numeric), disease (sensitive, " \
                                         "categorical)".format(db)
    out = json.loads(invoke("validate", spec(tmp_path), "--db", db, "--json").stdout)
    assert out["ok"] is True and out["source"]["rows"] == 90
    with duckdb.connect(str(db), read_only=True) as con:   # read-only: nothing was written
        assert [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()] == ["people"]


def test_validate_db_missing_table(tmp_path, db):
    path = tmp_path / "t.yml"
    path.write_text(spec(tmp_path).read_text().replace("{table: people}", "{table: persons}"))
    res = invoke("validate", path, "--db", db)
    assert res.exit_code == 2 and res.stderr == 'error: table "persons": does not exist\n'


# -- progress ------------------------------------------------------------------------------------
def test_progress_lines_when_not_a_terminal(tmp_path, db):
    res = invoke("run", spec(tmp_path), "--db", db)
    assert res.exit_code == 0
    lines = res.stderr.splitlines()
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d · .+", line) for line in lines), lines
    done = [line.split(" · ")[1].split(":")[0] for line in lines if ": done in " in line]
    assert done == list(PHASES)
    assert invoke("run", spec(tmp_path), "--db", db, "--force", "-q").stderr == ""


def test_progress_bar_in_a_terminal():
    """The bar advances by each phase's share of the work (PHASE_SHARES) and, inside a phase,
    by the rows its rounds have finished; it shows the time remaining."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with Progress(console, phases=PHASE_SHARES) as say:
        for name in PHASES[:2]:
            say(f"{name}: working")
            say(f"{name}: done in 0.10s")
        say("round 3: 90 rows in 12 partitions")
        bar = out.getvalue()
        done = round(100 * (PHASE_SHARES["prepare"] + PHASE_SHARES["algorithm"]))
        assert f"{done}%" in bar and "round 3: 90 rows in 12 partitions" in bar
        say("round 4: 45 rows in 20 partitions")   # half the first round's rows finished
        assert f"{round(done + 100 * PHASE_SHARES['generalize'] / 2)}%" in out.getvalue()
    text = out.getvalue()
    assert "\x1b[?25l" in bar                               # a live display (cursor hidden) ...
    assert "· prepare: done in 0.10s" in text and "· algorithm: done in 0.10s" in text   # ... finished phases stay
    assert "-:--:--" in bar                                 # the time remaining, once it can be told
    last = text.replace("\x1b[?25h", "").rstrip().splitlines()[-1]
    assert "100%" in last and "done" in last                # completed when the block ends
    assert not re.search(r"\d\d:\d\d:\d\d · ", text)       # no log lines in a terminal


def test_progress_bar_counts_down_the_cells_of_a_recursive_mondrian():
    """Mondrian's recursive loop runs a batch of rounds a statement: the bar advances by the
    cells its batches have finished, from the cells there were to split."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with Progress(console, phases=PHASE_SHARES) as say:
        say("prepare: done in 0.10s")
        say("rounds: 200 cells to split")
        start = round(100 * PHASE_SHARES["prepare"])
        assert f"{start}%" in out.getvalue()
        say("rounds 1-8: 50 cells active")   # three quarters of the cells finished
        assert f"{round(start + 75 * PHASE_SHARES['algorithm'])}%" in out.getvalue()


def test_progress_counts_experiment_runs():
    out = io.StringIO()
    with Progress(Console(file=out, force_terminal=True, width=100, color_system=None)) as say:
        say("[3/8] 10% lgb-mdp k=5 l=2: C_DM 12")
        assert "3/8" in out.getvalue()
