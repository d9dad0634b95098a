"""Our figures against independent oracles: pycanon 1.3.6 (k, distinct l, entropy l,
t-closeness) on random tables and on the bundled Adult data, and pure-Python brute force
(tests/models/conftest.py) under hypothesis for every model, the EMD ones included."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.measure import measure_table
from anonymizer.models import TCloseness
from anonymizer.models.check import evaluate

from .conftest import brute, emd_equal, emd_lp, emd_ordered, load, shares

anonymity = pytest.importorskip("pycanon.anonymity")
ADULT = Path(__file__).resolve().parents[2] / "anonymizer" / "data" / "arx_adult" / "adult.csv.gz"


def floor_matches(ours: float, theirs: int) -> bool:
    """pycanon truncates exp(entropy) with int(); allow for rounding on either side."""
    return theirs in (math.floor(ours + 1e-9), math.floor(ours - 1e-9))


def compare_with_pycanon(con, df: pd.DataFrame, qis: list[str], sens: list[str]) -> dict:
    df = df.reset_index(drop=True)
    con.register("df_view", df)
    con.execute("CREATE OR REPLACE TABLE df AS SELECT * FROM df_view")
    ours = measure_table(con, "df", qis, sens)
    assert ours["k"] == anonymity.k_anonymity(df, qis)
    for s in sens:
        m = ours["sensitive"][s]
        assert m["distinct_l"] == anonymity.l_diversity(df, qis, [s])
        assert floor_matches(m["entropy_l"], anonymity.entropy_l_diversity(df, qis, [s]))
        assert m["t"] == pytest.approx(anonymity.t_closeness(df, qis, [s]), abs=1e-9)
    return ours


@pytest.mark.parametrize("seed", range(4))
def test_pycanon_random_tables(con, seed):
    rng = np.random.default_rng(seed)
    n = 300
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n),
        "b": rng.choice(["x", "y", "z"], n),
        "num": rng.integers(0, 12, n),
        "cat": rng.choice(list("pqrstu"), n, p=[0.4, 0.2, 0.15, 0.1, 0.1, 0.05]),
    })
    compare_with_pycanon(con, df, ["a", "b"], ["num", "cat"])


def test_pycanon_adult(con):
    df = pd.read_csv(ADULT, sep=";")
    df["age"] = (df["age"] // 10) * 10
    df = df[["age", "sex", "race", "education", "salary-class"]]
    ours = compare_with_pycanon(con, df, ["age", "sex", "race"], ["education", "salary-class"])
    assert ours["rows"] == 30162


def test_pycanon_adult_numeric_sensitive(con):
    df = pd.read_csv(ADULT, sep=";")
    df["decade"] = (df["age"] // 10) * 10
    df = df[["decade", "sex", "age"]]
    # "age" is numeric: ordered distance on both sides
    compare_with_pycanon(con, df, ["decade", "sex"], ["age"])


tables = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 5)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables, c=st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]))
def test_measure_matches_brute_force(con, rows, c):
    con.execute("DROP TABLE IF EXISTS h")
    load(con, "h", ["q1", "q2", "s"], rows)
    groups: dict = {}
    for q1, q2, s in rows:
        groups.setdefault((q1, q2), []).append(s)
    want = brute(groups, c)
    got = measure_table(con, "h", ["q1", "q2"], ["s"], c=c)
    m = got["sensitive"]["s"]
    assert got["k"] == want["k"] and got["classes"] == len(groups) and got["rows"] == len(rows)
    assert m["distinct_l"] == want["distinct_l"]
    assert m["entropy_l"] == pytest.approx(want["entropy_l"])
    assert m["recursive_l"] == want["recursive_l"]
    assert m["alpha"] == pytest.approx(want["alpha"])
    q = shares([s for *_, s in rows])
    assert m["t"] == pytest.approx(max(emd_ordered(shares(v), q) for v in groups.values()), abs=1e-9)


def leaf_distance(a: int, b: int) -> float:
    """A balanced tree over 0..5: {0,1},{2,3},{4,5} under {0..3},{4,5} under the root."""
    if a == b:
        return 0.0
    if a // 2 == b // 2:
        return 1 / 3
    return 2 / 3 if (a < 4) == (b < 4) else 1.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables)
def test_emd_matches_definitions(con, engine, rows):
    for name in ("h", "hier"):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    load(con, "h", ["q1", "q2", "s"], rows)
    load(con, "hier", ["s", "level", "node"],
         [(v, 1, v // 2) for v in range(6)] + [(v, 2, int(v >= 4)) for v in range(6)] + [(v, 3, 0) for v in range(6)])
    groups: dict = {}
    for q1, q2, s in rows:
        groups.setdefault((q1, q2), []).append(s)
    q = shares([s for *_, s in rows])
    for dist, oracle in (("equal", emd_equal), ("ordered", emd_ordered),
                         ("hierarchical", lambda p, q: emd_lp(p, q, leaf_distance))):
        got = evaluate(engine, TCloseness(0.3, "s", dist), '"h"', ['"q1"', '"q2"'], '"s"',
                       hier='(SELECT * FROM "hier" WHERE s IN (SELECT s FROM "h"))')
        want = [oracle(shares(v), q) for v in groups.values()]
        assert got.figure == pytest.approx(max(want), abs=1e-7), dist
        assert got.failing == sum(w > 0.3 + 1e-9 for w in want), dist
