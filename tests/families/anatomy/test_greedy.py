"""MSB's greedy phases on bucket counts (anonymizer.families.anatomy.greedy) against paper 002's
Table 1 worked by hand and against the naive one-record-at-a-time reference (tests/families/anatomy/reference.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.families.anatomy.greedy import Buckets, run_greedy
from tests.families.anatomy.conftest import TABLE1_GROUPS
from tests.families.anatomy.reference import reference_msb

VARIANTS = [(p, m) for m in (False, True) for p in ("mbf", "msdcf", "mmdcf")]
VARIANT_IDS = [p + ("-mslf" if m else "") for p, m in VARIANTS]


# -- helpers ---------------------------------------------------------------------------------
def l_of(l, j, value):
    return l if isinstance(l, int) else l[j][value]


def make_buckets(records, l, level, tie, domains=None):
    """Definition 13's buckets of ``records`` (vectors), in sorted-vector order (not tie order).

    ``domains``: each attribute's values (default: those the records hold); values no record
    holds get codes too, as the SQL side does for every value of the levels table."""
    vectors = sorted(set(records))
    d = len(vectors[0])
    if domains is None:
        domains = [sorted({v[j] for v in vectors}) for j in range(d)]
    code = [{x: i for i, x in enumerate(dom)} for dom in domains]
    size = Counter(records)
    rank = {v: i for i, v in enumerate(tie)}
    b = Buckets(
        vals=np.array([[code[j][v[j]] for j in range(d)] for v in vectors], np.int64).reshape(len(vectors), d),
        lval=np.array([[l_of(l, j, v[j]) for j in range(d)] for v in vectors], np.int64).reshape(len(vectors), d),
        level=np.array([level[v] for v in vectors], np.int64),
        size=np.array([size[v] for v in vectors], np.int64),
        tie=np.array([rank[v] for v in vectors], np.int64),
        domain=[len(dom) for dom in domains],
    )
    return b, vectors


def check_takes(out, buckets):
    """Takes never overlap nor leave their bucket; returns records handed out per bucket."""
    ranges: dict[int, list[tuple[int, int]]] = {}
    for t in out.takes:
        assert t.per >= 1 and t.m >= 1 and t.lo >= 0
        assert 0 <= t.gid and t.gid + t.m <= out.groups
        ranges.setdefault(t.bid, []).append((t.lo, t.lo + t.per * t.m))
    handed = np.zeros(len(buckets.size), np.int64)
    for bid, rs in ranges.items():
        rs.sort()
        for (a0, a1), (b0, _) in zip(rs, rs[1:]):
            assert a1 <= b0, f"bucket {bid}: takes overlap {rs}"
        assert rs[-1][1] <= buckets.size[bid], f"bucket {bid}: takes beyond its size"
        handed[bid] = sum(hi - lo for lo, hi in rs)
    return handed


def groups_of(out, vectors) -> list[Counter]:
    """The groups the takes describe, as multisets of vectors, in gid order."""
    groups = [Counter() for _ in range(out.groups)]
    for t in out.takes:
        for g in range(t.gid, t.gid + t.m):
            groups[g][vectors[t.bid]] += t.per
    return groups


def assert_diverse(group: Counter, l):
    """Definition 10 (Definition 7 for a uniform l) at the group's final size."""
    n = sum(group.values())
    assert n > 0, "empty group"
    d = len(next(iter(group)))
    for j in range(d):
        per_value = Counter()
        for v, c in group.items():
            per_value[v[j]] += c
        for x, c in per_value.items():
            assert c * l_of(l, j, x) <= n, f"value {x!r} on dim {j}: {c} of {n} records, l={l_of(l, j, x)}"


def run_both(records, l, level, tie, policy, mslf, batch, domains=None):
    buckets, vectors = make_buckets(records, l, level, tie, domains)
    out = run_greedy(buckets, policy, mslf, batch)
    ref_groups, ref_suppressed = reference_msb(records, l, level, tie, policy, mslf)
    return buckets, vectors, out, ref_groups, ref_suppressed


def assert_conserved(out, buckets, vectors, groups, l):
    handed = check_takes(out, buckets)
    for g in groups:
        assert_diverse(g, l)
    per_vector = Counter()
    for g in groups:
        per_vector.update(g)
    for bid, v in enumerate(vectors):
        assert per_vector[v] == handed[bid] <= buckets.size[bid]
    assert out.suppressed == int(buckets.size.sum() - handed.sum())
    assert out.grouped + out.residual_added + out.suppressed == int(buckets.size.sum())


# -- paper 002, Table 1 ----------------------------------------------------------------------
T1 = [("John", "Flu"), ("John", "Pneumonia"), ("Mary", "Cancer"), ("Bob", "Flu"), ("Bob", "Pneumonia"),
      ("Anne", "Gastritis"), ("John", "Gastritis"), ("Sam", "HIV"), ("Mary", "Flu")]
PHYSICIAN_LEVEL = {p: 1 for p in ("John", "Bob", "Anne", "Sam", "Mary")}
DISEASE_LEVEL = {"Flu": 0, "Pneumonia": 1, "Gastritis": 1, "HIV": 2, "Cancer": 2}
L_SL = (1, 2, 3)
T1_L = [{p: L_SL[s] for p, s in PHYSICIAN_LEVEL.items()}, {x: L_SL[s] for x, s in DISEASE_LEVEL.items()}]
T1_LEVEL = {v: max(PHYSICIAN_LEVEL[v[0]], DISEASE_LEVEL[v[1]]) for v in T1}
T1_TIE = sorted(T1)    # Anne/Gastritis, Bob/Flu, Bob/Pneumonia, John/Flu, ..., Sam/HIV


def R(*names):
    return Counter(tuple(x.split("/")) for x in names)


TABLE1 = {(policy, variant == "mslf"): [R(*group) for group in groups]
          for (policy, _, variant), groups in ((name.partition("-"), groups)
                                               for name, groups in TABLE1_GROUPS.items())}


@pytest.mark.parametrize("batch", ["exact", 0.05, 1.0])
@pytest.mark.parametrize("policy,mslf", VARIANTS, ids=VARIANT_IDS)
def test_table1(policy, mslf, batch):
    l = T1_L if mslf else 3
    buckets, vectors, out, ref_groups, ref_suppressed = run_both(T1, l, T1_LEVEL, T1_TIE, policy, mslf, batch)
    expected = TABLE1[(policy, mslf)]
    assert [Counter(g) for g in ref_groups] == expected
    assert ref_suppressed == []
    groups = groups_of(out, vectors)
    assert groups == expected
    assert out.suppressed == 0 and out.residual_added == 0 and out.failures == 0
    assert_conserved(out, buckets, vectors, groups, l)


# -- random tables against the reference -----------------------------------------------------
L_TUPLES = [(1, 2, 3), (1, 1, 2), (2, 2, 2), (1, 1, 1), (2, 3, 4), (1, 1, 4), (1, 2, 5)]


@dataclass
class Table:
    records: list
    l: object
    level: dict
    tie: list
    domains: list


@st.composite
def tables(draw, mslf: bool):
    d = draw(st.integers(1, 3))
    ks = [draw(st.integers(1, 5)) for _ in range(d)]
    value_level = [[draw(st.integers(0, 2)) for _ in range(k)] for k in ks]
    # a skewed value distribution makes large buckets, ties and failures more likely
    value = [st.integers(0, k - 1) | st.just(0) for k in ks]
    records = draw(st.lists(st.tuples(*value), min_size=1, max_size=60))
    vectors = sorted(set(records))
    tie = draw(st.permutations(vectors))
    level = {v: max(value_level[j][v[j]] for j in range(d)) for v in vectors}
    if mslf:
        lt = draw(st.sampled_from(L_TUPLES))
        l = [{x: lt[value_level[j][x]] for x in range(ks[j])} for j in range(d)]
    else:
        l = draw(st.integers(1, 3))
    return Table(records, l, level, tie, [list(range(k)) for k in ks])


def _check_exact(t: Table, policy, mslf):
    buckets, vectors, out, ref_groups, ref_suppressed = run_both(t.records, t.l, t.level, t.tie, policy, mslf, "exact",
                                                                 t.domains)
    groups = groups_of(out, vectors)
    assert groups == [Counter(g) for g in ref_groups]
    assert out.suppressed == len(ref_suppressed)
    assert_conserved(out, buckets, vectors, groups, t.l)


def _check_batched(t: Table, policy, mslf, batch):
    buckets, vectors = make_buckets(t.records, t.l, t.level, t.tie, t.domains)
    out = run_greedy(buckets, policy, mslf, batch)
    assert_conserved(out, buckets, vectors, groups_of(out, vectors), t.l)


@pytest.mark.parametrize("policy", ["mbf", "msdcf", "mmdcf"])
@settings(max_examples=120, deadline=None)
@given(t=tables(mslf=False))
def test_exact_matches_reference_baseline(policy, t):
    _check_exact(t, policy, False)


@pytest.mark.parametrize("policy", ["mbf", "msdcf", "mmdcf"])
@settings(max_examples=120, deadline=None)
@given(t=tables(mslf=True))
def test_exact_matches_reference_mslf(policy, t):
    _check_exact(t, policy, True)


@pytest.mark.parametrize("batch", [0.05, 1.0])
@pytest.mark.parametrize("policy,mslf", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_batched_groups_valid(policy, mslf, batch, data):
    _check_batched(data.draw(tables(mslf=mslf)), policy, mslf, batch)


# -- regressions -----------------------------------------------------------------------------
@pytest.mark.parametrize("batch", ["exact", 0.05, 1.0])
@pytest.mark.parametrize("policy", ["mbf", "msdcf", "mmdcf"])
def test_lower_start_shields_values_it_cannot_hold(policy, batch):
    """A value whose l exceeds the group's l_G may not join it even once: (1*l(v) > l_G).

    MSLF starts with (1,) (level 1, l = 3): (0,) joins once (l = 2), cannot join twice, nothing
    else is left, so the start fails and is barred. The next start, (0,), has l_G = 2, and
    (1,) (l = 3) must stay shielded: a group {(0,), (1,)} would give value 1 a share of 1/2 >
    1/3 (Definition 10). No group can be formed; both records are suppressed."""
    records = [(0,), (1,)]
    l = [{0: 2, 1: 3}]
    level = {(0,): 0, (1,): 1}
    buckets, vectors, out, ref_groups, ref_suppressed = run_both(records, l, level, sorted(level), policy, True, batch)
    assert ref_groups == [] and sorted(ref_suppressed) == records
    assert groups_of(out, vectors) == []
    assert out.suppressed == 2 and out.failures == 2
    assert_conserved(out, buckets, vectors, [], l)


# -- large counts ----------------------------------------------------------------------------
LEVEL_1 = {"a": 1, "b": 1, "c": 0, "d": 2, "e": 0}
LEVEL_2 = {"x": 0, "y": 1, "z": 2, "w": 1, "v": 0}
LARGE_L = [{k: L_SL[s] for k, s in LEVEL_1.items()}, {k: L_SL[s] for k, s in LEVEL_2.items()}]


def large(sizes):
    records = [v for v, n in sizes.items() for _ in range(n)]
    level = {v: max(LEVEL_1[v[0]], LEVEL_2[v[1]]) for v in sizes}
    return records, level, sorted(sizes)


@pytest.mark.parametrize("policy,mslf", VARIANTS, ids=VARIANT_IDS)
def test_large_counts_exact_in_few_iterations(policy, mslf):
    """Five buckets in the thousands sharing values, keys never tie: ``exact`` takes each group
    shape in one step and still gives the one-at-a-time reference's groups exactly."""
    records, level, tie = large({("a", "x"): 1800, ("b", "y"): 1500, ("c", "x"): 1200, ("a", "z"): 900,
                                 ("d", "w"): 400})
    l = LARGE_L if mslf else 3
    buckets, vectors, out, ref_groups, ref_suppressed = run_both(records, l, level, tie, policy, mslf, "exact")
    groups = groups_of(out, vectors)
    assert groups == [Counter(g) for g in ref_groups]
    assert out.suppressed == len(ref_suppressed)
    assert_conserved(out, buckets, vectors, groups, l)
    assert out.groups >= 1000 and out.iterations <= 10


@pytest.mark.parametrize("policy,mslf", VARIANTS, ids=VARIANT_IDS)
def test_large_counts_fraction_when_keys_tie(policy, mslf):
    """Five near-equal buckets: the keys meet and then tie group after group, so ``exact``
    needs about one iteration per group, while ``batch=0.05`` needs a few dozen per bucket
    and still forms valid groups covering every record."""
    records, level, tie = large({("a", "x"): 3000, ("b", "y"): 2900, ("c", "z"): 2800, ("d", "w"): 2700,
                                 ("e", "v"): 2600})
    l = LARGE_L if mslf else 3
    buckets, vectors = make_buckets(records, l, level, tie)
    exact = run_greedy(buckets, policy, mslf, "exact")
    assert exact.iterations > exact.groups / 3      # the cycling the module docstring describes
    out = run_greedy(buckets, policy, mslf, 0.05)
    assert_conserved(out, buckets, vectors, groups_of(out, vectors), l)
    assert out.groups >= 4000 and out.iterations * 20 < out.groups
    assert out.suppressed == exact.suppressed == 0
