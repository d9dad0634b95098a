"""Opening problems and non-finite parameters (issue 15, defects 10 and 7).

Every way ``--db`` or a spec can fail to open is one line on stderr and never a traceback:
exit status 3 for the database (issue 19's table), 2 for the spec; a database file a failing command created is removed; commands that only read
never create one. NaN and infinite parameters are refused with the field named.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer.cli import main
from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec

NAN, INF = float("nan"), float("inf")


# -- helpers ------------------------------------------------------------------------------------
def cli(*args, cwd: Path | None = None, preexec_fn=None) -> subprocess.CompletedProcess:
    """The real command in a fresh process (so stderr and the exit status are what a user sees)."""
    return subprocess.run([sys.executable, "-m", "anonymizer.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, preexec_fn=preexec_fn, timeout=120)


def one_line(res, *words: str, status: int = 3) -> str:
    """Exit ``status`` (3: the database cannot be opened), no traceback, and exactly one line
    on stderr naming ``words``."""
    assert "Traceback" not in res.stderr, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert res.returncode == status, (res.returncode, res.stderr)
    return lines[0]


def people_db(path: Path) -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE people AS SELECT 20 + i % 40 AS age, ['a', 'b', 'c'][i % 3 + 1] AS disease "
                    "FROM range(90) t(i)")
    return path


def write_spec(path: Path, source: str = "{table: people}", k: int = 2) -> Path:
    path.write_text(f"release: r\nsource: {source}\ncolumns: {{age: quasi, disease: sensitive}}\n"
                    f"models: [{{type: k-anonymity, k: {k}}}]\n")
    return path


@pytest.fixture
def spec(tmp_path):
    return write_spec(tmp_path / "r.yml")


# -- a file that is not a DuckDB database ---------------------------------------------------------
@pytest.mark.parametrize("command", [["run", "SPEC", "-q"], ["check", "--table", "t", "--qi", "a"],
                                     ["macros", "install"], ["hierarchy", "lattice", "SPEC", "-q"]])
def test_not_a_database(tmp_path, spec, command):
    junk = tmp_path / "junk.duckdb"
    junk.write_text("name,email\nAda,ada@example.org\n")
    args = [str(spec) if a == "SPEC" else a for a in command]
    line = one_line(cli(*args, "--db", junk), "junk.duckdb", "is not a DuckDB database file")
    assert line.startswith("error: --db ")
    assert junk.read_text() == "name,email\nAda,ada@example.org\n", "the file must be left as it was"


# -- a directory that does not exist ---------------------------------------------------------------
@pytest.mark.parametrize("command", [["run", "SPEC", "-q"], ["demo", "-q"], ["macros", "install"],
                                     ["reproduce", "data", "table2"], ["check", "--table", "t", "--qi", "a"]])
def test_missing_directory(tmp_path, spec, command):
    db = tmp_path / "nowhere" / "w.duckdb"
    args = [str(spec) if a == "SPEC" else a for a in command]
    one_line(cli(*args, "--db", db), "nowhere", "does not exist", status=2)
    assert not db.parent.exists()


# -- a read-only directory or file -----------------------------------------------------------------
_CAPS = (1, 2, 3)   # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: what lets root ignore permissions
_PR_CAPBSET_DROP = 24


def _drop_permission_overrides() -> None:
    """In the child, before exec: drop the capabilities that let root write anywhere, so file
    permissions bind as they do for any user (the process keeps uid 0 and its files)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _CAPS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture
def unprivileged(tmp_path):
    """A ``preexec_fn`` under which permissions really stop writes (also when tests run as root)."""
    preexec = _drop_permission_overrides if os.geteuid() == 0 else None
    probe = tmp_path / "probe"
    probe.mkdir(mode=0o555)
    probe.chmod(0o555)
    try:
        res = subprocess.run([sys.executable, "-c", f"open({str(probe / 'x')!r}, 'w')"], preexec_fn=preexec,
                             capture_output=True, text=True)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot run a process without the permission-override capabilities: {exc}")
    if res.returncode == 0:
        pytest.skip("permissions do not stop writes here (root with CAP_DAC_OVERRIDE that cannot be dropped)")
    return preexec


def test_read_only_directory(tmp_path, spec, unprivileged):
    folder = tmp_path / "ro"
    folder.mkdir()
    people_db(folder / "w.duckdb")
    folder.chmod(0o555)
    try:
        new = folder / "new.duckdb"
        one_line(cli("run", spec, "-q", "--db", new, preexec_fn=unprivileged), "read-only", str(folder))
        assert not new.exists()
        one_line(cli("macros", "install", "--db", folder / "w.duckdb", preexec_fn=unprivileged),
                 "read-only", ".wal")
        # reading needs no write access: check opens read-only and works
        ok = cli("check", "--db", folder / "w.duckdb", "--table", "people", "--qi", "age", "--json",
                 preexec_fn=unprivileged)
        assert ok.returncode == 0, ok.stderr
        assert json.loads(ok.stdout)["rows"] == 90
        assert sorted(p.name for p in folder.iterdir()) == ["w.duckdb"]
    finally:
        folder.chmod(0o755)


def test_read_only_file(tmp_path, spec, unprivileged):
    db = people_db(tmp_path / "w.duckdb")
    db.chmod(0o444)
    try:
        one_line(cli("run", spec, "-q", "--db", db, preexec_fn=unprivileged), "w.duckdb", "read-only")
        ok = cli("check", "--db", db, "--table", "people", "--qi", "age", preexec_fn=unprivileged)
        assert ok.returncode == 0, ok.stderr
    finally:
        db.chmod(0o644)


# -- a database another process holds ------------------------------------------------------------
@pytest.fixture
def held(tmp_path):
    """A database file a second process holds open for writing (until its stdin closes)."""
    db = people_db(tmp_path / "held.duckdb")
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys\n"
                               f"con = duckdb.connect({str(db)!r})\nprint('held', flush=True)\nsys.stdin.read()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield db, holder.pid
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.mark.parametrize("command", [["run", "SPEC", "-q"], ["check", "--table", "people", "--qi", "age"],
                                     ["macros", "install"]])
def test_locked_database(spec, held, command):
    db, pid = held
    args = [str(spec) if a == "SPEC" else a for a in command]
    line = one_line(cli(*args, "--db", db), "held.duckdb", "in use by another process", "retry", str(pid))
    assert "Conflicting lock" not in line


# -- a file written by another DuckDB version -----------------------------------------------------
def _forge_storage_version(path: Path, version: int, writer: str = "") -> None:
    """Set the storage version in the main header (bytes 12-20) and the library version that
    wrote the file (bytes 52-84, empty before DuckDB 1.2), and recompute the header's checksum
    (DuckDB's: 5381 xor-folded with each 8-byte word of bytes 8-4096 times a constant)."""
    data = bytearray(path.read_bytes())
    data[12:20] = version.to_bytes(8, "little")
    data[52:84] = writer.encode().ljust(32, b"\0")
    checksum = 5381
    for offset in range(8, 4096, 8):
        checksum ^= (int.from_bytes(data[offset:offset + 8], "little") * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    data[0:8] = checksum.to_bytes(8, "little")
    path.write_bytes(data)


@pytest.mark.parametrize("version, writer, said", [
    (10_000, "v9.9.0", ["written by DuckDB 9.9.0", "pip install 'duckdb==9.9.0'"]),   # the header names it
    (10_000, "", ["newer version of DuckDB"]),
    (63, "", ["older version of DuckDB"])])
def test_other_duckdb_version(tmp_path, spec, version, writer, said):
    """One line naming the version that wrote the file, this DuckDB's, and what to do."""
    db = people_db(tmp_path / "old.duckdb")
    _forge_storage_version(db, version, writer)
    for args in (["run", spec, "-q"], ["check", "--table", "people", "--qi", "age"]):
        one_line(cli(*args, "--db", db), "old.duckdb", *said, f"this DuckDB ({duckdb.__version__}) cannot read",
                 "EXPORT DATABASE")


# -- a spec that is not UTF-8 ---------------------------------------------------------------------
def test_latin1_spec(tmp_path):
    spec = tmp_path / "latin.yml"
    spec.write_bytes("release: r\n# données du café\nsource: {table: people}\ncolumns: {age: quasi}\n"
                     "models: [{type: k-anonymity, k: 2}]\n".encode("latin-1"))
    for args in (["validate", spec], ["run", spec, "-q", "--db", tmp_path / "w.duckdb"]):
        one_line(cli(*args), "latin.yml", "not UTF-8", "line 2", status=2)
    assert not (tmp_path / "w.duckdb").exists()
    with pytest.raises(SpecError, match="latin.yml: is not UTF-8 text"):
        load_spec(spec)


# -- no empty database left behind ----------------------------------------------------------------
def test_failed_command_leaves_no_new_database(tmp_path, spec):
    db = tmp_path / "new.duckdb"
    one_line(cli("run", spec, "-q", "--db", db), 'table "people"', "does not exist", status=2)
    assert not db.exists() and not Path(f"{db}.wal").exists()


def test_failed_privacy_check_leaves_no_new_database(tmp_path):
    csv = tmp_path / "p.csv"
    csv.write_text("age,disease\n" + "".join(f"{20 + i},{'abc'[i % 3]}\n" for i in range(4)))
    spec = write_spec(tmp_path / "r.yml", f"{{path: {csv}, table: people}}", k=5)
    db = tmp_path / "new.duckdb"
    res = cli("run", spec, "-q", "--db", db)
    assert res.returncode in (1, 2) and "Traceback" not in res.stderr, res.stderr
    assert not db.exists() and not Path(f"{db}.wal").exists()


def test_successful_command_keeps_its_new_database(tmp_path):
    """Guard (true before the fix too): cleaning up after failures keeps what a success made."""
    csv = tmp_path / "p.csv"
    csv.write_text("age,disease\n" + "".join(f"{20 + i % 40},{'abc'[i % 3]}\n" for i in range(90)))
    spec = write_spec(tmp_path / "r.yml", f"{{path: {csv}, table: people}}")
    db = tmp_path / "new.duckdb"
    res = cli("run", spec, "-q", "--db", db)
    assert res.returncode == 0, res.stderr
    assert db.exists()


def test_reading_commands_create_nothing(tmp_path):
    """Guard (true before the fix too, by checks now replaced by the one door)."""
    db = tmp_path / "none.duckdb"
    one_line(cli("check", "--db", db, "--table", "t", "--qi", "a"), "none.duckdb", "no such database file", status=2)
    one_line(cli("hierarchy", "show", "--db", db, "--table", "t", "--column", "a", "--builder", "masking"),
             "none.duckdb", "no such database file", status=2)
    assert list(tmp_path.iterdir()) == []


def test_default_database_not_left_behind(tmp_path, spec):
    one_line(cli("run", spec, "-q", cwd=tmp_path), "does not exist", status=2)
    assert not (tmp_path / "anonymizer.duckdb").exists()


# -- other failures inside a command ---------------------------------------------------------------
def test_environment_error_inside_a_command_is_one_line(tmp_path, spec, monkeypatch):
    people_db(tmp_path / "w.duckdb")

    def full(*args, **kwargs):
        raise duckdb.IOException("IO Error: Could not write file \"w.duckdb.wal\": No space left on device")
    monkeypatch.setattr("anonymizer.release.run.run_release", full)
    res = CliRunner().invoke(main, ["run", str(spec), "-q", "--db", str(tmp_path / "w.duckdb")])
    assert res.exit_code == 3 and "No space left on device" in res.output and "Traceback" not in res.output


def test_a_bug_is_not_reported_as_a_privacy_failure(tmp_path, spec, monkeypatch):
    people_db(tmp_path / "w.duckdb")

    def bug(*args, **kwargs):
        raise KeyError("oops")
    monkeypatch.setattr("anonymizer.release.run.run_release", bug)
    res = CliRunner().invoke(main, ["run", str(spec), "-q", "--db", str(tmp_path / "w.duckdb")])
    assert res.exit_code == 4 and "internal error" in res.output


def test_help_documents_exit_statuses():
    out = CliRunner().invoke(main, ["--help"]).output
    assert "1  a privacy check failed" in out and "2  spec or input error" in out and "cannot be opened" in out
    assert "3  database or engine error" in out and "4  an unexpected internal error" in out


# -- non-finite parameters (defect 7) --------------------------------------------------------------
BASE = {"release": "r", "source": {"table": "t"},
        "columns": {"age": {"role": "quasi"}, "zip": {"role": "quasi"}, "d": {"role": "sensitive"}}}


def spec_with(**fields):
    return {**BASE, "models": [{"type": "k-anonymity", "k": 2}], **fields}


@pytest.mark.parametrize("value", [NAN, INF, -INF])
@pytest.mark.parametrize("model, key", [
    ({"type": "t-closeness", "sensitive": "d"}, "t"),
    ({"type": "alpha-k-anonymity", "k": 2, "sensitive": "d"}, "alpha"),
    ({"type": "recursive-cl-diversity", "l": 2, "sensitive": "d"}, "c"),
    ({"type": "entropy-l-diversity", "sensitive": "d"}, "l"),
])
def test_non_finite_model_parameter_refused(model, key, value):
    with pytest.raises(SpecError, match=rf"models\[0\]\.{key}: must be a finite number") as err:
        load_spec(spec_with(models=[{**model, key: value}]))
    assert err.value.field == f"models[0].{key}"


@pytest.mark.parametrize("key", ["alpha", "beta"])
def test_nan_identity_reserved_parameter_refused(key, value=NAN):
    model = {"type": "eir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0.5, "sensitive": "d", key: value}
    spec = {**BASE, "columns": {**BASE["columns"], "pid": {"role": "individual"}}, "models": [model],
            "algorithm": {"name": "danonyir"}}
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert err.value.field == f"models[0].{key}"


def test_nan_closeness_in_yaml_refused(tmp_path):
    path = tmp_path / "nan.yml"
    path.write_text("release: r\nsource: {table: t}\ncolumns: {age: quasi, d: sensitive}\n"
                    "models: [{type: t-closeness, t: .nan, sensitive: d}]\n")
    with pytest.raises(SpecError, match=r"models\[0\]\.t"):
        load_spec(path)


@pytest.mark.parametrize("value", [NAN, INF])
@pytest.mark.parametrize("algorithm, field", [
    ({"name": "privacyfrost2", "scoring": "eta", "d": "VALUE"}, "algorithm.d"),
    ({"name": "privacyfrost2", "priorities": {"age": "VALUE"}}, "algorithm.priorities.age"),
])
def test_non_finite_algorithm_option_refused(algorithm, field, value):
    option = {k: ({q: value for q in v} if isinstance(v, dict) else value if v == "VALUE" else v)
              for k, v in algorithm.items()}
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(algorithm=option))
    assert err.value.field == field


@pytest.mark.parametrize("value", [NAN, INF])
def test_non_finite_domain_refused(value):
    columns = {**BASE["columns"], "age": {"role": "quasi", "type": "numeric", "domain": [0, value]}}
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(columns=columns))
    assert err.value.field == "columns.age.domain"


@pytest.mark.parametrize("hierarchy, field", [
    ({"intervals": [5, INF]}, "intervals"),
    ({"cbgh": {"min_width": INF}}, "cbgh.min_width"),
    ({"dbgh": {"min_width": 10, "range": [0, NAN]}}, "dbgh.range"),
    ({"cgh": {"min_width": 10, "range": [-INF, 100]}}, "cgh.range"),
])
def test_non_finite_hierarchy_parameter_refused(hierarchy, field):
    columns = {**BASE["columns"], "age": {"role": "quasi", "hierarchy": hierarchy}}
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(columns=columns))
    assert err.value.field == f"columns.age.hierarchy.{field}"


def test_whole_number_beyond_bigint_refused():
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(models=[{"type": "k-anonymity", "k": 2**70}]))
    assert err.value.field == "models[0].k"


# Guards: these were refused before the fix too (by chance: `not 0 <= x <= 1` is true for NaN,
# `x > 0` is false for it), and must stay refused now that one validator decides.
_RESERVED = {**BASE["columns"], "pid": {"role": "individual"}}


@pytest.mark.parametrize("fields, field", [
    ({"suppression_limit": NAN}, "suppression_limit"),
    ({"suppression_limit": INF}, "suppression_limit"),
    ({"algorithm": {"name": "mbf", "batch": NAN}}, "algorithm.batch"),
    ({"columns": {**BASE["columns"], "age": {"role": "quasi", "hierarchy": {"intervals": [5, NAN]}}}},
     "columns.age.hierarchy.intervals"),
    ({"columns": {**BASE["columns"], "age": {"role": "quasi", "hierarchy": {"cgh": {"min_width": NAN}}}}},
     "columns.age.hierarchy.cgh.min_width"),
    ({"columns": _RESERVED, "algorithm": {"name": "danonyir"},
      "models": [{"type": "ir-alpha-beta-anonymity", "alpha": INF, "beta": 0.5, "sensitive": "d"}]}, "models[0].alpha"),
])
def test_other_numeric_fields_refused(fields, field):
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(**fields))
    assert err.value.field == field


def test_model_built_in_python_refuses_nan():
    from anonymizer.models import AlphaKAnonymity, RecursiveCLDiversity, TCloseness
    for build in (lambda: TCloseness(NAN, "d"), lambda: AlphaKAnonymity(NAN, 2, "d"),
                  lambda: RecursiveCLDiversity(INF, 2, "d")):
        with pytest.raises(SpecError, match="must be a finite number"):
            build()


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_check_c_option_refuses_non_finite(tmp_path, value):
    db = people_db(tmp_path / "w.duckdb")
    res = CliRunner().invoke(main, ["check", "--db", str(db), "--table", "people", "--qi", "age",
                                    "--sensitive", "disease", "--c", value])
    assert res.exit_code == 2 and "not a finite number" in res.output, res.output


def test_measure_refuses_infinite_c(tmp_path):
    from anonymizer.measure import measure_table
    db = people_db(tmp_path / "w.duckdb")
    with duckdb.connect(str(db)) as con, pytest.raises(SpecError, match="^c: must be a finite number"):
        measure_table(con, "people", ["age"], ["disease"], c=INF)


@pytest.mark.parametrize("args, option", [
    (["reproduce", "data", "flagged-adult", "--density", "nan"], "--density"),
    (["reproduce", "p004", "--alphas", "nan"], "--alphas"),
    (["reproduce", "p000", "--densities", "0.2,inf"], "--densities"),
])
def test_cli_number_lists_refuse_non_finite(tmp_path, args, option):
    res = CliRunner().invoke(main, [*args, "--db", str(tmp_path / "w.duckdb")])
    assert res.exit_code == 2 and option in res.output, res.output
    assert not (tmp_path / "w.duckdb").exists()
