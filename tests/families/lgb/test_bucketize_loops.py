"""Local bucketization (paper 000, Algorithm 2): the Python-driven rounds and the recursive CTE
(``loop="python"`` and ``loop="recursive"``) give the same ranges, rounds, buckets and dealt
and shown values, on section 4's Adult release and on random value counts."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.families.lgb.bucketize import LOOPS, local_bucketization, release_bucketization
from anonymizer.families.lgb.subsets import Attribute
from anonymizer.datasets.flagged import experiment_spec, flagged_adult
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.models import TCloseness
from anonymizer.families.lgb.models import LUnique
from anonymizer.plan import prepare
from anonymizer.randomness import ReleaseKey
from anonymizer.reproduce.p000_lgb.experiment import l_caps
from anonymizer.spec.parse import load_spec


def outcome(con, buckets) -> dict:
    """Everything a bucketization leaves, read back (test tables only)."""
    def rows(sql: str) -> list[tuple]:
        return con.execute(sql).fetchall()
    return {"loop": buckets.loop, "rounds": buckets.rounds, "buckets": buckets.buckets, "leaves": buckets.leaves,
            "ranges": rows(f"SELECT a, code, n, part, active FROM {buckets.ranges} ORDER BY a, code"),
            "dealt": rows(f"SELECT a, __rid, code, bid FROM {buckets.dealt} ORDER BY a, __rid"),
            "shown": rows(f"SELECT a, __rid, bid, code, shown FROM {buckets.shown} ORDER BY a, __rid")}


def test_both_loops_agree_on_adult(con):
    # section 4's release on Adult (l-unique, t-closeness on sex): 13 rounds, identical leaves
    flagged_adult(con, "adult_flagged")
    spec = load_spec(experiment_spec(l_caps={a: c["cap"] for a, c in l_caps(con, "adult_flagged").items()}))
    found = {}
    for loop in LOOPS:
        engine = Engine(con)
        with engine.workspace():
            found[loop] = outcome(con, release_bucketization(engine, prepare(engine, spec), loop))
            assert found[loop].pop("loop") == loop
    assert found["python"] == found["recursive"]
    assert found["python"]["rounds"] == 13 and found["python"]["leaves"]["fnlwgt"] > 1000


def attribute(index: int, principle) -> Attribute:
    return Attribute(index, f"a{index}", True, "", 0, "sensitive", 0, f"s{index}", principle=principle)


def bucketize(counts: list[list[int]], principles: list, loop: str) -> dict | str:
    """Bucketize attribute i's values 0.. occurring counts[i][value] times (rows numbered per
    attribute); the outcome, or the failure's message."""
    with duckdb.connect() as con:
        engine = Engine(con)
        with engine.workspace():
            pairs = engine.work("pairs")
            values = [(a, code) for a, per in enumerate(counts) for code, n in enumerate(per) for _ in range(n)]
            engine.execute(f"CREATE TABLE {pairs} (a INTEGER, __rid BIGINT, code INTEGER)")
            con.executemany(f"INSERT INTO {pairs} VALUES (?, ?, ?)",
                            [(a, i, code) for i, (a, code) in enumerate(values)])
            attrs = [attribute(a, p) for a, p in enumerate(principles)]
            try:
                return outcome(con, local_bucketization(engine, attrs, pairs, ReleaseKey.from_seed(1), loop=loop))
            except PrivacyCheckFailed as exc:
                return str(exc)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(counts=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=30).filter(any), min_size=2, max_size=2),
       l=st.integers(2, 3), t=st.sampled_from([0.15, 0.3, 0.6]))
def test_both_loops_agree_on_random_counts(counts, l, t):
    principles = [LUnique(l, "a0"), TCloseness(t, "a1")]
    python, recursive = bucketize(counts, principles, "python"), bucketize(counts, principles, "recursive")
    if isinstance(python, dict):
        assert (python.pop("loop"), recursive.pop("loop")) == ("python", "recursive")
    assert python == recursive


def test_the_ordered_distance_keeps_the_python_loop():
    # its EMD is an ASOF join, which DuckDB 2.0 does not run inside a recursive CTE
    counts, principles = [[3, 1, 2, 2], [3, 1]], [LUnique(2, "a0"), TCloseness(0.3, "a1", "ordered")]
    found = bucketize(counts, principles, "recursive")
    assert found["loop"] == "python" and found == bucketize(counts, principles, "python")
    assert found["ranges"][-2:] == [(1, 0, 3, 1, False), (1, 1, 1, 1, False)]   # {1} is not 0.3-close: no split


def test_an_unknown_loop_is_refused(con):
    with pytest.raises(ValueError, match="loop must be one of"):
        local_bucketization(Engine(con), [], "p", ReleaseKey.from_seed(1), loop="sql")
