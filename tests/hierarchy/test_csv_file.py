"""Hierarchy files (``anonymizer.hierarchy.csv_file``): a file that is no tree is refused."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer import anonymize
from anonymizer.errors import SpecError


def _spec(path):
    return {"release": "r", "source": {"table": "t"}, "default_role": "identifier",
            "columns": {"w": {"role": "quasi", "hierarchy": {"csv": str(path)}}, "s": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 2}], "suppression_limit": 1.0}


@pytest.fixture
def people():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ('Private', 'x'), ('Self-emp', 'y'), ('Never-worked', 'z'),"
                " ('Private', 'y')) AS v(w, s)")
    return con


def test_a_value_under_two_parents_is_refused(people, tmp_path):
    """Before: the first line won silently, and 'Private' was published as 'Employed'."""
    path = tmp_path / "work.csv"
    path.write_text("Private;Employed;*\nSelf-emp;Employed;*\nNever-worked;Unemployed;*\nPrivate;Unemployed;*\n")
    with pytest.raises(SpecError, match=r"1 value\(s\) under two different parents, e.g. 'Private' as "
                                        r"'Employed;\*' and as 'Unemployed;\*'"):
        anonymize(_spec(path), con=people)
    assert not people.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0]


def test_a_repeated_line_is_no_conflict(people, tmp_path):
    path = tmp_path / "work.csv"
    path.write_text("Private;Employed;*\nSelf-emp;Employed;*\nNever-worked;Unemployed;*\nPrivate;Employed;*\n")
    result = anonymize(_spec(path), con=people)
    labels = {r[0] for r in people.execute(f"SELECT w FROM {result.view}").fetchall()}
    assert labels <= {"Employed", "*", "Private"}
