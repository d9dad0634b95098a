"""The compiled greedy (anonymizer.families.anatomy.grouping, .residual) on more buckets than
one 64-bit word holds, against the one-record-at-a-time reference (tests/families/anatomy/
reference.py), whatever its re-sorting; and its bit-set helpers against plain Python."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.families.anatomy.grouping import first_set, lowest
from anonymizer.families.anatomy.greedy import Buckets, run_greedy
from tests.families.anatomy.reference import reference_msb
from tests.families.anatomy.test_greedy import (L_SL, VARIANT_IDS, VARIANTS, assert_conserved, groups_of,
                                                make_buckets)

WORDS = st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(words=WORDS, data=st.data())
def test_first_set_is_the_next_set_bit(words, data):
    bits = np.array(words, np.uint64)
    p = data.draw(st.integers(0, 64 * len(words)))
    expected = next((q for q in range(p, 64 * len(words)) if words[q >> 6] >> (q & 63) & 1), -1)
    assert first_set(bits, len(words), p) == expected


@given(st.integers(1, 2 ** 64 - 1))
def test_lowest_is_the_lowest_set_bit(x):
    assert lowest(np.uint64(x)) == (x & -x).bit_length() - 1


def wide_table(seed: int, domains: tuple[int, ...], n: int, mslf: bool):
    """``n`` records over ``domains`` (value 0 of each attribute three times as frequent, so
    buckets tie, fail and leave records), with per-value levels and a random tie order."""
    rng = random.Random(seed)
    records = [tuple(0 if rng.random() < 0.25 else rng.randrange(k) for k in domains) for _ in range(n)]
    value_level = [[rng.randrange(3) for _ in range(k)] for k in domains]
    vectors = sorted(set(records))
    tie = vectors[:]
    rng.shuffle(tie)
    level = {v: max(value_level[j][v[j]] for j in range(len(domains))) for v in vectors}
    l = [{x: L_SL[value_level[j][x]] for x in range(k)} for j, k in enumerate(domains)] if mslf else 3
    return records, l, level, tie, [list(range(k)) for k in domains]


SHAPES = {"d=3, 360 vectors": (9, 8, 5), "d=2, 70 values on one dimension": (70, 4)}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("policy,mslf", VARIANTS, ids=VARIANT_IDS)
def test_many_buckets_match_the_reference_however_often_resorted(shape, policy, mslf):
    """More than 64 buckets (several words per bit set), and on the second shape more than 64
    values (several words per batch in the residual phase): the exact greedy gives the
    reference's groups and suppressions when it re-sorts after every group's work, at the
    default, and never (its bounds then grow stale for the whole run)."""
    records, l, level, tie, domains = wide_table(sum(map(ord, shape + policy)) + mslf, SHAPES[shape], 320, mslf)
    buckets, vectors = make_buckets(records, l, level, tie, domains)
    assert len(buckets.size) > 64
    ref_groups, ref_suppressed = reference_msb(records, l, level, tie, policy, mslf)
    expected = [Counter(g) for g in ref_groups]
    sorts = {}
    for resort in (0, 8, 10 ** 9):
        out = run_greedy(buckets, policy, mslf, "exact", resort=resort)
        groups = groups_of(out, vectors)
        assert groups == expected, f"resort={resort}"
        assert out.suppressed == len(ref_suppressed)
        assert_conserved(out, buckets, vectors, groups, l)
        sorts[resort] = out.sorts
    assert sorts[0] > sorts[10 ** 9] == 1


def test_scans_visit_far_fewer_buckets_than_there_are():
    """The point of the score-bound order and the bit sets: on 2,000 buckets and 200,000
    records in the cycling regime, the scans visit a small fraction of the buckets per group
    (a scan of every bucket per pick would be at least 3 * 2,000 per group)."""
    rng = np.random.default_rng(7)
    vals = np.array(sorted({(int(a), int(b), int(c)) for a, b, c in rng.integers(0, [20, 20, 10], (4000, 3))}))[:2000]
    b = Buckets(vals, np.full(vals.shape, 3, np.int64), np.zeros(len(vals), np.int64),
                rng.integers(50, 150, len(vals)).astype(np.int64), rng.permutation(len(vals)).astype(np.int64),
                [20, 20, 10])
    out = run_greedy(b, "mbf", False, "exact")
    assert out.groups > 50_000 and out.iterations > out.groups / 2      # one group at a time, mostly
    assert out.scanned < len(b.size) / 4 * out.iterations
