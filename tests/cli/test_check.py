"""``anonymizer check``: any table measured from the shell, as text or JSON, read-only."""

from __future__ import annotations

import json

import duckdb

from anonymizer.cli.check import format_measure


def people(path):
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE people AS SELECT 20 + i % 4 AS age, ['a', 'b', 'c'][i % 3 + 1] AS disease "
                    "FROM range(24) t(i)")
    return path


def test_text_and_json_agree_and_nothing_is_written(invoke, tmp_path):
    db = people(tmp_path / "w.duckdb")
    before = db.read_bytes()
    text = invoke("check", "--db", db, "--table", "people", "--qi", "age", "--sensitive", "disease")
    assert text.exit_code == 0, text.output
    figures = json.loads(invoke("check", "--db", db, "--table", "people", "--qi", "age", "--sensitive", "disease",
                                "--json").output)
    assert figures["k"] == 6 and figures["classes"] == 4
    assert text.output.strip() == format_measure(figures)
    assert "k-anonymity: k = 6 (smallest class)" in text.output and "sensitive 'disease': distinct l = 3" in text.output
    assert db.read_bytes() == before


def test_a_missing_database_is_not_created(invoke, tmp_path):
    res = invoke("check", "--db", tmp_path / "none.duckdb", "--table", "t", "--qi", "a")
    assert res.exit_code == 2 and "no such database file" in res.output
    assert not (tmp_path / "none.duckdb").exists()
