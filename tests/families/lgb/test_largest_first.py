"""divide_buckets for l-unique attributes (paper 000, Algorithm 2 line 9) as m-invariance's
assignment (Xiao and Tao 2007, m = l): rounds, each taking one record of each of the l values
with the most records left, ties by the release's draw over the values; the last n mod l
records join the first bucket that lacks their value. The SQL computes every record's round
from the counts (templates/families/lgb/bucket_largest_first.sql.j2); here the greedy runs
round by round in Python on the leaves the release found, and the buckets must be the same,
in the same order."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.lgb.bucketize import local_bucketization
from anonymizer.families.lgb.models import LUnique
from anonymizer.randomness import ReleaseKey
from tests.families.lgb.test_bucketize_loops import attribute


def greedy(counts: dict[int, int], l: int) -> list[list[int]]:
    """m-invariance's assignment run round by round; ``counts`` in tie order (dict order)."""
    left, rounds = dict(counts), []
    for _ in range(sum(counts.values()) // l):
        top = sorted((v for v in left if left[v]), key=lambda v: -left[v])[:l]   # stable: ties in dict order
        assert len(top) == l
        rounds.append(sorted(top))
        for v in top:
            left[v] -= 1
    for v in (v for v in left if left[v]):                  # the residue: fewer than l records
        assert left[v] == 1
        next(r for r in rounds if v not in r).append(v)
        rounds = [sorted(r) for r in rounds]
    return rounds


def released(counts: list[int], l: int, seed: int = 1) -> tuple[list[list[int]], list[list[int]]]:
    """Bucketize one attribute whose value i occurs counts[i] times: the release's buckets in
    BID order, and the greedy's on the same leaves (tie order read off the release's draw)."""
    with duckdb.connect() as con:
        engine = Engine(con)
        with engine.workspace():
            pairs = engine.work("pairs")
            engine.execute(f"CREATE TABLE {pairs} (a INTEGER, __rid BIGINT, code INTEGER)")
            values = [code for code, n in enumerate(counts) for _ in range(n)]
            con.executemany(f"INSERT INTO {pairs} VALUES (0, ?, ?)", list(enumerate(values)))
            key = ReleaseKey.from_seed(seed)
            got = local_bucketization(engine, [attribute(0, LUnique(l, "a0"))], pairs, key)
            ours = [sorted(b) for (b,) in con.execute(
                f"SELECT list(code) FROM {got.dealt} GROUP BY bid ORDER BY bid").fetchall()]
            leaves = con.execute(
                f"SELECT part, list(code ORDER BY md5_number($key || 'lgb-tie' || ':' || a::VARCHAR || ':' "
                f"|| code::VARCHAR)), list(n ORDER BY md5_number($key || 'lgb-tie' || ':' || a::VARCHAR || ':' "
                f"|| code::VARCHAR)) FROM {got.ranges} GROUP BY part ORDER BY min(code)", key.params()).fetchall()
    expected = [r for _, codes, ns in leaves for r in greedy(dict(zip(codes, ns)), l)]
    return ours, expected


def test_fig4s_disease_counts():
    # Bronchitis and Pneumonia twice, four others once, l = 2: one leaf (the upper median's big
    # half is not 2-eligible); the first round pairs the two doubles, then the draw's order
    ours, expected = released([2, 1, 1, 1, 1, 2], 2)
    assert ours == expected and len(ours) == 4 and [0, 5] in ours


def test_a_dominant_value_is_in_every_bucket():
    # c = (3, 1, 1, 1), l = 2: value 0 is in all three rounds (pairing by count alone would
    # put two of its records together)
    ours, expected = released([3, 1, 1, 1], 2)
    assert ours == expected and all(0 in b for b in ours)


def test_a_dominant_value_among_many_single_ones():
    # one value 12 times among 48 seen once, l = 5: the dominant value is above the level for
    # eleven rounds and reaches it in the last; the rest are taken in the draw's order, five a
    # round less the dominant value's place (the shape that made the rounds' join quadratic)
    ours, expected = released([12] + [1] * 48, 5)
    assert ours == expected and len(ours) == 12 and all(0 in b for b in ours)


def test_the_residue_joins_a_bucket_without_its_value():
    ours, expected = released([2, 2, 1], 2)        # n = 5, two buckets, one record left over
    assert ours == expected and sorted(map(len, ours)) == [2, 3] and all(len(set(b)) == len(b) for b in ours)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 12), min_size=1, max_size=14), l=st.integers(2, 5), seed=st.integers(0, 3))
def test_the_rounds_computed_from_counts_are_the_greedy_rounds(counts, l, seed):
    try:
        ours, expected = released(counts, l, seed)
    except PrivacyCheckFailed:                        # the whole attribute is not l-eligible
        assert max(counts) * l > sum(counts)
        return
    assert ours == expected
    assert all(len(b) >= l and len(set(b)) == len(b) for b in ours)
