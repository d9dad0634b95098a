"""NLoss (paper 004 Eqs. 11-15) and the query error of Eq. 19 on identity-reserved candidates.

Candidates in the Table 4 form are built by hand: the paper's Table 4 itself (its Table 2 as
the original), and random small tables checked against a row-by-row pandas reading.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.families.identity_reserved.metrics import nloss
from anonymizer.reproduce.p004_identity_reserved.query_error import (IRPredicate, IRQuery, draw_ir_queries, ir_query_answers,
                                               ir_query_error)

# paper 004 Table 2 (Name -> Id_num 1..7 in order of appearance) and Table 4's classes
TABLE2 = [  # (rid, name, id_num, gender, age, postcode, disease)
    (1, "Mike", 1, "M", 36, "10085", "Hypertension"), (2, "Mike", 1, "M", 36, "10085", "Heart"),
    (3, "Lily", 2, "F", 37, "10076", "Cancer"), (4, "Tim", 3, "M", 36, "10086", "Hypertension"),
    (5, "Jane", 4, "F", 33, "10087", "Hypertension"), (6, "Jane", 4, "F", 33, "10087", "Diabetes"),
    (7, "Tina", 5, "F", 38, "10077", "HIV"), (8, "Ella", 6, "F", 34, "10070", "Leukaemia"),
    (9, "Ella", 6, "F", 34, "10070", "Heart"), (10, "Lucy", 7, "F", 33, "10073", "Syphilis")]
Q1 = {"ec": 1, "gender": ["F"], "age": (33, 34), "postcode": ["10070", "10073", "10087"]}
Q2 = {"ec": 2, "gender": ["M", "F"], "age": (36, 38), "postcode": ["10076", "10077", "10085", "10086"]}
CLASS_OF = {5: Q1, 6: Q1, 8: Q1, 9: Q1, 10: Q1, 1: Q2, 2: Q2, 3: Q2, 4: Q2, 7: Q2}
DOMAINS = [{"name": "Gender", "numeric": False, "size": 2}, {"name": "Age", "numeric": True, "low": 30, "high": 39},
           {"name": "Postcode", "numeric": False, "size": 7}]
QIS = [{"name": q["name"], "numeric": q["numeric"]} for q in DOMAINS]


def _label(values) -> str:
    return values[0] if len(values) == 1 else "{" + ", ".join(values) + "}"


def load_table4(con, *, suppress: tuple[int, ...] = ()) -> None:
    """``original`` (Table 2 without names) and ``cand`` (Table 4, minus the classes listed)."""
    con.execute("CREATE OR REPLACE TABLE original (__rid BIGINT, Gender VARCHAR, Age INTEGER, Postcode VARCHAR, "
                "Disease VARCHAR)")
    con.executemany("INSERT INTO original VALUES (?, ?, ?, ?, ?)", [(r[0], *r[3:]) for r in TABLE2])
    con.execute("CREATE OR REPLACE TABLE cand (__rid BIGINT, ec_id INTEGER, id_num INTEGER, Gender VARCHAR, "
                "Gender_values VARCHAR[], Age VARCHAR, Age_low DOUBLE, Age_high DOUBLE, Postcode VARCHAR, "
                "Postcode_values VARCHAR[], Disease VARCHAR)")
    rows = []
    for rid, _name, pid, _g, _a, _p, disease in TABLE2:
        q = CLASS_OF[rid]
        if q["ec"] in suppress:
            continue
        rows.append((rid, q["ec"], pid, _label(q["gender"]), q["gender"], f"[{q['age'][0]}, {q['age'][1]}]",
                     *q["age"], _label(q["postcode"]), q["postcode"], disease))
    if rows:
        con.executemany("INSERT INTO cand VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


# -- NLoss ----------------------------------------------------------------------------------
def test_nloss_of_table4(con):
    """Table 4 by hand. Domains (section 4.3's running example): Gender {M, F} (|X| = 2),
    Age [30, 39] (U - L = 9), Postcode 7 values (|X| - 1 = 6).

    Q1 (r5, r6, r8, r9, r10): Gender F -> (1-1)/1 = 0; Age [33, 34] -> 1/9;
        Postcode {10070, 10073, 10087} -> (3-1)/6 = 1/3; per record 4/9, five records 20/9.
    Q2 (r1, r2, r3, r4, r7): Gender {M, F} -> (2-1)/1 = 1; Age [36, 38] -> 2/9;
        Postcode {10076, 10077, 10085, 10086} -> (4-1)/6 = 1/2; per record 31/18, five 155/18.
    Loss(D, D*) = 20/9 + 155/18 = 195/18 = 65/6 (Eq. 14);
    NLoss = (65/6) / (10 * 3) = 13/36 = 0.3611 (Eq. 15).
    Per QI over the 10 records: Gender 5/10 = 1/2; Age (5/9 + 10/9)/10 = 1/6;
    Postcode (5/3 + 5/2)/10 = 5/12 (their mean is 13/36 again).
    """
    load_table4(con)
    got = nloss(Engine(con), '"cand"', DOMAINS, 10, 0)
    assert got["loss"] == pytest.approx(float(Fraction(65, 6)))
    assert got["nloss"] == pytest.approx(float(Fraction(13, 36)))
    assert got["per_qi"] == pytest.approx({"Gender": 0.5, "Age": 1 / 6, "Postcode": 5 / 12})
    assert (got["records"], got["released"], got["suppressed"], got["qis"]) == (10, 10, 0, 3)
    assert got["released_nloss"] == pytest.approx(13 / 36)


def test_nloss_suppressed_records_cost_one_per_qi(con):
    """Q1 suppressed: its 5 records cost 1 per QI: Loss = 155/18 + 5 * 3 = 425/18,
    NLoss = 425/18 / 30 = 85/108; Gender's mean (5 + 5)/10 = 1."""
    load_table4(con, suppress=(1,))
    got = nloss(Engine(con), '"cand"', DOMAINS, 10, 5)
    assert got["loss"] == pytest.approx(425 / 18)
    assert got["nloss"] == pytest.approx(85 / 108)
    assert got["per_qi"]["Gender"] == pytest.approx(1.0)
    assert got["per_qi"]["Age"] == pytest.approx((10 / 9 + 5) / 10)
    assert got["released_nloss"] == pytest.approx(31 / 54)


def test_nloss_all_suppressed_is_one(con):
    load_table4(con, suppress=(1, 2))
    assert nloss(Engine(con), '"cand"', DOMAINS, 10, 10)["nloss"] == pytest.approx(1.0)


def test_nloss_one_value_domains_lose_nothing(con):
    load_table4(con)
    flat = [{"name": "Gender", "numeric": False, "size": 1}, {"name": "Age", "numeric": True, "low": 35, "high": 35}]
    con.execute("UPDATE cand SET Gender_values = ['F'], Age_low = 35, Age_high = 35")
    assert nloss(Engine(con), '"cand"', flat, 10, 0)["nloss"] == 0.0


def test_nloss_refuses_inconsistent_inputs(con):
    load_table4(con)
    engine = Engine(con)
    with pytest.raises(DataError, match="10 released \\+ 1 suppressed"):
        nloss(engine, '"cand"', DOMAINS, 10, 1)
    with pytest.raises(DataError, match="Postcode cell whose loss is not in"):
        nloss(engine, '"cand"', [DOMAINS[0], DOMAINS[1], dict(DOMAINS[2], size=3)], 10, 0)
    with pytest.raises(DataError, match="Age cell"):  # an interval beyond the domain given
        nloss(engine, '"cand"', [DOMAINS[0], dict(DOMAINS[1], low=33, high=35), DOMAINS[2]], 10, 0)
    for bad in ([], [dict(DOMAINS[0], size=0)], [dict(DOMAINS[1], low=5, high=1)], DOMAINS[:1] * 2):
        with pytest.raises(SpecError):
            nloss(engine, '"cand"', bad, 10, 0)
    with pytest.raises(SpecError):
        nloss(engine, '"cand"', DOMAINS, 0, 0)


def test_nloss_quotes_names(con):
    con.execute('CREATE TABLE "we ird" AS SELECT 1 AS ec_id, 2.0 AS "a""b_low", 4.0 AS "a""b_high", '
                "['x', 'y'] AS \"select_values\"")
    got = nloss(Engine(con), '"we ird"', [{"name": 'a"b', "numeric": True, "low": 0, "high": 8},
                                          {"name": "select", "numeric": False, "size": 5}], 1, 0)
    assert got["per_qi"] == pytest.approx({'a"b': 0.25, "select": 0.25})


# -- query error: hand-worked -------------------------------------------------------------
def test_query_answers_by_hand(con):
    """Domain ranks from Table 2: Gender F=1, M=2 (text order); Age 33, 34, 36, 37, 38 = 1..5
    (the source's distinct ages); Postcode 10070, 10073, 10076, 10077, 10085, 10086, 10087 = 1..7.

    Query 1: Age in {33, 34, 36} AND Disease = Hypertension.
      Q1: Age [33, 34] covers ages {33, 34}: p = 2/2; Hypertension individuals: 4 -> 1 * 1.
      Q2: Age [36, 38] covers {36, 37, 38}: p = 1/3; Hypertension individuals 1, 3 -> 2/3.
      est = 5/3; prec = r1, r4, r5 = 3; error = (3 - 5/3) / 3 = 4/9.
    Query 2: Gender = M AND Postcode in {10085, 10086} AND Disease = Heart.
      Q1: Gender {F}: p = 0 -> 0.  Q2: Gender {M, F}: 1/2; Postcode 4 values: 2/4;
      Heart individuals: 1 -> 1/4.  est = 1/4; prec = r2 = 1; error = 3/4.
    Query 3: Age = 37 AND Disease = Flu (no such record): est = 0, prec = 0, no error.
    """
    load_table4(con)
    queries = [IRQuery("Hypertension", (IRPredicate(1, (1, 2, 3)),)),
               IRQuery("Heart", (IRPredicate(0, (2,)), IRPredicate(2, (5, 6)))),
               IRQuery("Flu", (IRPredicate(1, (4,)),))]
    got = ir_query_answers(Engine(con), '"original"', '"cand"', QIS, "Disease", queries)
    assert [g["prec"] for g in got] == [3, 1, 0]
    assert [g["est"] for g in got] == pytest.approx([5 / 3, 1 / 4, 0.0])
    assert got[0]["error"] == pytest.approx(4 / 9) and got[1]["error"] == pytest.approx(3 / 4)
    assert got[2]["error"] is None


def test_query_error_summary_on_table4(con):
    load_table4(con)
    engine = Engine(con)
    got = ir_query_error(engine, '"original"', '"cand"', QIS, "Disease", queries=50, dims=2, seed=3)
    assert (got["drawn"], got["queries"], got["discarded"], got["dims"]) == (50, 50, 0, 2)
    queries = draw_ir_queries(engine, '"original"', QIS, "Disease", 50, 2, 3)
    answers = ir_query_answers(engine, '"original"', '"cand"', QIS, "Disease", queries)
    errors = sorted(a["error"] for a in answers)
    assert got["relative_error"] == pytest.approx(sum(errors) / 50)
    assert got["max"] == pytest.approx(errors[-1]) and got["min"] == pytest.approx(errors[0])
    assert got["median"] == pytest.approx((errors[24] + errors[25]) / 2)
    assert engine.work_schema is None  # the evaluation's work tables are gone


def test_drawn_queries_are_anchored_and_reproducible(con):
    """Every drawn query matches its anchor record (prec >= 1), holds b <= ceil(m/2) values,
    numeric predicates are consecutive ranks, a seed gives the same queries."""
    load_table4(con)
    engine = Engine(con)
    queries = draw_ir_queries(engine, '"original"', QIS, "Disease", 200, 2, 7)
    assert queries == draw_ir_queries(engine, '"original"', QIS, "Disease", 200, 2, 7)
    assert queries != draw_ir_queries(engine, '"original"', QIS, "Disease", 200, 2, 8)
    sizes = {0: 2, 1: 5, 2: 7}
    for q in queries:
        assert len(q.preds) == 2 and len({p.qi for p in q.preds}) == 2
        for p in q.preds:
            assert 1 <= len(p.ranks) <= math.ceil(sizes[p.qi] / 2) and len(set(p.ranks)) == len(p.ranks)
            if p.qi == 1:
                assert list(p.ranks) == list(range(p.ranks[0], p.ranks[0] + len(p.ranks)))
    assert all(a["prec"] >= 1 for a in ir_query_answers(engine, '"original"', '"cand"', QIS, "Disease", queries))
    assert {len(q.preds) for q in draw_ir_queries(engine, '"original"', QIS, "Disease", 5, 9, 0)} == {3}
    assert len({p.qi for q in queries for p in q.preds}) == 3


def test_query_error_refuses_bad_input(con):
    load_table4(con)
    engine = Engine(con)
    with pytest.raises(SpecError):
        ir_query_error(engine, '"original"', '"cand"', QIS, "Disease", queries=0)
    with pytest.raises(SpecError):
        ir_query_error(engine, '"original"', '"cand"', QIS, "Disease", dims=0)
    with pytest.raises(DataError, match="lacks the columns"):
        ir_query_error(engine, '"original"', '"cand"', QIS, "Diagnosis")
    with pytest.raises(SpecError, match="rank outside"):
        ir_query_answers(engine, '"original"', '"cand"', QIS, "Disease", [IRQuery("Heart", (IRPredicate(1, (6,)),))])
    con.execute("UPDATE cand SET Age_low = 30 WHERE __rid = 1")  # class Q2 shows two Age intervals
    with pytest.raises(DataError, match="2 classes|1 classes do not show one generalized value of Age"):
        ir_query_error(engine, '"original"', '"cand"', QIS, "Disease", queries=5)
    assert engine.work_schema is None


# -- query error: pandas reference on random tables -----------------------------------------
def make_random(con, seed: int, individuals: int, classes: int, *, wide: bool) -> list[dict]:
    """A random source of multi-record individuals (each with distinct diagnoses) in
    ``original`` and a random partition of them into classes in ``cand`` (Table 4 form).
    A class's numeric value is its [min, max], ``wide``ened at random (as a hierarchy
    interval would be); its categorical value its members' values, plus (``wide``) values
    absent from the source. Some individuals are left out (suppressed)."""
    rng = random.Random(seed)
    rows, cand, rid = [], [], 0
    classes_of = {}
    for pid in range(1, individuals + 1):
        age, zone, sex = rng.randint(20, 29), rng.choice(["n", "s", "e", "w", "c"]), rng.choice(["F", "M"])
        cid = rng.randrange(classes) if rng.random() > 0.1 else None
        for dx in rng.sample(["a", "b", "c", "d", "e", "f"], rng.randint(1, 3)):
            rid += 1
            rows.append((rid, pid, age, zone, sex, dx, cid))
    frame = pd.DataFrame(rows, columns=["__rid", "pid", "age", "zone", "sex", "dx", "cid"])
    frame = frame.sample(frac=1, random_state=seed)          # record order is irrelevant
    con.execute("CREATE OR REPLACE TABLE original AS SELECT __rid, age, zone, sex, dx FROM frame")
    for cid, part in frame[frame["cid"].notna()].groupby("cid"):
        lo, hi = int(part["age"].min()), int(part["age"].max())
        if wide:
            lo, hi = lo - rng.randint(0, 2), hi + rng.randint(0, 2)
        zones = sorted(set(part["zone"]) | ({"zz"} if wide and rng.random() < 0.5 else set()))
        sexes = sorted(set(part["sex"]))
        classes_of[int(cid)] = (lo, hi, zones, sexes)
        for r in part.to_dict("records"):
            cand.append((r["__rid"], int(cid) + 1, r["pid"], float(lo), float(hi), zones, sexes, r["dx"]))
    c = pd.DataFrame(cand, columns=["__rid", "ec_id", "id_num", "age_low", "age_high", "zone_values",
                                    "sex_values", "dx"])
    con.execute("CREATE OR REPLACE TABLE cand AS SELECT * FROM c")
    return [{"name": "age", "numeric": True}, {"name": "zone", "numeric": False}, {"name": "sex", "numeric": False}]


def reference(original: pd.DataFrame, cand: pd.DataFrame, qis: list[dict], queries: list[IRQuery]) -> list[dict]:
    """Eq. 19 read row by row: the domain of a QI is its sorted distinct source values;
    est sums over the classes the product of the shares of the predicates' values in the
    class's value (counted over domain values) times the class's individuals with s."""
    domains = [sorted(original[q["name"]].unique()) if q["numeric"] else sorted(original[q["name"]].astype(str).unique())
               for q in qis]
    out = []
    for query in queries:
        allowed = {p.qi: {domains[p.qi][r - 1] for r in p.ranks} for p in query.preds}
        prec = 0
        for _, rec in original.iterrows():
            if str(rec["dx"]) == query.s and all(
                    (rec[qis[j]["name"]] if qis[j]["numeric"] else str(rec[qis[j]["name"]])) in allowed[j]
                    for j in allowed):
                prec += 1
        est = 0.0
        for _, part in cand.groupby("ec_id"):
            first = part.iloc[0]
            num = part.loc[part["dx"] == query.s, "id_num"].nunique()
            share = 1.0
            for j, vals in allowed.items():
                q = qis[j]
                if q["numeric"]:
                    covered = [v for v in domains[j] if first[f"{q['name']}_low"] <= v <= first[f"{q['name']}_high"]]
                else:
                    covered = list(dict.fromkeys(first[f"{q['name']}_values"]))
                share *= sum(v in vals for v in covered) / len(covered) if covered else 0.0
            est += share * num
        out.append({"est": est, "prec": prec, "error": abs(est - prec) / prec if prec else None})
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), individuals=st.integers(2, 25), classes=st.integers(1, 6),
       wide=st.booleans(), dims=st.integers(1, 3))
def test_query_answers_match_pandas(con, seed, individuals, classes, wide, dims):
    qis = make_random(con, seed, individuals, classes, wide=wide)
    if not con.execute("SELECT count(*) FROM cand").fetchone()[0]:
        return
    engine = Engine(con)
    queries = draw_ir_queries(engine, '"original"', qis, "dx", 15, dims, seed)
    # a few queries with free (unanchored) predicates, which may have prec = 0
    rng = random.Random(seed)
    sizes = {0: con.execute("SELECT count(DISTINCT age) FROM original").fetchone()[0],
             1: con.execute("SELECT count(DISTINCT zone) FROM original").fetchone()[0],
             2: con.execute("SELECT count(DISTINCT sex) FROM original").fetchone()[0]}
    for _ in range(5):
        js = rng.sample(range(3), dims)
        queries.append(IRQuery(rng.choice("abcdefg"), tuple(
            IRPredicate(j, tuple(sorted(rng.sample(range(1, sizes[j] + 1), rng.randint(1, sizes[j]))))) for j in js)))
    got = ir_query_answers(engine, '"original"', '"cand"', qis, "dx", queries)
    want = reference(con.execute("SELECT * FROM original").df(), con.execute("SELECT * FROM cand").df(), qis,
                     queries)
    assert [g["prec"] for g in got] == [w["prec"] for w in want]
    assert [g["est"] for g in got] == pytest.approx([w["est"] for w in want])
    assert all(g["prec"] >= 1 for g in got[:15])   # anchored queries


def test_suppressed_records_count_in_prec_only(con):
    """Q1 suppressed: query 1 of the hand-worked example keeps prec = 3 (r1, r4, r5) but its
    estimate loses Q1's share: est = 2/3."""
    load_table4(con, suppress=(1,))
    got = ir_query_answers(Engine(con), '"original"', '"cand"', QIS, "Disease",
                           [IRQuery("Hypertension", (IRPredicate(1, (1, 2, 3)),))])
    assert got[0]["prec"] == 3 and got[0]["est"] == pytest.approx(2 / 3)


def test_query_error_quotes_names(con):
    con.execute('CREATE TABLE "o r" AS SELECT range AS __rid, range % 4 AS "a""b", '
                "CASE WHEN range % 2 = 0 THEN 'x' ELSE 'y' END AS \"select\", 'd' || (range % 3) AS \"my s\" "
                "FROM range(12)")
    con.execute('CREATE TABLE "c d" AS SELECT __rid, (__rid % 3)::INTEGER AS ec_id, __rid::INTEGER AS id_num, '
                '0.0 AS "a""b_low", 3.0 AS "a""b_high", [\'x\', \'y\'] AS "select_values", "my s" FROM "o r"')
    qis = [{"name": 'a"b', "numeric": True}, {"name": "select", "numeric": False}]
    got = ir_query_error(Engine(con), '"o r"', '"c d"', qis, "my s", queries=20, dims=2, seed=1)
    assert got["queries"] == 20 and got["relative_error"] >= 0
