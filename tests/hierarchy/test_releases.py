"""Releases end to end with every new builder: Mondrian (local recoding) and full-domain
generalization (every value replaced by its node at one level), verified and published."""

from __future__ import annotations

import pytest

from anonymizer import anonymize
from anonymizer.engine.session import Engine
from tests.hierarchy.conftest import build, labels
from tests.hierarchy.test_builders import EDUCATION

BUILDERS = [  # column, hierarchy, the level full-domain generalizes to
    pytest.param("hours per week", {"cgh": {"min_width": 10, "range": [1, 100]}}, 1, id="cgh"),
    pytest.param("hours per week", {"dbgh": {"min_width": 10, "range": [1, 100]}}, 3, id="dbgh"),
    pytest.param("hours per week", {"cbgh": {"min_width": 10}}, 2, id="cbgh"),
    pytest.param("hours per week", {"iotf": {"nodes": [20, 8]}}, 1, id="iotf"),
    pytest.param("zip", {"masking": 3}, 1, id="masking"),
    pytest.param("edu", {"ordered": EDUCATION, "sizes": [2, 4, 8]}, 1, id="ordered"),
    pytest.param("born", {"dates": ["month", "year", "decade"]}, 3, id="dates"),
]


@pytest.fixture
def people(con):
    con.execute(f"""
        CREATE TABLE people AS
        SELECT (i * 37) % 99 + 1 AS "hours per week",
               '2' || lpad(((i * 13) % 40)::VARCHAR, 4, '0') AS zip,
               {EDUCATION!r}[1 + i % 16] AS edu,
               DATE '1950-01-01' + ((i * 97) % 20000)::INTEGER AS born,
               ['flu', 'cold', 'hiv', 'cancer'][1 + (i * 7) % 4] AS disease
        FROM range(240) t(i)""")
    return con


def release(column: str, hierarchy: dict, name: str, **extra) -> dict:
    return {"release": name, "source": {"table": "people"}, "default_role": "identifier",
            "columns": {column: {"role": "quasi", "hierarchy": hierarchy}, "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 5}], **extra}


def smallest_class(con, view: str, column: str) -> int:
    col = '"' + column.replace('"', '""') + '"'
    return con.execute(f"SELECT min(n) FROM (SELECT count(*) AS n FROM {view} GROUP BY {col})").fetchone()[0]


@pytest.mark.parametrize("column,hierarchy,level", BUILDERS)
def test_mondrian_release(people, column, hierarchy, level):
    result = anonymize(release(column, hierarchy, "m"), people)
    assert result.rows_out == 240 and result.suppressed == 0
    assert result.measures["k"] >= 5 and smallest_class(people, result.view, column) >= 5


@pytest.mark.parametrize("column,hierarchy,level", BUILDERS)
def test_full_domain_release_publishes_the_level_nodes(people, column, hierarchy, level):
    result = anonymize(release(column, hierarchy, "fd", algorithm={"name": "full-domain", "levels": {column: level}},
                               suppression_limit=1.0), people)
    assert result.rows_out + result.suppressed == 240 and result.rows_out > 0
    assert smallest_class(people, result.view, column) >= 5
    engine = Engine(people)
    with engine.workspace():
        expected = labels(engine, build(engine, "people", column, hierarchy), level)
    col = '"' + column + '"'
    published = people.execute(f"SELECT DISTINCT {col} FROM {result.view}").fetchall()
    assert {p[0] for p in published} <= set(expected.values())
