"""``anonymizer hierarchy show | export``: from a spec, ad hoc from a file or a table, JSON, export,
errors."""

from __future__ import annotations

import json

import duckdb
import pytest

from anonymizer.demo import load_adult


@pytest.fixture(scope="module")
def adult_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "adult.duckdb"
    with duckdb.connect(str(db)) as con:
        load_adult(con)
    return db


def test_help_teaches_with_an_example(invoke):
    out = invoke("hierarchy", "show", "--help").output
    assert "anonymizer hierarchy show --table adult --column hours-per-week --builder cbgh" in out
    for builder in ("cgh", "dbgh", "cbgh", "masking", "intervals", "dates", "ordered"):
        assert builder in out
    assert "hierarchy" in invoke("--help").output


def test_table4_from_a_table_as_json(invoke, adult_db):
    res = invoke("hierarchy", "show", "--db", adult_db, "--table", "adult", "--column", "hours-per-week",
                 "--builder", "cbgh", "--min-width", 10, "--range", "1,100", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert (out["kind"], out["height"], out["nested"], out["values"]) == ("cbgh", 5, True, 94)
    assert [lv["nodes"] for lv in out["levels"]] == [94, 10, 5, 3, 2, 1]
    assert out["levels"][3]["examples"] == ["[1, 40]", "[41, 60]", "[61, 100]"]
    assert round(out["levels"][4]["max_distortion"], 2) == 2.98


def test_text_output_and_export_round_trip(invoke, adult_db, tmp_path):
    out_csv = tmp_path / "hours.csv"
    res = invoke("hierarchy", "export", "--db", adult_db, "--table", "adult", "--column", "HOURS-per-week",
                 "--builder", "dbgh", "--min-width", 10, "--range", "1,100", "--output", out_csv)
    assert res.exit_code == 0, res.output
    assert "dbgh hierarchy, 94 values, height 5, NOT nested" in res.output
    assert "    3       4  1.21          [1, 25], [26, 50], [51, 75], ..." in res.output
    lines = out_csv.read_text().splitlines()
    assert len(lines) == 94 and lines[0] == "1;[1, 10];[1, 20];[1, 25];[1, 50];*"
    spec = tmp_path / "r.yml"
    spec.write_text(f"release: r\nsource: {{table: adult}}\ndefault_role: identifier\ncolumns:\n"
                    f"  hours-per-week: {{role: quasi, hierarchy: {out_csv}}}\n"
                    "models: [{type: k-anonymity, k: 5}]\n")
    again = invoke("hierarchy", "show", spec, "--column", "hours-per-week", "--db", adult_db, "--json")
    assert again.exit_code == 0, again.output
    levels = json.loads(again.output)["levels"]
    assert [lv["nodes"] for lv in levels] == [94, 10, 5, 4, 2, 1]
    assert levels[3]["examples"] == ["[1, 25]", "[26, 50]", "[51, 75]"]


def test_spec_with_a_file_source_needs_no_database(invoke, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("zip,d\n" + "".join(f"{21000 + i * 7},{'ab'[i % 2]}\n" for i in range(50)))
    spec = tmp_path / "r.yml"
    spec.write_text(f"release: r\nsource: {{path: {data}}}\ncolumns:\n"
                    "  zip: {role: quasi, hierarchy: {masking: 2}}\n  d: sensitive\n"
                    "models: [{type: k-anonymity, k: 2}]\n")
    res = invoke("hierarchy", "show", spec, "--column", "zip")
    assert res.exit_code == 0, res.output
    assert "zip: masking hierarchy, 50 values, height 3, nested" in res.output
    assert "[21000" not in res.output and "210**" in res.output


def test_ad_hoc_from_a_file(invoke, tmp_path):
    data = tmp_path / "events.csv"
    data.write_text("day\n" + "".join(f"2021-{1 + i % 12:02d}-{1 + i % 28:02d}\n" for i in range(60)))
    res = invoke("hierarchy", "show", "--data", data, "--column", "day", "--builder", "dates", "--units", "quarter,year",
                 "--json")
    assert res.exit_code == 0, res.output
    levels = json.loads(res.output)["levels"]
    assert [lv["nodes"] for lv in levels] == [60, 4, 1, 1]
    assert levels[1]["examples"] == ["2021-Q1", "2021-Q2", "2021-Q3"]


@pytest.mark.parametrize("args,message", [
    (["--builder", "cgh"], "without a SPEC, give --builder and one of --data FILE or --table T"),
    (["--table", "adult", "--builder", "cgh"], "hierarchy.cgh.min_width: is required"),
    (["--table", "adult", "--builder", "cgh", "--min-width", "5", "--widths", "3"], "--widths: does not apply to cgh"),
    (["--table", "adult", "--builder", "intervals", "--widths", "5,x"], "--widths: must be numbers"),
    (["--table", "adult", "--builder", "cgh", "--min-width", "5", "--range", "30,60"], "does not hold the values"),
    (["--table", "adult", "--builder", "dates", "--units", "year"], "dates need a DATE or TIMESTAMP column"),
])
def test_errors_exit_2_naming_the_option(invoke, adult_db, args, message):
    res = invoke("hierarchy", "show", "--db", adult_db, "--column", "hours-per-week", *args)
    assert res.exit_code == 2 and message in res.output, res.output


def test_missing_database_and_column(invoke, tmp_path, adult_db):
    res = invoke("hierarchy", "show", "--db", tmp_path / "none.duckdb", "--table", "t", "--column", "x", "--builder",
                 "masking")
    assert res.exit_code == 2 and "--db " in res.output and ": no such database file" in res.output
    res = invoke("hierarchy", "show", "--db", adult_db, "--table", "adult", "--column", "nope", "--builder", "masking")
    assert res.exit_code == 2 and "--column: is not a column" in res.output
    # a --data file that is not there is the user's input (2), not a database failure (3)
    for command in ("show", "export"):
        res = invoke("hierarchy", command, "--data", tmp_path / "none.csv", "--column", "x", "--builder", "masking")
        assert res.exit_code == 2 and "none.csv" in res.output and "does not exist" in res.output, res.output
