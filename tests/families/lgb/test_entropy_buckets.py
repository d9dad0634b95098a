"""Entropy l-diversity as the bucket principle of an attribute (paper 000, footnote 1: "other
versions of l-diversity (e.g., entropy l-diversity) can also be applied"): Algorithm 2's check
becomes entropy >= ln l, and divide_buckets deals a leaf round-robin into the largest number
of buckets that all pass (anonymizer.families.lgb.bucketize). The expected buckets are worked
by hand below and their entropies recomputed here in Python."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from anonymizer import anonymize

#: a x4, b x2, c .. h once: 12 values, entropy ln 12 - (4 ln 4 + 2 ln 2) / 12 = 1.907 (exp: 6.73)
SKEWED = ["a"] * 4 + ["b"] * 2 + list("cdefgh")


def entropy(values) -> float:
    counts, n = Counter(values).values(), len(values)
    return -sum(c / n * math.log(c / n) for c in counts)


def buckets(con, values: list[str], l: int) -> list[list[str]]:
    """Release ``values`` as a sensitive attribute under entropy l-diversity (one QI, k = 2)
    and read back each local bucket's values."""
    con.execute("CREATE OR REPLACE TABLE t (id INTEGER, g INTEGER, d VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, i % 2, v) for i, v in enumerate(values)])
    spec = {"release": "e", "source": {"table": "t"},
            "columns": {"id": "insensitive", "g": "quasi", "d": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 2}, {"type": "entropy-l-diversity", "l": l, "sensitive": "d"}],
            "algorithm": {"name": "lgb-mdp"}}
    view = anonymize(spec, con).view
    return sorted(list(b) for (b,) in con.execute(f"SELECT list(d ORDER BY d) FROM {view} GROUP BY d_bid").fetchall())


# By hand. The (upper) median of SKEWED (by counts, codes in order a..h) is c: the half
# {a x4, b x2, c} has entropy 0.956, between ln 2 and ln 3, and {d .. h} ln 5.
# l = 2: the halves pass, so Algorithm 2 splits. {a x4, b x2, c} has median a and {a x4}
# (entropy 0) fails: a leaf; dealt round-robin (a a a a b b c, position i to bucket i mod B)
# into B = 2 it gives {a a b c} and {a a b} (0.637 < ln 2), so B = 1. {d .. h} splits at f
# into {d, e, f} and {g, h} (ln 3, ln 2); {d, e, f} at e leaves {f} (0): a leaf of one bucket
# ({d, f}, {e} fails); {g, h} has median h, no big half: a leaf, one bucket.
# l = 3, l = 4: {a x4, b x2, c} fails (0.956 < ln 3), so the 12 values are one leaf.
# divide_buckets deals them in order of count (a a a a b b c d e f g h), position i to bucket
# i mod B, for the largest B whose buckets all reach ln l:
# l = 3: B = 4 gives four triples of distinct values; B = 5 leaves pairs ({a, d}, ...: ln 2 < ln 3).
# l = 4: B = 2 gives {a a b c e g}, {a a b d f h} (ln 6 - 2 ln 2 / 6 = 1.561 >= ln 4 = 1.386);
#        B = 3 gives {a a c f} (ln 4 - 2 ln 2 / 4 = 1.040 < ln 4).
@pytest.mark.parametrize("l, expected", [
    (2, [["a", "a", "a", "a", "b", "b", "c"], ["d", "e", "f"], ["g", "h"]]),
    (3, [["a", "b", "e"], ["a", "b", "f"], ["a", "c", "g"], ["a", "d", "h"]]),
    (4, [["a", "a", "b", "c", "e", "g"], ["a", "a", "b", "d", "f", "h"]]),
])
def test_skewed_values_are_dealt_into_the_most_buckets(con, l, expected):
    assert math.log(2) < entropy(SKEWED[:7]) < math.log(3)       # the median's small half
    assert buckets(con, SKEWED, l) == expected
    assert all(entropy(b) >= math.log(l) - 1e-9 for b in expected)


def test_distinct_values_split_at_the_median_into_narrow_buckets(con):
    """a .. h once each, l = 2: the (upper) median e splits them into {a..e} and {f, g, h};
    {a..e} splits at c into {a, b, c} and {d, e}; {a, b, c} at b would leave {c} (entropy 0),
    {d, e} has no big half, {f, g, h} at g would leave {h}: three leaves, one bucket each (two
    buckets of {a, b, c} would leave one value alone)."""
    assert buckets(con, list("abcdefgh"), 2) == [["a", "b", "c"], ["d", "e"], ["f", "g", "h"]]


def test_too_little_entropy_stops_the_release(con):
    from anonymizer.errors import PrivacyCheckFailed
    with pytest.raises(PrivacyCheckFailed, match="entropy-7-diversity"):   # exp(1.907) = 6.73 < 7
        buckets(con, SKEWED, 7)
