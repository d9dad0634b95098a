"""Aggregate query answering error of LGB tables (paper 000 Sec. 4.2, Zhang et al. 2007).

Candidates are built by hand in SQL: a hand-worked example, and a seeded random LGB table
(:func:`make_lgb`) checked against an independent row-by-row pandas reading of the paper.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.reproduce.p000_lgb import query_error as qe
from anonymizer.reproduce.p000_lgb.query_error import Predicate, draw_queries, query_answers, query_error

COLUMNS = ("lo", "hi", "set", "bid", "code", "t")
#: (name, numeric, domain size, kind): kind "qi" never bucketized, "semi" partly, "sens" wholly.
ADULTISH = [("sex", False, 2, "semi"), ("age", True, 12, "semi"), ("rel", False, 5, "qi"),
            ("edu", False, 7, "qi"), ("hours", True, 9, "qi"), ("occ", False, 11, "semi"),
            ("salary", True, 15, "sens")]


def _domains(con, attributes) -> list[dict]:
    attrs = []
    for a, (name, numeric, m, _kind) in enumerate(attributes):
        num = "(10 * i + i % 3)::DOUBLE" if numeric else "NULL::DOUBLE"
        con.execute(f"CREATE OR REPLACE TABLE dom{a} AS SELECT i::INTEGER AS code, 'v' || i AS value, "
                    f"{num} AS num FROM range({m}) t(i)")
        attrs.append({"a": a, "dom": f'"dom{a}"', "numeric": numeric, "m": m, "name": name})
    return attrs


def make_lgb(con, rows: int, attributes=ADULTISH, *, k: int = 3, l: int = 3, share: int = 20,
             seed: int = 0, table: str = "cand") -> list[dict]:
    """A random LGB candidate `table` of `rows` rows, built in SQL (paper 000 Fig. 2 shape).

    True codes are seeded hashes; a "semi" cell is sensitive with probability share %.
    Rows carrying QI values on the same attributes are cut into local equivalence groups of
    k (sorted on their true codes); a QI cell covers its group's [min, max] (categorical
    cells of even groups as the exact value set instead). Sensitive cells of an attribute
    are cut, sorted on their true codes, into local buckets of l, their codes rotated within
    the bucket (a permutation of the bucket's multiset).
    """
    attrs = _domains(con, attributes)
    truth = ", ".join(f"(hash(rid, {seed}, {a}) % {m})::INTEGER AS t{a}, " + (
        {"qi": "false", "sens": "true"}.get(kind) or f"hash(rid, {seed}, {a}, 'f') % 100 < {share}")
        + f" AS f{a}" for a, (_n, _num, m, kind) in enumerate(attributes))
    pattern = " + ".join(f"f{a}::INTEGER * {2 ** a}" for a in range(len(attributes)))
    order = ", ".join(f"t{a}" for a in range(len(attributes)))
    con.execute(f"CREATE OR REPLACE TABLE lgb_base AS SELECT *, pat * 1000000 + (row_number() OVER "
                f"(PARTITION BY pat ORDER BY {order}, rid) - 1) // {k} AS gid FROM (SELECT *, {pattern} AS pat "
                f"FROM (SELECT range AS rid, {truth} FROM range({rows})))")
    cells = []
    for a, (_n, numeric, _m, _kind) in enumerate(attributes):
        qi = f"CASE WHEN NOT f{a} THEN {{}} END"
        gen_set = "NULL" if numeric else f"CASE WHEN gid % 2 = 0 THEN list_sort(list_distinct(list(t{a}) OVER g)) END"
        bid = f"(row_number() OVER (PARTITION BY f{a} ORDER BY t{a}, rid) - 1) // {l}"
        cells.append(f"{qi.format(f'min(t{a}) OVER g')} AS lo{a}, {qi.format(f'max(t{a}) OVER g')} AS hi{a}, "
                     f"{qi.format(gen_set)}::INTEGER[] AS set{a}, CASE WHEN f{a} THEN {bid} END AS bid{a}")
    con.execute(f"CREATE OR REPLACE TABLE lgb_cells AS SELECT *, {', '.join(cells)} FROM lgb_base "
                "WINDOW g AS (PARTITION BY gid)")
    out = ", ".join(f"lo{a}::INTEGER AS __lo{a}, hi{a}::INTEGER AS __hi{a}, set{a} AS __set{a}, "
                    f"bid{a}::BIGINT AS __bid{a}, CASE WHEN f{a} THEN coalesce(lead(t{a}) OVER (PARTITION BY bid{a} "
                    f"ORDER BY rid), first_value(t{a}) OVER (PARTITION BY bid{a} ORDER BY rid)) END::INTEGER "
                    f"AS __code{a}, t{a} AS __t{a}" for a in range(len(attributes)))
    con.execute(f'CREATE OR REPLACE TABLE "{table}" AS SELECT rid::BIGINT AS __rid, gid::BIGINT AS __gid, '
                f"{out} FROM lgb_cells")
    return attrs


# -- an independent reading of Sec. 4.2, row by row in pandas (tests only) ---------------------

def reference(con, table: str, attrs: list[dict], salary: int, queries) -> list[dict]:
    """Sum_lower, Sum_upper, Sum_act of each query, computed tuple by tuple."""
    df = con.execute(f'SELECT * FROM "{table}"').df()
    nums = {at["a"]: dict(con.execute(f"SELECT code, num FROM {at['dom']}").fetchall()) for at in attrs}
    out = []
    for query in queries:
        sat = {p.a: {c for c in nums[p.a] if _satisfies(p, c, nums[p.a])} for p in query}
        pro = {rid: 1.0 for rid in df["__rid"]}
        for p in query:
            for _, row in df.iterrows():
                pro[row["__rid"]] *= _pro_cell(df, row, p.a, sat[p.a])
        out.append(_bounds(df, nums[salary], salary, pro, sat))
    return out


def _satisfies(p: Predicate, code: int, num: dict) -> bool:
    if p.op == "in":
        return code in p.codes
    x, v = num[code], num[p.codes[0]]
    return {">": x > v, "<": x < v, "=": x == v, ">=": x >= v, "<=": x <= v, "<>": x != v}[p.op]


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _pro_cell(df, row, a: int, sat: set) -> float:
    """Pro_t(A): uniform over a generalized cell's values, or the bucket's share of hits."""
    if _missing(row[f"__bid{a}"]):
        cover = set(row[f"__set{a}"]) if not _missing(row[f"__set{a}"]) else set(
            range(int(row[f"__lo{a}"]), int(row[f"__hi{a}"]) + 1))
        return len(cover & sat) / len(cover)
    bucket = df.loc[df[f"__bid{a}"] == row[f"__bid{a}"], f"__code{a}"]
    return sum(int(c) in sat for c in bucket) / len(bucket)


def _bounds(df, num: dict, s: int, pro: dict, sat: dict) -> dict:
    lower = upper = act = 0.0
    for _bid, bucket in df.groupby(f"__bid{s}"):
        mass = sum(pro[r] for r in bucket["__rid"])
        salaries = sorted(num[int(c)] for c in bucket[f"__code{s}"])
        n_lo, n_hi = math.floor(mass + 1e-9), math.ceil(mass - 1e-9)
        lower += sum(salaries[:n_lo])
        upper += sum(salaries[len(salaries) - n_hi:]) if n_hi else 0.0
    for _, row in df.iterrows():
        if all(int(row[f"__t{a}"]) in codes for a, codes in sat.items()):
            act += num[int(row[f"__t{s}"])]
    return {"sum_lower": lower, "sum_upper": upper, "sum_act": act}


# -- 1. nothing generalized, one-row buckets: every answer exact ---------------------------------

def test_exact_table_has_no_error(con):
    attrs = make_lgb(con, 300, k=1, l=1, share=30, seed=4)
    out = query_error(Engine(con), '"cand"', attrs, 6, queries=300, seed=1)
    assert out["drawn"] == 300 and out["queries"] + out["discarded"] == 300 and out["queries"] > 0
    assert out["relative_error"] == 0.0 and out["max"] == 0.0 and out["dims"] == 4
    for a in query_answers(Engine(con), '"cand"', attrs, 6, draw_queries(attrs, 6, 50, seed=1)):
        assert a["sum_lower"] == a["sum_upper"] == a["sum_act"] and a["hits_lower"] == a["hits_upper"]


# -- 2. paper 000 Sec. 4.2 by hand ---------------------------------------------------------------
# age (numeric, codes 0..4 = 20 30 40 50 60), disease (categorical 0 flu 1 cold 2 hiv, every cell
# sensitive), salary (numeric, codes 0..5 = 10 .. 60, every cell sensitive).
#  rid  true age dis sal | age cell    disease bucket (published) | salary bucket (published)
#   1        20  flu 10  | [20-40]     D1 (cold)                  | S1 (20)
#   2        40  cold 30 | [20-40]     D1 (hiv)                   | S2 (50)
#   3        50  hiv 50  | 50          D1 (flu)                   | S2 (60)
#   4        60  flu 20  | 60          D2 (flu)                   | S1 (40)
#   5        40  flu 40  | 40          D2 (cold)                  | S1 (10)
#   6        30  cold 60 | 30          D2 (flu)                   | S2 (30)
# Query: SUM(salary) WHERE age >= 40 AND disease IN (flu).
#  Pro_t(age): rows 1, 2 cover {20, 30, 40}: 1/3; rows 3, 4, 5: 1; row 6: 0.
#  Pro_t(disease): D1 = {cold, hiv, flu}: 1/3; D2 = {flu, cold, flu}: 2/3.
#  Pro(t): 1/9, 1/9, 1/3, 2/3, 2/3, 0.
#  P_S1 = 1/9 + 2/3 + 2/3 = 13/9 -> 1 .. 2 rows; P_S2 = 1/9 + 1/3 + 0 = 4/9 -> 0 .. 1 row.
#  Sum_lower = 10 (S1's smallest) + 0 = 10; Sum_upper = (40 + 20) + 60 = 120.
#  Sum_act = rows 4 and 5 = 20 + 40 = 60; R_error = (120 - 10) / 60 = 11/6.
HAND = [(1, 1, 0, 0, 2, 1, 1, 0, 1, 1),   # rid, gid, true age, age lo, hi,
        (2, 1, 2, 0, 2, 1, 2, 1, 2, 4),   # disease bucket, published, true code,
        (3, 2, 3, 3, 3, 1, 0, 2, 2, 5),   # salary bucket, published code
        (4, 3, 4, 4, 4, 2, 0, 0, 1, 3),
        (5, 4, 2, 2, 2, 2, 1, 0, 1, 0),
        (6, 5, 1, 1, 1, 2, 0, 1, 2, 2)]
HAND_TRUE_SALARY = {1: 0, 2: 2, 3: 4, 4: 1, 5: 3, 6: 5}


@pytest.fixture
def hand(con):
    attrs = _domains(con, [("age", True, 5, "qi"), ("disease", False, 3, "sens"), ("salary", True, 6, "sens")])
    con.execute("UPDATE dom0 SET num = 20 + 10 * code")
    con.execute("UPDATE dom2 SET num = 10 + 10 * code")
    cols = ", ".join(f"__{c}{a} {'INTEGER[]' if c == 'set' else 'BIGINT' if c == 'bid' else 'INTEGER'}"
                     for a in range(3) for c in COLUMNS)
    con.execute(f"CREATE TABLE hand (__rid BIGINT, __gid BIGINT, {cols})")
    for rid, gid, age, lo, hi, dbid, dcode, dtrue, sbid, scode in HAND:
        con.execute("INSERT INTO hand (__rid, __gid, __lo0, __hi0, __t0, __bid1, __code1, __t1, __bid2, __code2, "
                    "__t2) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [rid, gid, lo, hi, age, dbid, dcode, dtrue, sbid, scode, HAND_TRUE_SALARY[rid]])
    return Engine(con), attrs


HAND_QUERY = (Predicate(0, ">=", (2,)), Predicate(1, "in", (0,)))


def test_hand_worked_example(hand):
    engine, attrs = hand
    (a,) = query_answers(engine, '"hand"', attrs, 2, [HAND_QUERY])
    assert Fraction(a["expected"]).limit_denominator(100) == Fraction(17, 9)
    assert (a["hits_lower"], a["hits_upper"]) == (1, 3)
    assert (a["sum_lower"], a["sum_upper"], a["sum_act"]) == (10.0, 120.0, 60.0)
    assert a["r_error"] == pytest.approx(11 / 6)
    # without the per-bucket rounding: S1 (10, 20, 40) takes 13/9 rows, 10 + 4/9 * 20 and 40 + 4/9 * 20;
    # S2 (30, 50, 60) takes 4/9 of a row, 4/9 * 30 and 4/9 * 60: (680/9 - 290/9) / 60 = 13/18
    assert (a["sum_lower_unrounded"], a["sum_upper_unrounded"]) == (pytest.approx(290 / 9), pytest.approx(680 / 9))
    assert a["r_error_unrounded"] == pytest.approx(13 / 18)
    assert reference(engine.con, "hand", attrs, 2, [HAND_QUERY])[0] == {
        "sum_lower": 10.0, "sum_upper": 120.0, "sum_act": 60.0}


def test_value_set_cell_covers_only_its_codes(hand, con):
    engine, attrs = hand
    # row 1's age cell becomes the value set {20, 40} (lo 0, hi 2): Pro_t(age >= 40) = 1/2, not 1/3
    con.execute("UPDATE hand SET __set0 = [0, 2] WHERE __rid = 1")
    (a,) = query_answers(engine, '"hand"', attrs, 2, [HAND_QUERY])
    assert a["expected"] == pytest.approx(1 / 6 + 1 / 9 + 1 / 3 + 2 / 3 + 2 / 3)


def test_exact_integer_masses_are_not_pushed_off(con):
    # ten rows in one salary bucket, each generalized over ten x values of which one matches:
    # P_b = 10 * 0.1 = 0.9999999999999999 in floats, still one row (floor without eps: none)
    attrs = _domains(con, [("x", True, 10, "qi"), ("salary", True, 10, "sens")])
    con.execute("UPDATE dom1 SET num = 100 + code")
    con.execute("CREATE TABLE tenth AS SELECT i::BIGINT AS __rid, 0::BIGINT AS __gid, 0 AS __lo0, 9 AS __hi0, "
                "NULL::INTEGER[] AS __set0, NULL::BIGINT AS __bid0, NULL::INTEGER AS __code0, i::INTEGER AS __t0, "
                "NULL::INTEGER AS __lo1, NULL::INTEGER AS __hi1, NULL::INTEGER[] AS __set1, 0::BIGINT AS __bid1, "
                "i::INTEGER AS __code1, i::INTEGER AS __t1 FROM range(10) t(i)")
    assert sum([0.1] * 10) < 1
    (a,) = query_answers(Engine(con), '"tenth"', attrs, 1, [(Predicate(0, "=", (3,)),)])
    assert (a["hits_lower"], a["hits_upper"]) == (1, 1)
    assert (a["sum_lower"], a["sum_upper"], a["sum_act"]) == (100.0, 109.0, 103.0)


# -- 3. the SQL against the pandas reading on random tables --------------------------------------

def _assert_matches(con, attrs, queries, table="cand"):
    got = query_answers(Engine(con), f'"{table}"', attrs, len(attrs) - 1, queries)
    want = reference(con, table, attrs, len(attrs) - 1, queries)
    for g, w in zip(got, want, strict=True):
        assert {k: g[k] for k in w} == pytest.approx(w, abs=1e-6)


@pytest.mark.slow
def test_matches_reference_on_a_random_table(con):
    attrs = make_lgb(con, 200, k=4, l=3, share=25, seed=7)
    _assert_matches(con, attrs, draw_queries(attrs, len(attrs) - 1, 50, seed=3))


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10 ** 6), k=st.integers(1, 8), l=st.integers(1, 6), share=st.integers(0, 60),
       dims=st.integers(1, 5))
def test_matches_reference_property(con, seed, k, l, share, dims):
    attrs = make_lgb(con, 120, k=k, l=l, share=share, seed=seed)
    _assert_matches(con, attrs, draw_queries(attrs, len(attrs) - 1, 15, dims=dims, seed=seed))


def test_chunks_give_the_same_answers(con, monkeypatch):
    attrs = make_lgb(con, 150, seed=2)
    queries = draw_queries(attrs, 6, 40, seed=5)
    whole = query_answers(Engine(con), '"cand"', attrs, 6, queries)
    monkeypatch.setattr(qe, "CHUNK", 7)
    chunked = query_answers(Engine(con), '"cand"', attrs, 6, queries)
    assert [pytest.approx(a) for a in whole] == chunked   # float sums may add up in another order


# -- 4. coarser cells, larger error --------------------------------------------------------------

def _mean_error(con, k: int, l: int) -> float:
    attrs = make_lgb(con, 400, k=k, l=l, seed=11)
    return query_error(Engine(con), '"cand"', attrs, 6, queries=200, seed=2)["relative_error"]


def test_coarser_generalization_answers_worse(con):
    # salary's buckets fixed (l = 3); QI cells from exact (k = 1) to one group of all 400 rows
    errors = [_mean_error(con, k, 3) for k in (1, 5, 400)]
    assert errors[0] < errors[1] < errors[2]


def test_coarser_bucketization_answers_worse(con):
    # exact QI cells; buckets from one row (no error at all) to 20 rows
    errors = [_mean_error(con, 1, l) for l in (1, 4, 20)]
    assert errors[0] == 0.0 < errors[1] < errors[2]


# -- the figures, the queries drawn, the refusals ------------------------------------------------

def test_report_is_json_ready_and_seeded(con):
    attrs = make_lgb(con, 200, seed=1)
    engine = Engine(con)
    out = query_error(engine, '"cand"', attrs, 6, queries=100, dims=9, seed=3)
    assert out["dims"] == 6 and out["drawn"] == 100 and out["queries"] + out["discarded"] == 100
    assert out["min"] <= out["median"] <= out["max"] and out["relative_error"] >= 0
    again = query_error(engine, '"cand"', attrs, 6, queries=100, dims=9, seed=3)
    # the same queries drawn, the same figures: up to the last bits of a float summed by DuckDB's
    # threads in whatever order they finish (seen under pytest-xdist, two workers on two cores)
    assert {k: v for k, v in again.items() if k != "seconds"} == pytest.approx(
        {k: v for k, v in out.items() if k != "seconds"}, rel=1e-12)
    assert engine.work_schema is None and not con.execute(
        "SELECT * FROM duckdb_tables() WHERE table_name LIKE 'qe_%'").fetchall()


def test_drawn_queries_follow_the_paper(con):
    attrs = _domains(con, ADULTISH)
    queries = draw_queries(attrs, 6, 500, seed=9)
    assert all(len({p.a for p in q}) == 4 and all(p.a != 6 for p in q) for q in queries)
    for p in (p for q in queries for p in q):
        at = attrs[p.a]
        if at["numeric"]:
            assert p.op in qe.OPERATORS and len(p.codes) == 1 and 0 <= p.codes[0] < at["m"]
        else:
            assert p.op == "in" and 1 <= len(set(p.codes)) == len(p.codes) <= math.ceil(at["m"] / 2)
    assert draw_queries(attrs, 6, 500, seed=9) == queries != draw_queries(attrs, 6, 500, seed=10)


def test_work_tables_of_an_open_workspace_are_dropped_not_the_schema(con):
    attrs = make_lgb(con, 60, seed=1)
    engine = Engine(con)
    with engine.workspace():
        schema = engine.work_schema
        query_error(engine, '"cand"', attrs, 6, queries=10)
        assert engine.work_schema == schema
        assert not con.execute(f"SELECT * FROM duckdb_tables() WHERE database_name = '{schema}'").fetchall()


def test_refusals(hand, con):
    engine, attrs = hand
    with pytest.raises(SpecError, match="salary"):
        query_error(engine, '"hand"', attrs, 1)
    with pytest.raises(SpecError, match="queries"):
        query_error(engine, '"hand"', attrs, 2, queries=0)
    with pytest.raises(SpecError, match="queries"):
        query_answers(engine, '"hand"', attrs, 2, [(Predicate(2, ">", (1,)),)])
    with pytest.raises(SpecError, match="queries"):
        query_answers(engine, '"hand"', attrs, 2, [(Predicate(0, "~", (1,)),)])
    con.execute("UPDATE hand SET __lo0 = NULL, __hi0 = NULL WHERE __rid = 3")
    with pytest.raises(DataError, match="1 cells of age"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("UPDATE hand SET __lo0 = 0, __hi0 = 2 WHERE __rid = 3")   # [20-40] does not cover 50
    with pytest.raises(DataError, match="1 cells of age"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("UPDATE hand SET __lo0 = 3, __hi0 = 3 WHERE __rid = 3")
    con.execute("UPDATE hand SET __code1 = 2 WHERE __rid = 4")   # D2 = {flu, cold, flu} publishes hiv
    with pytest.raises(DataError, match="1 local buckets of disease"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("UPDATE hand SET __code1 = 0 WHERE __rid = 4")
    con.execute("UPDATE hand SET __set0 = [0, 1, 2, 7] WHERE __rid = 1")   # 7 is no age code
    with pytest.raises(DataError, match="1 cells of age"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("UPDATE hand SET __set0 = NULL, __t2 = 6 WHERE __rid = 1")   # salary codes are 0..5
    with pytest.raises(DataError, match="1 cells of salary"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("UPDATE hand SET __t2 = 0 WHERE __rid = 1")
    con.execute("UPDATE hand SET __lo0 = 3, __hi0 = 3, __bid2 = NULL WHERE __rid = 3")
    with pytest.raises(DataError, match="salary"):
        query_error(engine, '"hand"', attrs, 2)
    con.execute("DELETE FROM hand")
    with pytest.raises(DataError, match="no rows"):
        query_error(engine, '"hand"', attrs, 2)
