"""Mondrian's cells from the source's distinct vectors (anonymizer/families/generalized/vectors.py,
Spark's way: the vectors come from the source's profile's pass) are the cells of the rows: the
same release as cells collapsed from base, strict and relaxed, with models that read a
sensitive column; where base leaves rows out (NULLs suppressed) the rows are read instead.
Run on DuckDB with the capability that selects Spark's way set on the engine."""

from __future__ import annotations

import dataclasses

import duckdb
import pytest

from anonymizer.engine.capabilities import DUCKDB
from anonymizer.engine.session import Engine
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec


def people(con, nulls: bool) -> None:
    con.execute(f"""CREATE OR REPLACE TABLE people AS SELECT
        18 + (i * 37) % 60 AS age, ['north', 'south', 'east'][1 + (i * 5) % 3] AS region,
        (i * 7) % 11 AS score,
        CASE WHEN {nulls} AND i % 23 = 0 THEN NULL ELSE ['flu', 'cold', 'hiv', 'none'][1 + (i * 3) % 4] END AS disease,
        ['a', 'b'][1 + i % 2] AS income, 'note ' || (i % 9) AS note FROM range(900) t(i)""")


def release(con, relaxed: bool, log: list) -> list:
    spec = {"release": "vec", "source": {"table": "people"}, "nulls": "suppress", "suppression_limit": 0.1,
            "algorithm": {"name": "mondrian", "seed": 3, "relaxed": relaxed},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "region": "quasi",
                        "score": {"role": "quasi", "type": "numeric"}, "disease": "sensitive", "income": "sensitive",
                        "note": "insensitive"},
            "models": [{"type": "k-anonymity", "k": 6}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"},
                       {"type": "t-closeness", "t": 0.4, "sensitive": "income"}]}
    result = run_release(load_spec(spec), con, force=True, log=log)
    return [result.classes, sorted(con.execute(f"SELECT * FROM {result.view}").fetchall())]


@pytest.mark.parametrize("relaxed", [False, True])
@pytest.mark.parametrize("nulls", [False, True])
def test_the_cells_of_the_vectors_are_the_cells_of_the_rows(monkeypatch, relaxed, nulls):
    con = duckdb.connect()
    people(con, nulls)
    plain: list = []
    expected = release(con, relaxed, plain)
    monkeypatch.setattr(Engine, "capabilities", dataclasses.replace(DUCKDB, aggregates_apart=True))
    apart: list = []
    found = release(con, relaxed, apart)
    assert found == expected and found[0] > 10
    templates = {s.template for s in apart}
    assert ("families/generalized/mondrian/cells_of_vectors.sql.j2" in templates) is not nulls
    assert ("families/generalized/mondrian/cells.sql.j2" in templates) is nulls
    assert "families/generalized/mondrian/cells_of_vectors.sql.j2" not in {s.template for s in plain}
