"""The published form of generalized releases (issue 16): a per-row view as wide as the
source, a class table ``<view>_classes`` once per class, labels from the hierarchies the
user declared (for Mondrian as for full-domain), DATE and TIMESTAMP QIs as ranges.

The source carries an ``id`` passed through as an insensitive column, only so that these
tests can join every published row back to its source row and check that the label covers
the true value (a real release would drop it)."""

from __future__ import annotations

import re

import duckdb
import pytest
from pycanon import anonymity

from anonymizer import anonymize
from anonymizer.measure import measure_table

ROWS = 4000


def make_people(con, rows: int = ROWS) -> None:
    con.execute(f"""
        CREATE TABLE people AS
        SELECT i AS id,
               lpad(((hash(i, 1) % 90000) + 10000)::VARCHAR, 5, '0') AS zip,
               DATE '1940-01-01' + ((hash(i, 2) % 22000)::INTEGER) AS birth,
               TIMESTAMP '2024-01-01 00:00:00' + to_seconds((hash(i, 6) % 5000000)::BIGINT) AS seen,
               17 + (hash(i, 3) % 70)::INTEGER AS age,
               CASE WHEN hash(i, 4) % 2 = 0 THEN 'Female' ELSE 'Male' END AS sex,
               ['a', 'b', 'c', 'd', 'e', 'f'][1 + (hash(i, 5) % 6)::INTEGER] AS diagnosis
        FROM range({rows}) t(i)""")


COLUMNS = {
    "id": {"role": "insensitive"},
    "zip": {"role": "quasi", "hierarchy": {"masking": True}},
    "birth": {"role": "quasi", "hierarchy": {"dates": ["month", "quarter", "year", "decade"]}},
    "age": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10, 20]}},
    "sex": {"role": "quasi"},
    "diagnosis": {"role": "sensitive"},
}
MODELS = [{"type": "k-anonymity", "k": 5}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "diagnosis"},
          {"type": "t-closeness", "t": 0.5, "sensitive": "diagnosis"}]
ALGORITHMS = {
    "mondrian": {"name": "mondrian"},
    "full-domain": {"name": "full-domain", "levels": {"zip": 5, "birth": 4, "age": 2, "sex": 0}},
    "optimal": {"name": "optimal"},
}


def release(con, which: str, columns=COLUMNS, **extra):
    name = f"people_{which.replace('-', '_')}"
    spec = {"release": name, "source": {"table": "people"}, "columns": columns, "default_role": "identifier",
            "models": MODELS, "algorithm": ALGORITHMS[which], "suppression_limit": 0.1, "output": {"view": name}}
    return anonymize({**spec, **extra}, con)


@pytest.fixture(scope="module")
def people():
    con = duckdb.connect()
    make_people(con)
    yield con
    con.close()


def describe(con, relation: str) -> dict[str, str]:
    return {name: kind for name, kind, *_ in con.execute(f"DESCRIBE {relation}").fetchall()}


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_the_per_row_view_is_as_wide_as_the_source(people, algorithm):
    r = release(people, algorithm)
    cols = describe(people, r.view)
    assert list(cols) == ["eq_class", "zip", "birth", "birth_low", "birth_high", "age", "age_low", "age_high",
                          "sex", "diagnosis", "id"]
    assert not [c for c, kind in cols.items() if kind.endswith("[]")], "no list column on a row"
    assert cols["birth_low"] == cols["birth_high"] == "DATE"
    assert r.views == [f"{r.view}_classes"]
    classes = describe(people, r.views[0])
    assert list(classes) == ["eq_class", "class_size", "zip", "zip_level", "zip_values", "zip_count", "birth",
                             "birth_low", "birth_high", "birth_level", "age", "age_low", "age_high", "age_level",
                             "sex", "sex_level", "sex_values", "sex_count"]
    n, size, distinct = people.execute(f"SELECT count(*), sum(class_size), count(DISTINCT eq_class) "
                                       f"FROM {r.views[0]}").fetchone()
    assert n == distinct == r.classes and size == r.rows_out
    # The class table agrees with the rows: every class's size and labels.
    bad = people.execute(f"""
        SELECT count(*) FROM (SELECT eq_class, count(*) AS n, any_value(zip) AS zip, any_value(birth) AS birth,
                                     any_value(age) AS age, any_value(sex) AS sex,
                                     count(DISTINCT (zip, birth, age, sex)) AS forms
                              FROM {r.view} GROUP BY eq_class) AS v
        FULL JOIN {r.views[0]} AS c USING (eq_class)
        WHERE v.n IS DISTINCT FROM c.class_size OR v.forms <> 1 OR v.zip IS DISTINCT FROM c.zip
           OR v.birth IS DISTINCT FROM c.birth OR v.age IS DISTINCT FROM c.age OR v.sex IS DISTINCT FROM c.sex
    """).fetchone()[0]
    assert bad == 0


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_labels_are_nodes_of_the_declared_hierarchies_and_cover_the_true_values(people, algorithm):
    r = release(people, algorithm)
    rows = people.execute(f"""
        SELECT count(*),
               count(*) FILTER (WHERE v.zip <> '*' AND (NOT regexp_full_match(v.zip, '[0-9]*[*]*')
                                   OR length(v.zip) <> 5 OR NOT p.zip LIKE replace(v.zip, '*', '_'))),
               count(*) FILTER (WHERE NOT (regexp_full_match(v.birth, '[0-9]{{4}}-[0-9]{{2}}|[0-9]{{4}}-Q[1-4]|[0-9]{{4}}s?')
                                           OR v.birth IN ('*', strftime(p.birth, '%Y-%m-%d')))
                                   OR NOT p.birth BETWEEN v.birth_low AND v.birth_high),
               count(*) FILTER (WHERE NOT p.age BETWEEN v.age_low AND v.age_high
                                   OR NOT (regexp_full_match(v.age, '\\[[0-9]+, [0-9]+\\]') OR v.age IN ('*', p.age::VARCHAR))),
               count(*) FILTER (WHERE v.sex NOT IN (p.sex, '*') AND v.sex <> '{{Female, Male}}')
        FROM {r.view} AS v JOIN people AS p USING (id)""").fetchone()
    assert rows[0] == r.rows_out > 0
    assert rows[1:] == (0, 0, 0, 0), rows
    if algorithm == "mondrian":   # a local recoding: classes at different levels of one hierarchy
        levels = people.execute(f"SELECT count(DISTINCT zip_level), count(DISTINCT birth_level), "
                                f"count(DISTINCT age_level) FROM {r.views[0]}").fetchone()
        assert levels[1] >= 2 and levels[2] >= 2, levels


def test_a_date_and_a_timestamp_without_hierarchy_become_ranges(people):
    columns = {"id": {"role": "insensitive"}, "birth": {"role": "quasi"}, "seen": {"role": "quasi"},
               "sex": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}}
    r = release(people, "mondrian", columns=columns)
    cols = describe(people, r.view)
    assert (cols["birth_low"], cols["seen_low"]) == ("DATE", "TIMESTAMP")
    bad, ranges = people.execute(f"""
        SELECT count(*) FILTER (WHERE NOT p.birth BETWEEN v.birth_low AND v.birth_high
                                   OR NOT p.seen BETWEEN v.seen_low AND v.seen_high
                                   OR v.birth <> CASE WHEN v.birth_low = v.birth_high THEN v.birth_low::VARCHAR
                                                      ELSE '[' || v.birth_low || ', ' || v.birth_high || ']' END),
               count(*) FILTER (WHERE v.birth_low < v.birth_high)
        FROM {r.view} AS v JOIN people AS p USING (id)""").fetchone()
    assert bad == 0 and ranges > 0


def test_declared_categorical_date_keeps_value_sets(people):
    columns = {"birth": {"role": "quasi", "type": "categorical"}, "sex": {"role": "quasi"},
               "diagnosis": {"role": "sensitive"}}
    r = release(people, "mondrian", columns=columns)
    assert "birth_low" not in describe(people, r.view)
    assert people.execute(f"SELECT count(*) FROM {r.views[0]} WHERE len(birth_values) <> birth_count").fetchone()[0] == 0


def test_values_labels_publish_each_class_its_own_values(people):
    r = release(people, "mondrian", algorithm={"name": "mondrian", "labels": "values"})
    zips = people.execute(f"""SELECT count(*) FILTER (WHERE zip LIKE '%*%' AND zip <> '*'),
                                     count(*) FILTER (WHERE zip_values IS NULL) FROM {r.views[0]}""").fetchone()
    assert zips == (0, 0)


@pytest.mark.parametrize("algorithm", ["mondrian", "full-domain"])
def test_models_hold_when_measured_again_from_the_published_tables(people, algorithm):
    """Hold-out check: k, l and t re-measured from the per-row view (classes: eq_class with
    the labels), by our measure and by pycanon, and the labels alone never less private."""
    r = release(people, algorithm, release=f"holdout_{algorithm[:4]}", output={"view": f"holdout_{algorithm[:4]}"})
    seen = ["eq_class", "zip", "birth", "age", "sex"]
    m = measure_table(people, r.view, seen, ["diagnosis"], reference="people")
    occ = m["sensitive"]["diagnosis"]
    assert m["k"] >= 5 and occ["distinct_l"] >= 2 and occ["t"] <= 0.5 + 1e-9
    assert (m["k"], occ["distinct_l"]) == (r.measures["k"], r.measures["sensitive"]["diagnosis"]["distinct_l"])
    df = people.execute(f"SELECT * FROM {r.view}").df().reset_index(drop=True)
    assert anonymity.k_anonymity(df, seen) == m["k"]
    assert anonymity.l_diversity(df, seen, ["diagnosis"]) == occ["distinct_l"]
    assert anonymity.k_anonymity(df, seen[1:]) >= m["k"]


def test_a_qi_named_like_a_class_table_column_is_refused(people):
    columns = dict(COLUMNS, sex={"role": "insensitive"})
    people.execute("CREATE OR REPLACE VIEW people_clash AS SELECT *, sex AS class_size FROM people")
    spec = {"release": "clash", "source": {"table": "people_clash"}, "columns": dict(columns, class_size={"role": "quasi"}),
            "default_role": "identifier", "models": [{"type": "k-anonymity", "k": 5}]}
    with pytest.raises(Exception, match="class_size"):
        anonymize(spec, people)
    assert people.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'clash'").fetchone()[0] == 0
