"""The bound the optimal search prunes with under suppression (models/t_closeness_keep.sql.j2):
for every class, no sub-multiset of its rows larger than ``keep`` is t-close. Checked against
brute force over every sub-multiset of small random classes, with the EMD computed by its
definition (tests/models/conftest.py), for the equal and the ordered ground distances."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.engine.session import Engine

from .conftest import emd_equal, emd_lp, emd_ordered, load

VALUES = ["a", "b", "c", "d"]
#: a two-level hierarchy over VALUES: {a, b} and {c, d} under the root (ARX-style, balanced)
PARENT = {"a": "ab", "b": "ab", "c": "cd", "d": "cd"}


def hier_distance(x: str, y: str) -> float:
    """Li et al. 2007's hierarchical ground distance: the level of the lowest common ancestor / H."""
    return 0.0 if x == y else (0.5 if PARENT[x] == PARENT[y] else 1.0)


def keeps(con, hist: list[tuple], ref: dict, t: float, distance: str) -> dict:
    """Run the template over ``hist`` (gid, s, n) against the reference ``ref``."""
    con.execute("DROP TABLE IF EXISTS h; DROP TABLE IF EXISTS ref")
    load(con, "h", ["gid", "s", "n"], hist)
    load(con, "ref", ["s", "p", "rnk"], [(v, p, i + 1) for i, (v, p) in enumerate(sorted(ref.items()))])
    con.execute("DROP TABLE IF EXISTS tree")
    load(con, "tree", ["s", "level", "node"], [(v, 1, PARENT[v]) for v in VALUES] + [(v, 2, "*") for v in VALUES])
    engine = Engine(con)
    text = engine.sql("models/t_closeness_keep.sql.j2", hist="h", glob="ref", p="m0", distance=distance, hier="tree")
    return dict(con.execute(text, {"m0_t": t}).fetchall())


def largest_close(counts: dict, ref: dict, t: float, emd) -> int:
    """The largest sub-multiset of a class (value -> count) whose EMD to ``ref`` is <= t."""
    best = 0
    for sub in itertools.product(*[range(c + 1) for c in counts.values()]):
        size = sum(sub)
        if size > best and emd({v: x / size for v, x in zip(counts, sub) if x}, ref) <= t + 1e-9:
            best = size
    return best


classes = st.lists(st.dictionaries(st.sampled_from(VALUES), st.integers(1, 5), min_size=1), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(classes=classes, weights=st.lists(st.integers(1, 6), min_size=4, max_size=4),
       t=st.sampled_from([0.05, 0.15, 0.3, 0.5]), distance=st.sampled_from(["equal", "ordered"]))
def test_no_larger_part_of_a_class_is_t_close(con, classes, weights, t, distance):
    ref = {v: w / sum(weights) for v, w in zip(VALUES, weights)}
    hist = [(g, v, n) for g, counts in enumerate(classes) for v, n in counts.items()]
    found = keeps(con, hist, ref, t, distance)
    emd = emd_equal if distance == "equal" else emd_ordered
    for g, counts in enumerate(classes):
        truth = largest_close(counts, ref, t, emd)
        assert truth <= found[g] <= sum(counts.values())
        if distance == "equal" and emd({v: n / sum(counts.values()) for v, n in counts.items()}, ref) <= t:
            assert found[g] == sum(counts.values())          # a t-close class keeps every row


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(classes=st.lists(st.dictionaries(st.sampled_from(VALUES), st.integers(1, 3), min_size=1), min_size=1,
                        max_size=2),
       weights=st.lists(st.integers(1, 6), min_size=4, max_size=4), t=st.sampled_from([0.05, 0.15, 0.3]))
def test_hierarchical_distance_no_larger_part_is_t_close(con, classes, weights, t):
    """The hierarchical distance (the bound goes through the total variation, t' = t * H): every
    sub-multiset larger than ``keep`` is farther than t, by the EMD's transportation LP."""
    ref = {v: w / sum(weights) for v, w in zip(VALUES, weights)}
    found = keeps(con, [(g, v, n) for g, c in enumerate(classes) for v, n in c.items()], ref, t, "hierarchical")
    for g, counts in enumerate(classes):
        assert 0 <= found[g] <= sum(counts.values())
        for sub in itertools.product(*[range(c + 1) for c in counts.values()]):
            if sum(sub) > found[g]:
                p = {v: x / sum(sub) for v, x in zip(counts, sub) if x}
                assert emd_lp(p, ref, hier_distance) > t - 1e-9, (counts, sub)


def test_worked_class(con):
    """Q = (.5, .3, .2), t = 0.1, a class of 6 a, 1 b, 0 c: keeping m rows leaves TV = max over
    deficit sets; D = {c} alone gives .2 > t at any size: nothing can be kept. With 4 c the
    class (6, 1, 4) is limited by D = {b}: m <= 1 / (.3 - .1) = 5 rows."""
    ref = {"a": 0.5, "b": 0.3, "c": 0.2}
    assert keeps(con, [(0, "a", 6), (0, "b", 1)], ref, 0.1, "equal") == {0: 0}
    assert keeps(con, [(0, "a", 6), (0, "b", 1), (0, "c", 4)], ref, 0.1, "equal") == {0: 5}
    assert largest_close({"a": 6, "b": 1, "c": 4}, ref, 0.1, emd_equal) == 5
