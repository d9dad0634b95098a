"""``anonymizer reproduce data ...`` creates the papers' data sets; the experiments' options
are checked before any work (the experiments themselves run in tests/families/lgb, tests/families/anatomy,
tests/families/identity_reserved and tests/families/generalized/test_lattice_eval.py)."""

from __future__ import annotations

import json

import duckdb
import pytest


def test_data_sets_go_into_the_database(invoke, tmp_path):
    db = tmp_path / "w.duckdb"
    res = invoke("reproduce", "data", "table2", "--db", db)
    assert res.exit_code == 0 and "paper 004's Table 2 (10 records, 7 individuals)" in res.output, res.output
    res = invoke("reproduce", "data", "patients", "--individuals", 40, "--seed", 3, "--db", db)
    assert res.exit_code == 0 and "table patients: 40 patients" in res.output, res.output
    res = invoke("reproduce", "data", "flagged-adult", "--density", 0.1, "--db", db)
    assert res.exit_code == 0 and "table adult_flagged: 30162 rows, flags at density 0.1" in res.output, res.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM patients_table2").fetchone() == (10,)
        assert con.execute("SELECT count(DISTINCT patient_id) FROM patients").fetchone() == (40,)
        share = con.execute("SELECT avg(sex_flag::INT) FROM adult_flagged").fetchone()[0]
        assert 0.07 < share < 0.13


@pytest.mark.parametrize("args, option", [
    (["p000", "--densities", "0.2,inf"], "--densities"),
    (["p000", "--ks", "5,x"], "--ks"),
    (["p002", "--batch", "2"], "--batch"),
    (["p002", "--sizes", "1000,nan"], "--sizes"),
    (["p004", "--alphas", "nan"], "--alphas"),
    (["p004", "--individuals", "3"], "--individuals"),
    (["data", "flagged-adult", "--density", "1.5"], "--density"),
])
def test_bad_options_are_refused_before_any_work(invoke, tmp_path, args, option):
    res = invoke("reproduce", *args, "--db", tmp_path / "w.duckdb")
    assert res.exit_code == 2 and option in res.output, res.output
    assert not (tmp_path / "w.duckdb").exists()


@pytest.mark.slow
def test_worked_examples_print_the_papers_table_beside_ours(invoke):
    """``reproduce p004 --table 4`` releases Table 2 and shows Table 4 beside ours, row by row;
    an unknown number is refused with the list of those there are."""
    res = invoke("reproduce", "p004", "--table", "4")
    assert res.exit_code == 0, res.output
    assert res.output.count("\n1    4       F ") == 2 and "same as the paper" in res.output
    assert "≠" not in res.output
    res = invoke("reproduce", "p004", "--table", "4", "--json")
    got = json.loads(res.output)
    assert got["same"] and got["tables"][0]["ours"][5] == ["2", "1", "{M, F}", "[36, 38]",
                                                           "{10076, 10077, 10085, 10086}", "Hypertension"]
    res = invoke("reproduce", "p004", "--table", "99")
    assert res.exit_code == 2 and "no worked table 99" in res.output and "--table 4" in res.output
    res = invoke("reproduce", "examples")
    assert res.exit_code == 0 and "p004\n  --table 3" in res.output and "\n  --table 4" in res.output


def test_a_difference_is_marked_cell_by_cell():
    from anonymizer.reproduce.worked import Side, format_side
    side = Side("T", ["a", "b"], [(1, "x"), (2, "y")], [(1, "x"), (2, "z"), (3, "w")])
    text = format_side(side)
    assert not side.same and side.cells == [[True, True], [True, False]]
    assert "=  1  " in text and "≠  2    [z]" in text and "≠  [3]  [w]" in text
    assert "differs from the paper" in text


def test_a_worked_example_never_touches_the_users_database(invoke, tmp_path):
    """The examples create tables named patients, patients_table2, adult and releases: they run
    in memory, so a --db holding a table of that name keeps it unchanged and gains nothing."""
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE patients_table2 AS SELECT 42 AS mine")
    res = invoke("reproduce", "p004", "--table", "4", "--db", db)
    assert res.exit_code == 0 and "same as the paper" in res.output, res.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT * FROM patients_table2").fetchall() == [(42,)]
        assert con.execute("SELECT table_schema || '.' || table_name FROM information_schema.tables").fetchall() == [
            ("main.patients_table2",)]
