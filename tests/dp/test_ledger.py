"""The budget ledger (anonymizer.dp.ledger): a DP release spends from its account, is refused
before any work once the account cannot pay, changes its totals only by an audited refresh,
and shows its spending in `anonymizer history` and `anonymizer budget show`."""

from __future__ import annotations

import json

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer.api import anonymize
from anonymizer.cli import main
from anonymizer.errors import BudgetExhausted, SpecError
from tests.families.generalized.test_safepub import ADULT, _spec


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true)")
    con.close()
    return path


def _run(path, **changes):
    con = duckdb.connect(str(path))
    try:
        return anonymize({**_spec(steps=10), **changes}, con)
    finally:
        con.close()


def _events(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT account, event, release, version, epsilon, delta, reason FROM _anon_releases._budget "
                           "ORDER BY seq").fetchall()
    finally:
        con.close()


def test_versions_spend_until_the_budget_is_spent_then_runs_are_refused_before_any_work(db):
    budget = {"epsilon": 2.5, "delta": 1e-4}
    assert _run(db, budget=budget).version == 1
    assert _run(db, budget=budget).version == 2          # epsilon 2 of 2.5 spent
    with pytest.raises(BudgetExhausted, match="only epsilon 0.5"):
        _run(db, budget=budget)
    assert _events(db) == [("adult_dp", "open", None, None, 2.5, 1e-4, "opened by adult_dp"),
                           ("adult_dp", "spend", "adult_dp", 1, 1.0, 1e-5, None),
                           ("adult_dp", "spend", "adult_dp", 2, 1.0, 1e-5, None)]
    con = duckdb.connect(str(db), read_only=True)
    versions = con.execute("SELECT max(version) FROM _anon_releases._audit").fetchone()[0]
    work = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchone()[0]
    con.close()
    assert (versions, work) == (2, 0)                     # nothing published, no work left behind


def test_a_spec_cannot_raise_its_own_budget(db):
    _run(db, budget={"epsilon": 1.5, "delta": 1e-4})
    with pytest.raises(SpecError, match="changes only by `anonymizer budget refresh"):
        _run(db, budget={"epsilon": 100, "delta": 1e-4})


def test_delta_is_spent_too(db):
    budget = {"epsilon": 100, "delta": 2.5e-5}
    _run(db, budget=budget)
    _run(db, budget=budget)
    with pytest.raises(BudgetExhausted, match="delta"):
        _run(db, budget=budget)


def test_a_recipient_shares_one_budget_across_releases(db):
    budget = {"epsilon": 2.5, "delta": 1e-4, "recipient": "lab"}
    _run(db, budget=budget)
    _run(db, budget=budget, release="other", output={"view": "other"})
    with pytest.raises(BudgetExhausted, match="budget lab"):
        _run(db, budget=budget, release="third", output={"view": "third"})


def test_refresh_is_explicit_audited_and_shown(db):
    budget = {"epsilon": 1.5, "delta": 1e-4}
    _run(db, budget=budget)
    with pytest.raises(BudgetExhausted):
        _run(db, budget=budget)
    runner = CliRunner()
    refused = runner.invoke(main, ["budget", "refresh", "adult_dp", "--db", str(db), "--reason", " "])
    assert refused.exit_code == 2 and "--reason" in refused.output
    done = runner.invoke(main, ["budget", "refresh", "adult_dp", "--db", str(db), "--reason", "new agreement 2027"])
    assert done.exit_code == 0, done.output
    assert "epsilon 0 of 1.5 spent" in done.output and "new agreement 2027" in done.output
    assert _run(db, budget=budget).version == 2
    shown = runner.invoke(main, ["budget", "show", "--db", str(db), "--json"])
    account = json.loads(shown.output)["accounts"][0]
    assert [e["event"] for e in account["events"]] == ["open", "spend", "refresh", "spend"]
    assert account["spent"] == {"epsilon": 1.0, "delta": 1e-5} and account["left"]["epsilon"] == 0.5
    assert account["lifetime"] == {"epsilon": 2.0, "delta": 2e-5} and account["refreshes"] == 1
    said = runner.invoke(main, ["budget", "show", "adult_dp", "--db", str(db)]).output.splitlines()[0]
    assert said.endswith("; over its life, across 1 refresh: epsilon 2, delta 2e-05")
    history = runner.invoke(main, ["history", "adult_dp", "--db", str(db)])
    assert history.output.count("budget    spent epsilon 1") == 2 and "cumulative epsilon 1 of 1.5" in history.output
    assert history.output.count("a measure of the published rows only: DP versions compose by epsilon") == 2


def test_the_cli_refuses_an_overspending_run_with_exit_1(db, tmp_path):
    import yaml
    spec = tmp_path / "dp.yml"
    spec.write_text(yaml.safe_dump({**_spec(steps=10), "budget": {"epsilon": 1.5, "delta": 1e-4}}))
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(spec), "--db", str(db)]).exit_code == 0
    again = runner.invoke(main, ["run", str(spec), "--db", str(db)])
    assert again.exit_code == 1 and "would spend epsilon 1" in again.output


@pytest.mark.parametrize(("budget", "field"), [(None, "budget"), ({"epsilon": 0.5, "delta": 1e-4}, "budget"),
                                               ({"epsilon": 5}, "budget")])
def test_budget_rules(budget, field):
    from anonymizer.spec.parse import load_spec
    spec = {k: v for k, v in _spec().items() if k != "budget"}
    if budget is not None:
        spec["budget"] = budget
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert str(err.value).startswith(field)


def test_a_syntactic_release_takes_no_budget():
    from anonymizer.spec.parse import load_spec
    with pytest.raises(SpecError, match="budget"):
        load_spec({"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi"},
                   "models": [{"type": "k-anonymity", "k": 2}], "budget": {"epsilon": 1, "delta": 0}})


def test_the_html_report_says_the_cumulative_epsilon(db, tmp_path):
    budget = {"epsilon": 5, "delta": 1e-4}
    _run(db, budget=budget)
    _run(db, budget=budget)
    page = tmp_path / "r.html"
    done = CliRunner().invoke(main, ["report", "adult_dp", "--db", str(db), "--html", str(page)])
    assert done.exit_code == 0, done.output
    text = page.read_text(encoding="utf-8")
    assert "cumulative ε 1, δ 1e-05" in text and "cumulative ε 2, δ 2e-05" in text


def test_a_dp_release_is_refused_off_duckdb_before_any_work():
    """Spark's engine declares no differential capability: a DP release names the engine it needs."""
    from types import SimpleNamespace

    from anonymizer.engine.capabilities import SPARK
    from anonymizer.errors import UnsupportedError
    from anonymizer.release.run import _refuse_outputs
    from anonymizer.spec.parse import load_spec
    spark = SimpleNamespace(capabilities=SPARK, name="spark")
    with pytest.raises(UnsupportedError, match="runs on DuckDB only"):
        _refuse_outputs(load_spec({**_spec(), "budget": {"epsilon": 5, "delta": 1e-4}}), spark)


def test_a_release_keeps_its_account(db):
    """The versions compose whatever the account: naming another recipient, or losing the ledger,
    does not start the release afresh."""
    _run(db, budget={"epsilon": 1.5, "delta": 1e-4})
    with pytest.raises(SpecError, match="spent from account adult_dp"):
        _run(db, budget={"epsilon": 1.5, "delta": 1e-4, "recipient": "someone-else"})
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE _anon_releases._budget")
    con.close()
    with pytest.raises(SpecError, match="no longer holds"):
        _run(db, budget={"epsilon": 1.5, "delta": 1e-4})


@pytest.mark.parametrize(("option", "value"), [("--epsilon", "nan"), ("--epsilon", "inf"), ("--epsilon", "1e400"),
                                               ("--delta", "nan")])
def test_refresh_refuses_totals_that_are_not_finite(db, option, value):
    _run(db, budget={"epsilon": 1.5, "delta": 1e-4})
    done = CliRunner().invoke(main, ["budget", "refresh", "adult_dp", "--db", str(db), "--reason", "r", option, value])
    assert done.exit_code == 2 and option in done.output
    assert [e[1] for e in _events(db)] == ["open", "spend"]   # nothing written


def test_another_snapshot_schema_of_the_database_never_opens_a_fresh_account(db):
    """A release published again with another snapshot schema (its view elsewhere too) spends from
    the account it has: one account of a name a database, whichever schema's ledger keeps it."""
    budget = {"epsilon": 1.5, "delta": 1e-4}
    _run(db, budget=budget)
    with pytest.raises(SpecError, match="kept in the ledger of schema _anon_releases") as refused:
        _run(db, budget=budget, output={"view": "adult_dp2", "schema": "pub2", "snapshot_schema": "snap2"})
    assert refused.value.field == "output.snapshot_schema"
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM duckdb_schemas() WHERE schema_name IN ('pub2', 'snap2')").fetchone() == (0,)
    con.close()
    runner = CliRunner()
    opened = runner.invoke(main, ["budget", "open", "adult_dp", "--epsilon", "5", "--delta", "1e-4", "--reason",
                                  "a second account", "--schema", "snap2", "--db", str(db)])
    assert opened.exit_code == 2 and "kept in the ledger of schema _anon_releases" in opened.output
    # a schema's own table of that name is no ledger: it hides no account
    con = duckdb.connect(str(db))
    con.execute("CREATE SCHEMA mine; CREATE TABLE mine._budget (note VARCHAR)")
    con.close()
    assert _run(db, budget=budget, release="other", output={"view": "other"}).version == 1
