"""DuckDB resources of a run (issue 16): the spec's ``engine`` field and ``run --memory-limit``
are validated with a clear message naming the field, applied while the release runs, and the
connection's own settings are back afterwards."""

from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.cli import main
from anonymizer.engine.session import Engine
from anonymizer.engine.settings import Settings
from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec, memory_limit
from anonymizer.datasets.synthetic import make_adult_like

BASE = {"release": "r", "source": {"table": "adult"}, "default_role": "identifier",
        "columns": {"age": {"role": "quasi", "type": "numeric"}, "sex": "quasi", "salary": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 5}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "salary"}]}


def setting(con, name):
    return con.execute(f"SELECT current_setting('{name}')").fetchone()[0]


def test_engine_field_is_parsed_and_left_out_of_the_hash(tmp_path):
    spec = load_spec(dict(BASE, engine={"memory_limit": "8GB", "threads": 1, "temp_directory": "spill"}),
                     base_dir=tmp_path)
    assert spec.engine == Settings("8GB", 1, str(tmp_path / "spill"))
    assert spec.spec_hash() == load_spec(BASE).spec_hash()   # resources never make a new version
    assert load_spec(BASE).engine == Settings()
    assert load_spec(dict(BASE, engine={"memory_limit": "50%"})).engine.memory_limit == "50%"


@pytest.mark.parametrize("engine, field", [
    ({"memory_limit": "8"}, "engine.memory_limit"), ({"memory_limit": 8}, "engine.memory_limit"),
    ({"memory_limit": "0GB"}, "engine.memory_limit"), ({"memory_limit": "150%"}, "engine.memory_limit"),
    ({"memory_limit": "lots"}, "engine.memory_limit"), ({"threads": 0}, "engine.threads"),
    ({"threads": 2.5}, "engine.threads"), ({"threads": True}, "engine.threads"),
    ({"threads": 10**18}, "engine.threads"), ({"threads": float("nan")}, "engine.threads"),
    ({"temp_directory": ""}, "engine.temp_directory"), ({"memory": "8GB"}, "engine.memory"),
    ("8GB", "engine"),
])
def test_bad_engine_fields_name_the_field(engine, field):
    with pytest.raises(SpecError) as err:
        load_spec(dict(BASE, engine=engine))
    assert err.value.field == field


def test_memory_limit_forms():
    assert [memory_limit(v) for v in ("8GB", "512 MB", "1.5GiB", "100%", " 2tb ")] == \
           ["8GB", "512 MB", "1.5GiB", "100%", "2tb"]
    with pytest.raises(SpecError, match="--memory-limit"):
        memory_limit("-1GB", "--memory-limit")


def test_the_limit_holds_during_the_run_and_is_restored(con, tmp_path):
    make_adult_like(con, "adult", 3000, seed=1)
    con.execute("SET memory_limit = '3GB'")
    con.execute("SET threads = 2")
    before = (setting(con, "memory_limit"), setting(con, "threads"), setting(con, "temp_directory"))
    seen = []
    spill = tmp_path / "spill"

    def progress(_message):
        seen.append((setting(con, "memory_limit"), setting(con, "threads"), setting(con, "temp_directory")))

    anonymize(dict(BASE, engine={"memory_limit": "700MB", "threads": 1, "temp_directory": str(spill)}), con,
              progress=progress)
    assert seen and all(s == ("667.5 MiB", 1, str(spill)) for s in seen), seen
    assert (setting(con, "memory_limit"), setting(con, "threads"), setting(con, "temp_directory")) == before


def test_defaults_come_back_after_a_run(con):
    make_adult_like(con, "adult", 2000, seed=2)
    fresh = setting(duckdb.connect(), "memory_limit")
    assert setting(con, "memory_limit") == fresh
    anonymize(dict(BASE, engine={"memory_limit": "1GB"}), con)
    assert setting(con, "memory_limit") == fresh   # reset, not set to the rounded text
    engine = Engine(con, settings=Settings(memory_limit="1GB"))
    with pytest.raises(RuntimeError):
        with engine.workspace():
            assert setting(con, "memory_limit") == "953.6 MiB"
            raise RuntimeError("a failing run")
    assert setting(con, "memory_limit") == fresh


def test_run_memory_limit_option_wins_over_the_spec(tmp_path, monkeypatch):
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        make_adult_like(con, "adult", 2000, seed=3)
    spec = tmp_path / "r.yml"
    spec.write_text("release: r\nsource: {table: adult}\ndefault_role: identifier\n"
                    "columns: {age: {role: quasi, type: numeric}, sex: quasi, salary: sensitive}\n"
                    "models: [{type: k-anonymity, k: 5}]\nengine: {memory_limit: 2GB}\n")
    applied = []
    original = Engine.configured

    def spying(self):
        applied.append(self.settings)
        return original(self)

    monkeypatch.setattr(Engine, "configured", spying)
    runner = CliRunner()
    res = runner.invoke(main, ["run", str(spec), "--db", str(db), "-q", "--memory-limit", "1GB",
                               "--temp-directory", str(tmp_path / "t")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert applied == [Settings("1GB", None, str(tmp_path / "t"))]
    res = runner.invoke(main, ["run", str(spec), "--db", str(db), "-q", "--force"], catch_exceptions=False)
    assert res.exit_code == 0 and applied[-1] == Settings("2GB")
    bad = runner.invoke(main, ["run", str(spec), "--db", str(db), "--memory-limit", "lots"])
    assert bad.exit_code == 2 and "--memory-limit" in bad.output and "8GB" in bad.output
    spec.write_text(spec.read_text().replace("2GB", "2 bananas"))
    bad = runner.invoke(main, ["run", str(spec), "--db", str(db)])
    assert bad.exit_code == 2 and "engine.memory_limit" in bad.output


def test_a_rerun_with_other_resources_publishes_nothing_new(con):
    make_adult_like(con, "adult", 2000, seed=4)
    first = anonymize(BASE, con)
    again = anonymize(dict(BASE, engine={"memory_limit": "1GB", "threads": 1}), con)
    assert again.unchanged and again.version == first.version


def test_mondrians_round_tables_are_transient_and_go_with_the_run(con):
    make_adult_like(con, "adult", 3000, seed=5)
    during = []

    def progress(message):
        if message.startswith("round"):
            during.append(con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'temp'").fetchone()[0])

    anonymize(BASE, con, progress=progress)
    assert during and all(n > 0 for n in during)   # the rounds' tables: in the temporary catalog
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'temp'").fetchone()[0] == 0
    assert not [d for (d,) in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()
                if d.startswith("_anon_work_")]


def test_a_small_table_runs_on_one_thread_and_the_threads_come_back(con):
    """Engine.small: statements over at most one row group run on one DuckDB thread (a
    second one has no rows of its own there); a larger one keeps the connection's threads,
    and the count is back after the block, also when it fails."""
    from anonymizer.engine.session import ROW_GROUP
    con.execute("SET threads = 2")
    engine = Engine(con)
    with engine.small(ROW_GROUP):
        assert setting(con, "threads") == 1
    with engine.small(ROW_GROUP + 1):
        assert setting(con, "threads") == 2
    with pytest.raises(RuntimeError), engine.small(10):
        raise RuntimeError("inside")
    assert setting(con, "threads") == 2


def test_a_release_of_a_small_table_runs_on_one_thread(con):
    make_adult_like(con, "adult", 2000, seed=4)
    con.execute("SET threads = 2")
    seen = []
    anonymize(BASE, con, progress=lambda _message: seen.append(setting(con, "threads")))
    assert 1 in seen and setting(con, "threads") == 2   # prepared and searched on one, given back after


def test_the_threads_go_back_to_duckdbs_default(con):
    """After a block on one thread, a connection that had DuckDB's own thread count is reset
    to it (not pinned to a number), as a run's settings are restored."""
    default = setting(con, "threads")
    with Engine(con).small(10):
        assert setting(con, "threads") == 1
    assert setting(con, "threads") == default
    con.execute("SET threads = 1")
    with Engine(con).small(10):   # already one thread: nothing to set or restore
        assert setting(con, "threads") == 1
    assert setting(con, "threads") == 1
