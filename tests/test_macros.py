"""The SQL macro library (sql/anonymizer_macros.sql) against the Python engine.

Every table macro is compared with the figures the engine reports on the same table
(:func:`anonymizer.measure.measure_table`, a release's utility and audit row), and every
scalar macro with the label the engine's hierarchy builder gives the same value. Tables,
column lists and values go in as bound parameters, as an analyst's client would pass them.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer import anonymize
from anonymizer.macros import install, installed, macros_path, macros_sql
from anonymizer.measure import measure_table, record_risk
from tests.families.generalized.conftest import engine  # noqa: F401 - a fresh engine per test
from tests.conftest import ARX
from tests.hierarchy.conftest import build, labels

ADULT_QIS = [["age", "sex"], ["race", "education"], ["age", "sex", "race", "marital-status"]]
ADULT_SENSITIVE = ["occupation", "salary-class"]


def rows(con, sql: str, **params) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def one(con, sql: str, **params) -> dict:
    (row,) = rows(con, sql, **params)
    return row


@pytest.fixture(scope="module")
def mcon():
    """One database with the library installed and ARX's Adult as table `adult`."""
    con = duckdb.connect()
    install(con)
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    yield con
    con.close()


def assert_same_figures(con, tbl: str, parts, qis, sensitive, c=2.0):
    """Every measuring macro equals measure_table on (tbl, qis, sensitive)."""
    for distance in ("equal", "ordered"):
        eng = measure_table(con, parts, qis, sensitive, c=c, distance=distance)
        k = one(con, "SELECT * FROM anon_k($t, $q)", t=tbl, q=qis)
        assert (k["rows"], k["classes"], k["k"]) == (eng["rows"], eng["classes"], eng["k"])
        assert k["average_class_size"] == pytest.approx(eng["rows"] / eng["classes"])
        risk = one(con, "SELECT * FROM anon_prosecutor_risk($t, $q)", t=tbl, q=qis)
        for key in ("highest", "average", "threshold", "records_at_risk", "share_at_risk"):
            assert risk[key] == pytest.approx(eng["risk"][key]), key
        assert_same_risk(con, tbl, qis, eng["risk"])
        profile = rows(con, "SELECT * FROM anon_class_profile($t, $q)", t=tbl, q=qis)
        assert sum(p["classes"] for p in profile) == eng["classes"]
        assert sum(p["rows"] for p in profile) == eng["rows"]
        assert sum(p["share_of_rows"] for p in profile) == pytest.approx(1.0)
        for size in eng["class_sizes"]:           # the engine buckets sizes beyond 20 of them
            mine = [p for p in profile if size["min_size"] <= p["size"] <= size["max_size"]]
            assert sum(p["classes"] for p in mine) == size["classes"]
            assert sum(p["rows"] for p in mine) == size["rows"]
        if not sensitive:
            continue
        ldiv = rows(con, "SELECT * FROM anon_l_diversity($t, $q, $s, c := $c)", t=tbl, q=qis, s=sensitive, c=c)
        tclose = rows(con, "SELECT * FROM anon_t_closeness($t, $q, $s, distance := $d)", t=tbl, q=qis,
                      s=sensitive, d=distance)
        assert [r["attribute"] for r in ldiv] == [r["attribute"] for r in tclose] == list(sensitive)
        for lrow, trow in zip(ldiv, tclose):
            want = eng["sensitive"][lrow["attribute"]]
            assert lrow["distinct_l"] == want["distinct_l"]
            assert lrow["entropy_l"] == pytest.approx(want["entropy_l"], rel=1e-9)
            assert lrow["recursive_l"] == want["recursive_l"]
            assert lrow["c"] == want["c"]
            assert trow["t"] == pytest.approx(want["t"], abs=1e-9), (distance, lrow["attribute"])
            assert trow["distance"] == want["distance"] == distance


@pytest.mark.parametrize("qis", ADULT_QIS, ids=lambda q: "+".join(q))
def test_measures_agree_with_the_engine_on_adult(mcon, qis):
    assert_same_figures(mcon, "adult", "adult", qis, ADULT_SENSITIVE, c=3.0)


@pytest.mark.parametrize("qis", ADULT_QIS[:2], ids=lambda q: "+".join(q))
def test_failing_classes_agree_with_the_engine(mcon, qis):
    """The per-class macros (which dbt's generic tests read) flag exactly the classes the
    engine's model checks count as failing, threshold by threshold."""
    from anonymizer.engine.session import Engine
    from anonymizer.models.catalog import (DistinctLDiversity, EntropyLDiversity, KAnonymity,
                                           RecursiveCLDiversity, TCloseness)
    from anonymizer.models.check import evaluate_all
    from anonymizer.engine.names import ident

    models = [KAnonymity(5), KAnonymity(50), DistinctLDiversity(3, "occupation"), DistinctLDiversity(8, "occupation"),
              EntropyLDiversity(3.0, "occupation"), EntropyLDiversity(6.0, "occupation"),
              RecursiveCLDiversity(3.0, 3, "occupation"), RecursiveCLDiversity(1.5, 2, "salary-class"),
              TCloseness(0.2, "salary-class", "equal"), TCloseness(0.3, "occupation", "ordered")]
    found = evaluate_all(Engine(mcon), models, '"adult"', [ident(q) for q in qis],
                         {s: ident(s) for s in ADULT_SENSITIVE})
    p = {"t": "adult", "q": qis}
    mine = [
        one(mcon, "SELECT count(*) AS n FROM anon_classes($t, $q) WHERE size < 5", **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_classes($t, $q) WHERE size < 50", **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['occupation']) WHERE distinct_l < 3", **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['occupation']) WHERE distinct_l < 8", **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['occupation']) WHERE entropy_l < 3 - 1e-9",
            **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['occupation']) WHERE entropy_l < 6 - 1e-9",
            **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['occupation'], c := 3) WHERE recursive_l < 3",
            **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_l_classes($t, $q, ['salary-class'], c := 1.5) "
                  "WHERE recursive_l < 2", **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_t_classes($t, $q, ['salary-class']) WHERE emd > 0.2 + 1e-9",
            **p)["n"],
        one(mcon, "SELECT count(*) AS n FROM anon_t_classes($t, $q, ['occupation'], distance := 'ordered') "
                  "WHERE emd > 0.3 + 1e-9", **p)["n"],
    ]
    assert mine == [r.failing for r in found]
    assert all(r.failing > 0 for r in found[1::2]), "each second threshold is chosen to fail somewhere"


def test_the_figures_are_not_trivial_on_adult(mcon):
    """The comparisons above are not between zeros: Adult by (age, sex) has k = 1, and
    grouped by race the classes are diverse, t-distant, and their l depends on c."""
    assert one(mcon, "SELECT k FROM anon_k('adult', ['age', 'sex'])")["k"] == 1
    by_race = {r["attribute"]: r for r in rows(mcon, "SELECT * FROM anon_l_diversity('adult', ['race'], $s)",
                                                s=ADULT_SENSITIVE)}
    assert by_race["occupation"]["distinct_l"] == 13 and by_race["salary-class"]["distinct_l"] == 2
    assert 5 < by_race["occupation"]["entropy_l"] < 13
    loose = one(mcon, "SELECT recursive_l FROM anon_l_diversity('adult', ['race'], ['occupation'], c := 10)")
    assert loose["recursive_l"] > by_race["occupation"]["recursive_l"] > 1
    t = one(mcon, "SELECT t FROM anon_t_closeness('adult', ['race'], ['salary-class'])")["t"]
    assert 0.05 < t < 0.5


def test_prosecutor_risk_by_hand():
    """Classes of 4, 5 and 6 rows: risks 1/4, 1/5, 1/6. Only the class of 4 is above the
    default threshold 0.2 (El Emam's "fewer than 5"), and 1/5 is not above 1/5."""
    con = duckdb.connect()
    install(con)
    con.execute("CREATE TABLE t AS SELECT g FROM (VALUES (4), (5), (6)) v(g), range(g)")
    risk = one(con, "SELECT * FROM anon_prosecutor_risk('t', ['g'])")
    assert risk["highest"] == 0.25 and risk["average"] == pytest.approx(3 / 15)
    assert risk["records_at_risk"] == 4 and risk["share_at_risk"] == pytest.approx(4 / 15)
    assert one(con, "SELECT records_at_risk FROM anon_prosecutor_risk('t', ['g'], threshold := 0.19)") == \
        {"records_at_risk": 9}
    assert measure_table(con, "t", ["g"])["risk"]["records_at_risk"] == 4


def assert_same_risk(con, tbl: str, qis, want: dict, population: str | None = None, threshold: float = 0.2):
    """anon_risk's three rows equal measure_table's prosecutor, journalist and marketer."""
    got = rows(con, "SELECT * FROM anon_risk($t, $q, threshold := $h, population := $p)", t=tbl, q=qis,
               h=threshold, p=population)
    assert [r["model"] for r in got] == ["prosecutor", "journalist", "marketer"]
    for r in got:
        for key, value in want[r["model"]].items():
            if key == "population":
                assert r["population"] == (population or tbl)
            else:
                assert r[key] == pytest.approx(value, rel=1e-12), (r["model"], key)
        assert r["threshold"] == threshold


def test_risk_of_a_sample_of_adult_against_adult(mcon):
    """A tenth of Adult measured against all of Adult as its population: anon_risk,
    anon_risky_classes and anon_record_risk equal measure_table and record_risk."""
    mcon.execute("CREATE OR REPLACE TABLE adult_tenth AS SELECT * FROM adult WHERE hash(rowid) % 10 = 0")
    qis = ["age", "sex", "race"]
    eng = measure_table(mcon, "adult_tenth", qis, population="adult", threshold=0.1, risky_classes=10**6)["risk"]
    assert eng["journalist"]["records_at_risk"] < eng["prosecutor"]["records_at_risk"], "the population matters"
    assert eng["marketer"]["average"] < eng["prosecutor"]["average"]
    assert_same_risk(mcon, "adult_tenth", qis, eng, population="adult", threshold=0.1)
    risky = rows(mcon, "SELECT * FROM anon_risky_classes('adult_tenth', $q, 0.1, population := 'adult')", q=qis)
    assert len(risky) == eng["prosecutor"]["classes_at_risk"] == len(eng["risky_classes"])
    assert [(r["size"], r["population_size"]) for r in risky] == \
        [(c["size"], c["population_size"]) for c in eng["risky_classes"]]
    assert {frozenset(r["class"].items()) for r in risky} == \
        {frozenset(c["class"].items()) for c in eng["risky_classes"]}
    python = record_risk(mcon, "adult_tenth", qis, population="adult")
    both = one(mcon, "SELECT count(*) AS n, sum(prosecutor_risk) AS p, sum(journalist_risk) AS j, "
                     "count(*) FILTER (WHERE journalist_risk IS NULL) AS missing FROM anon_record_risk("
                     "'adult_tenth', $q, population := 'adult')", q=qis)
    (mine,) = python.aggregate("count(*) AS n, sum(prosecutor_risk) AS p, sum(journalist_risk) AS j").fetchall()
    assert (both["n"], both["missing"]) == (mine[0], 0)
    assert both["p"] == pytest.approx(mine[1]) == pytest.approx(eng["prosecutor"]["average"] * mine[0])  # sum 1/f = J
    assert both["j"] == pytest.approx(mine[2]) == pytest.approx(eng["marketer"]["average"] * mine[0])    # sum 1/F


def test_risk_of_the_worked_example():
    """The worked example of tests/metrics/test_risk.py (10 records in classes of 4, 3, 2, 1;
    in the population 8, 6, 5, 2): the journalist's average is 4/21, the marketer's 0.19."""
    con = duckdb.connect()
    install(con)
    con.execute("CREATE TABLE s AS SELECT g FROM (VALUES (4), (3), (2), (1)) v(g), range(g)")
    con.execute("CREATE TABLE p AS SELECT g FROM (VALUES (4, 8), (3, 6), (2, 5), (1, 2), (9, 9)) v(g, m), range(m)")
    got = {r["model"]: r for r in rows(con, "SELECT * FROM anon_risk('s', ['g'], population := 'p')")}
    assert got["journalist"]["average"] == pytest.approx(4 / 21) and got["journalist"]["highest"] == 0.5
    assert got["marketer"]["average"] == pytest.approx(0.19) and got["prosecutor"]["average"] == pytest.approx(0.4)
    assert (got["journalist"]["records_at_risk"], got["journalist"]["classes_at_risk"]) == (1, 1)
    with pytest.raises(duckdb.Error, match=re.escape("population: s is not a population of p at its generalization")):
        con.execute("SELECT * FROM anon_risk('p', ['g'], population := 's')").fetchall()
    con.execute("CREATE TABLE s2 AS SELECT g, 1 AS h FROM s")
    with pytest.raises(duckdb.Error, match=re.escape("population: unknown column(s) h in table p; it has g")):
        con.execute("SELECT * FROM anon_risk('s2', ['g', 'h'], population := 'p')").fetchall()


def test_presence_of_the_worked_example():
    """k-map and delta-presence of the worked example (f = 4, 3, 2, 1; F = 8, 6, 5, 2, and a
    population class of 9 without sample rows): k = 2, delta from 0 to 1/2, as measure_table."""
    con = duckdb.connect()
    install(con)
    con.execute("CREATE TABLE s AS SELECT g FROM (VALUES (4), (3), (2), (1)) v(g), range(g)")
    con.execute("CREATE TABLE p AS SELECT g FROM (VALUES (4, 8), (3, 6), (2, 5), (1, 2), (9, 9)) v(g, m), range(m)")
    assert one(con, "SELECT * FROM anon_presence('s', ['g'], 'p')") == \
        {"population": "p", "k_map": 2, "delta_min": 0.0, "delta_max": 0.5}
    eng = measure_table(con, "s", ["g"], population="p")["risk"]
    assert (eng["k_map"]["k"], eng["delta_presence"]["delta_min"], eng["delta_presence"]["delta_max"]) == (2, 0.0, 0.5)
    with pytest.raises(duckdb.Error, match="population: name the population table of s"):
        con.execute("SELECT * FROM anon_presence('s', ['g'], NULL)").fetchall()
    with pytest.raises(duckdb.Error, match=re.escape("population: s is not a population of p")):
        con.execute("SELECT * FROM anon_presence('p', ['g'], 's')").fetchall()


def test_presence_of_a_sample_of_adult_equals_measure_table(mcon):
    """A tenth of Adult against Adult, over age, sex, race: the macro's figures are the engine's."""
    mcon.execute("CREATE OR REPLACE TABLE adult_tenth AS SELECT * FROM adult WHERE rowid % 10 = 0")
    qis = ["age", "sex", "race"]
    eng = measure_table(mcon, "adult_tenth", qis, population="adult")["risk"]
    got = one(mcon, "SELECT * FROM anon_presence('adult_tenth', $q, 'adult')", q=qis)
    assert got == {"population": "adult", "k_map": eng["k_map"]["k"],
                   "delta_min": eng["delta_presence"]["delta_min"], "delta_max": eng["delta_presence"]["delta_max"]}
    assert (got["k_map"], got["delta_min"], got["delta_max"]) == (1, 0.0, 1.0)   # ARX's, tests/metrics/test_population_risk.py


def test_class_rows_agree_with_pycanon_on_a_release(mcon):
    """An independent oracle: pycanon's k and distinct l on a published Mondrian release."""
    from pycanon import anonymity

    result = anonymize(_spec(k=5, l=2), con=mcon)
    labels_ = ["age", "sex", "race"]
    frame = mcon.execute(f"SELECT {', '.join(map(_q, labels_))}, occupation FROM {result.view}").df()
    frame = frame.reset_index(drop=True)
    k = one(mcon, "SELECT k FROM anon_k($t, $q)", t=result.view, q=labels_)["k"]
    assert k == anonymity.k_anonymity(frame, labels_) >= 5
    l = one(mcon, "SELECT distinct_l FROM anon_l_diversity($t, $q, ['occupation'])", t=result.view, q=labels_)
    assert l["distinct_l"] == anonymity.l_diversity(frame, labels_, ["occupation"]) >= 2


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _spec(k: int, l: int | None = None, limit: float = 0.0, release: str = "adult_macro",
          algorithm: dict | None = None) -> dict:
    models = [{"type": "k-anonymity", "k": k}]
    if l:
        models.append({"type": "distinct-l-diversity", "l": l, "sensitive": "occupation"})
    return {
        "release": release,
        "source": {"table": "adult"},
        "columns": {
            "age": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10, 20, 40]}},
            "sex": {"role": "quasi"},
            "race": {"role": "quasi", "hierarchy": {"csv": str(ARX / "adult_hierarchy_race.csv")}},
            "occupation": {"role": "sensitive"},
        },
        "default_role": "identifier",
        "models": models,
        "algorithm": algorithm or {"name": "mondrian"},
        "suppression_limit": limit,
        "output": {"view": release},
    }


FULL_DOMAIN = {"name": "full-domain", "levels": {"age": 1, "sex": 0, "race": 0}}


@pytest.mark.parametrize("k,limit,algorithm", [(10, 0.0, None), (20, 0.1, FULL_DOMAIN)], ids=["mondrian", "suppressing"])
def test_ncp_agrees_with_the_release(mcon, k, limit, algorithm):
    """NCP of the published view against the source equals the release's own NCP (sum
    over released cells, and mean per source cell with suppressed rows counting 1)."""
    result = anonymize(_spec(k=k, limit=limit, release=f"adult_ncp_{k}", algorithm=algorithm), con=mcon)
    num = rows(mcon, "SELECT * FROM anon_ncp_numeric($p, 'adult', ['age'])", p=result.view)
    cat = rows(mcon, "SELECT * FROM anon_ncp_categorical($p, 'adult', ['sex', 'race'])", p=result.views[0])
    assert [r["attribute"] for r in num + cat] == ["age", "sex", "race"]
    for r in num + cat:
        assert (r["released"], r["suppressed"]) == (result.rows_out, result.suppressed)
    assert sum(r["ncp_sum"] for r in num + cat) == pytest.approx(result.utility["ncp_sum"], rel=1e-9)
    assert sum(r["ncp"] for r in num + cat) / 3 == pytest.approx(result.utility["ncp"], rel=1e-9)
    assert result.utility["ncp"] > 0.001 and num[0]["ncp_sum"] > 0
    if limit:
        assert result.suppressed > 0, "the second case must exercise suppression"


def test_ncp_by_hand():
    """Two released rows of three: age [20, 29] over a range 20..60 costs 9/40 each; sex
    {F, M} of 2 values costs 1 and a single value 0; the suppressed row costs 1 per cell."""
    con = duckdb.connect()
    install(con)
    con.execute("CREATE TABLE orig AS SELECT * FROM (VALUES (20, 'F'), (29, 'M'), (60, 'M')) t(age, sex)")
    con.execute("CREATE TABLE pub AS SELECT * FROM (VALUES (20, 29), (20, 29)) t(age_low, age_high)")
    con.execute("CREATE TABLE classes AS SELECT * FROM (VALUES (1, 2), (1, 1)) t(class_size, sex_count)")
    (age,) = rows(con, "SELECT * FROM anon_ncp_numeric('pub', 'orig', ['age'])")
    (sex,) = rows(con, "SELECT * FROM anon_ncp_categorical('classes', 'orig', ['sex'])")
    assert (age["released"], age["suppressed"]) == (2, 1)
    assert age["ncp_sum"] == pytest.approx(2 * 9 / 40) and age["ncp"] == pytest.approx((2 * 9 / 40 + 1) / 3)
    assert sex["ncp_sum"] == pytest.approx(1.0) and sex["ncp"] == pytest.approx(2 / 3)


NAMES = ["select", "my col", 'a"b', "it's", "Age"]


@st.composite
def awkward_tables(draw):
    n = draw(st.integers(1, 40))
    cols = {name: draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n))
            for name in NAMES[:3]}
    cols["it's"] = draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=n, max_size=n))
    cols["Age"] = draw(st.lists(st.integers(-5, 12), min_size=n, max_size=n))
    qis = draw(st.lists(st.sampled_from(NAMES[:3]), min_size=1, max_size=3, unique=True))
    sensitive = draw(st.lists(st.sampled_from(["it's", "Age"]), min_size=1, max_size=2, unique=True))
    c = draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))
    return pd.DataFrame(cols), qis, sensitive, c


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(awkward_tables())
def test_random_tables_with_awkward_names_agree_with_the_engine(case):
    """Names that need quoting, NULLs in QIs and sensitive values, an integer sensitive
    attribute (ordered distance by number, not text) and any c."""
    frame, qis, sensitive, c = case
    con = duckdb.connect()
    install(con)
    con.execute('CREATE SCHEMA "odd schema"')
    con.register("frame", frame)
    con.execute('CREATE TABLE "odd schema"."my table" AS SELECT * FROM frame')
    assert_same_figures(con, '"odd schema"."my table"', ("odd schema", "my table"), qis, sensitive, c=c)
    con.close()


def test_ordered_distance_orders_numbers_as_numbers():
    """Values 2, 9, 10: a class holding only 10 is as far as can be from {2, 9} in number
    order (EMD 1/2 * (1/3 + 2/3) = 0.5), which text order ('10' < '2' < '9') would miss."""
    con = duckdb.connect()
    install(con)
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ('a', 2), ('a', 9), ('b', 10)) v(g, x)")
    got = {r["class"]["g"]: r["emd"] for r in rows(con, "SELECT * FROM anon_t_classes('t', ['g'], ['x'], "
                                                           "distance := 'ordered')")}
    assert got["b"] == pytest.approx(0.5) and got["a"] == pytest.approx(0.25)
    assert one(con, "SELECT t FROM anon_t_closeness('t', ['g'], ['x'], distance := 'ordered')")["t"] == \
        pytest.approx(measure_table(con, "t", ["g"], ["x"], distance="ordered")["sensitive"]["x"]["t"])


# ------------------------------------------------------------------ scalar macros


def _values_table(engine, sql: str) -> str:
    engine.execute(f"CREATE OR REPLACE TABLE vals AS {sql}")
    return "vals"


@pytest.mark.parametrize("sql,width,column", [
    ("SELECT range - 7 AS x FROM range(40)", 5, "x"),
    ("SELECT range - 7 AS x FROM range(40)", 2.5, "x"),
    ("SELECT (range - 7) / 4 AS x FROM range(40)", 2.5, "x"),
    ("SELECT (range - 7) / 4 AS x FROM range(40)", 1, "x"),
], ids=["int-5", "int-2.5", "real-2.5", "real-1"])
def test_interval_matches_the_intervals_hierarchy(engine, sql, width, column):
    install(engine.con)
    coded = build(engine, _values_table(engine, sql), column, {"intervals": [width]})
    want = labels(engine, coded, 1)
    got = dict(engine.execute("SELECT x::VARCHAR, anon_interval(x, $w) FROM vals", {"w": width}).fetchall())
    assert got == want
    lo_hi = engine.execute("SELECT count(*) FROM vals WHERE NOT (anon_interval_low(x, $w) <= x "
                           "AND x <= anon_interval_high(x, $w))", {"w": width}).fetchone()
    assert lo_hi == (0,)


def test_mask_matches_the_masking_hierarchy(engine):
    install(engine.con)
    coded = build(engine, _values_table(engine, "SELECT unnest(['21357', '21358', '2140', '9']) AS zip"), "zip",
                  {"masking": True})
    for level in range(1, 5):
        want = labels(engine, coded, level)
        got = dict(engine.execute("SELECT zip, anon_mask(zip, $n) FROM vals", {"n": level}).fetchall())
        assert got == want, level


@pytest.mark.parametrize("unit", ["day", "month", "quarter", "year", "decade", "century"])
def test_date_trunc_matches_the_dates_hierarchy(engine, unit):
    install(engine.con)
    coded = build(engine, _values_table(engine, "SELECT unnest([DATE '1999-12-31', DATE '2020-01-15', "
                                                "DATE '2020-03-04', DATE '2031-06-30']) AS d"), "d",
                  {"dates": [unit]})
    want = labels(engine, coded, 1)
    got = dict(engine.execute("SELECT d::VARCHAR, anon_date_trunc(d, $u) FROM vals", {"u": unit}).fetchall())
    assert got == want


def test_top_and_bottom_coding_clip_and_keep_nulls():
    con = duckdb.connect()
    install(con)
    values = [3, 17, 90, None, 45]
    frame = pd.DataFrame({"x": values})
    con.register("f", frame)
    got = con.execute("SELECT anon_top_code(x, 80), anon_bottom_code(x, 18) FROM f").fetchall()
    want = list(zip(frame.x.clip(upper=80), frame.x.clip(lower=18)))
    assert [tuple(None if v is None else float(v) for v in r) for r in got] == \
        [tuple(None if math.isnan(v) else float(v) for v in r) for r in want]


# ------------------------------------------------------------------ releases' audit rows


def test_release_lookup_returns_the_audit_row(mcon):
    first = anonymize(_spec(k=10, release="adult_audit"), con=mcon)
    spec = dict(_spec(k=20, release="adult_audit"), history="independent")   # two generalizations of one table
    second = anonymize(spec, con=mcon)
    assert (first.version, second.version) == (1, 2)
    latest = one(mcon, "SELECT * FROM anon_release('adult_audit')")
    assert latest["version"] == 2 and latest["view_name"] == second.view
    assert (latest["rows_in"], latest["rows_out"], latest["suppressed"]) == \
        (second.rows_in, second.rows_out, second.suppressed)
    assert latest["snapshot"] == second.snapshot
    v1 = one(mcon, "SELECT * FROM anon_release('adult_audit', version := 1)")
    assert v1["snapshot"] == first.snapshot
    assert rows(mcon, "SELECT * FROM anon_release('no such release')") == []
    assert json.loads(latest["figures"])["k"] == second.measures["k"] >= 20


def test_release_lookup_in_another_snapshot_schema(mcon):
    spec = _spec(k=10, release="adult_elsewhere")
    spec["output"] = {"view": "adult_elsewhere", "schema": "shared", "snapshot_schema": "vault"}
    result = anonymize(spec, con=mcon)
    got = one(mcon, "SELECT * FROM anon_release('adult_elsewhere', audit := 'vault._audit')")
    assert got["snapshot"] == result.snapshot


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("sql,message", [
    ("SELECT * FROM anon_k('adult', ['age', 'nope'])", "qis: unknown column(s) nope in table adult"),
    ("SELECT * FROM anon_k('adult', ['age', 'age'])", "qis: lists a column twice"),
    ("SELECT * FROM anon_l_diversity('adult', ['age'], ['occupation', 'ghost'])", "sensitive: unknown column(s) ghost"),
    ("SELECT * FROM anon_t_closeness('adult', ['age'], ['occupation'], distance := 'far')",
     "distance: must be equal or ordered"),
    # DuckDB binds COLUMNS(...) before any check can run: an empty list, or one of unknown
    # names only, stops at the binder, which shows the names it was given.
    ("SELECT * FROM anon_l_diversity('adult', ['age'], [])", "resulted in an empty set of columns"),
    ("SELECT * FROM anon_k('adult', ['ghost'])", "list_value('ghost')"),
    ("SELECT anon_date_trunc(DATE '2020-01-01', 'week')", "unit must be day, month"),
    ("SELECT anon_interval(3, 0)", "width must be > 0"),
    ("SELECT anon_mask('abc', -1)", "n must be >= 0"),
    ("SELECT * FROM anon_risk('adult', ['age'], threshold := 'nan'::DOUBLE)",
     "threshold: must be a number in [0, 1], not nan"),
    ("SELECT * FROM anon_risk('adult', ['age'], threshold := 1e400::DOUBLE)", "not inf"),
    ("SELECT * FROM anon_prosecutor_risk('adult', ['age'], threshold := NULL)", "not NULL"),
    ("SELECT * FROM anon_risky_classes('adult', ['age'], threshold := 1.5)", "threshold: must be a number in [0, 1]"),
])
def test_bad_input_names_the_problem(mcon, sql, message):
    with pytest.raises(duckdb.Error, match=re.escape(message)):
        mcon.execute(sql).fetchall()


def test_ncp_names_the_missing_published_column(mcon):
    mcon.execute("CREATE OR REPLACE TABLE half_published AS SELECT 30 AS age_low, 39 AS age_high, 1 AS sex_low")
    with pytest.raises(duckdb.Error, match=re.escape("published columns: unknown column(s) sex_high")):
        mcon.execute("SELECT * FROM anon_ncp_numeric('half_published', 'adult', ['age', 'sex'])").fetchall()


def test_no_macro_builds_sql_from_strings():
    """Columns are chosen with COLUMNS(lambda ...) over the names given; nothing is run
    from text (no query() or string-built identifiers)."""
    text = macros_sql()
    assert "query(" not in text.replace("query_table(", "")
    assert "format(" not in text and "printf(" not in text


# ------------------------------------------------------------------ installing


def test_cli_installs_into_a_database_file_usable_without_python_helpers(tmp_path):
    from click.testing import CliRunner
    from anonymizer.cli import main

    db = tmp_path / "analyst.duckdb"
    res = CliRunner().invoke(main, ["macros", "install", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "anon_l_diversity(tbl, qis, sensitive, c)" in res.output
    with duckdb.connect(str(db)) as con:     # a plain connection, as any client would open
        con.execute("CREATE TABLE t AS SELECT range % 4 AS a, range % 3 AS s FROM range(24)")
        assert con.execute("SELECT k FROM anon_k('t', ['a'])").fetchone() == (6,)
        names = {n for n, _, _ in installed(con)}
    assert {"anon_classes", "anon_k", "anon_class_profile", "anon_prosecutor_risk", "anon_risk", "anon_risk_classes",
            "anon_risky_classes", "anon_record_risk", "anon_presence", "anon_l_diversity",
            "anon_t_closeness", "anon_ncp_numeric", "anon_ncp_categorical", "anon_release", "anon_interval",
            "anon_mask", "anon_top_code", "anon_bottom_code", "anon_date_trunc"} <= names
    path = CliRunner().invoke(main, ["macros", "path"]).output.strip()
    assert Path(path) == macros_path() and Path(path).read_text() == macros_sql()


def test_duckdb_cli_reads_the_library(tmp_path):
    """The analyst's way: `.read` the file in the DuckDB command line (duckdb-cli)."""
    cli = shutil.which("duckdb", path=str(Path(sys.executable).parent)) or shutil.which("duckdb")
    assert cli, "duckdb-cli is a dev dependency"
    out = subprocess.run(
        [cli, "-csv", "-c", f".read {macros_path()}",
         "-c", "CREATE TABLE t AS SELECT range % 3 AS a, range % 2 AS s FROM range(12)",
         "-c", "SELECT k, classes FROM anon_k('t', ['a'])",
         "-c", "SELECT distinct_l FROM anon_l_diversity('t', ['a'], ['s'])"],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["k,classes", "4,3", "distinct_l", "2"]
