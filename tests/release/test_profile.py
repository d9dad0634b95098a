"""The source's profile (rows, NULLs, non-finite values, the fingerprint's digest) taken in the
pass that collapses the QIs to their distinct vectors (hierarchy/qi_values.sql.j2 with
`profile`, summed by prepare/values_profile.sql.j2: Spark's way, one pass for both) is the
profile one pass over the rows gives (prepare/source_profile.sql.j2), digest included, so an
unchanged source stays unchanged across the two. Run on DuckDB, with the capability that
selects Spark's way set on the engine."""

from __future__ import annotations

import dataclasses

import duckdb
import pytest

from anonymizer.engine.capabilities import DUCKDB
from anonymizer.engine.session import Engine
from anonymizer.plan import resolve_columns
from anonymizer.source_profile import profile_source
from anonymizer.spec.parse import load_spec

SPEC = {"release": "profiled", "source": {"table": "people"}, "nulls": "suppress",
        "columns": {"age": {"role": "quasi", "type": "numeric"}, "region": "quasi", "score": {"role": "quasi", "type": "numeric"},
                    "disease": "sensitive", "note": "insensitive"},
        "models": [{"type": "k-anonymity", "k": 2}]}


def people(rows: int) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"""CREATE TABLE people AS SELECT
        CASE WHEN i % 7 = 0 THEN NULL ELSE 18 + (i * 37) % 60 END AS age,
        ['north', 'south', NULL][1 + (i * 5) % 3] AS region,
        CASE WHEN i % 11 = 0 THEN 'NaN'::DOUBLE WHEN i % 13 = 0 THEN NULL ELSE (i % 9) / 4 END AS score,
        CASE WHEN i % 5 = 0 THEN NULL ELSE ['flu', 'cold'][1 + i % 2] END AS disease,
        'note ' || i AS note FROM range({rows}) t(i)""")
    return con


@pytest.mark.parametrize("rows", [0, 1, 500])
def test_the_profile_in_the_values_pass_is_the_rows_profile(rows):
    con = people(rows)
    spec = load_spec(SPEC)
    plain = Engine(con)
    plain.open_work()
    spec = resolve_columns(spec, plain.columns('"people"'), "people")
    expected = profile_source(plain, spec, '"people"')
    apart = Engine(con)
    apart.capabilities = dataclasses.replace(DUCKDB, aggregates_apart=True)
    apart.open_work()
    found = profile_source(apart, spec, '"people"')
    assert found.values is not None and expected.values is None
    assert dataclasses.replace(found, values=None) == expected
    if rows == 500:   # the checks had something to count in every column
        assert set(expected.nulls) == {"age", "region", "score", "disease"} and set(expected.nonfinite) == {"score"}
    assert apart.count(found.values) == con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT age, region, score FROM people)").fetchone()[0]
