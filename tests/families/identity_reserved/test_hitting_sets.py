"""Hitting sets of paper 004 (Wang et al. 2018): BHS (Algorithm 3), the exact minimum,
SatPriIR_El (Algorithm 2) and SatPriIRInc_El (Algorithm 5), against the paper's examples and
brute force."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.families.identity_reserved.hitting_sets import (
    IncrementalEl,
    absorb,
    bhs,
    is_hitting_set,
    min_hitting_set_size,
    minimum_hitting_sets,
    sat_el,
)

F = frozenset


def brute_force_minimal_hitting_sets(psi) -> set[frozenset]:
    """The oracle: all minimal hitting sets by enumerating every subset of the universe
    (tiny inputs), absorbed (supersets dropped)."""
    sets = [frozenset(f) for f in psi]
    universe = sorted({s for f in sets for s in f}, key=repr)
    hitting = [frozenset(c) for n in range(len(universe) + 1) for c in combinations(universe, n)
               if all(set(c) & f for f in sets)]
    return absorb(hitting)
# section 4.3, the BHS example
PSI = [{"x1", "x3"}, {"x1", "x3", "x5"}, {"x1", "x6"}, {"x3", "x5"}, {"x5", "x7"}, {"x4"}, {"x4", "x5"},
       {"x4", "x6"}]


def brute_min(psi) -> int:
    universe = sorted({v for s in psi for v in s})
    for n in range(len(universe) + 1):
        for c in combinations(universe, n):
            if all(set(c) & set(s) for s in psi):
                return n
    raise AssertionError("no hitting set")


# -- the paper's examples -----------------------------------------------------------------------

def test_bhs_reproduces_the_papers_example():
    assert bhs(PSI) == {F({"x1", "x4", "x5"}), F({"x3", "x4", "x5", "x6"}), F({"x3", "x4", "x6", "x7"})}


def test_bhs_complete_adds_the_set_the_listing_misses():
    """Lines 6-7 return x5 for x3x5 + x5x7 and lose {x3, x7}: the complete expansion has a fourth
    minimal hitting set, and it equals brute force."""
    complete = bhs(PSI, complete=True)
    assert complete == bhs(PSI) | {F({"x1", "x3", "x4", "x7"})}
    assert complete == brute_force_minimal_hitting_sets(PSI)


def test_bhs_steps_of_the_example():
    # lines 2-3: one conjunctive item returns its literals
    assert bhs([{"x1", "x3"}]) == {F({"x1"}), F({"x3"})}
    # lines 6-7: a literal in every item
    assert bhs([{"x3", "x5"}, {"x5", "x7"}]) == {F({"x5"})}
    # the second branch of the example: x3 x6 (x5 + x7)
    assert bhs([{"x3"}, {"x6"}, {"x3", "x5"}, {"x5", "x7"}]) == {F({"x3", "x5", "x6"}), F({"x3", "x6", "x7"})}
    # the empty collection: the empty set is its one minimal hitting set
    assert bhs([]) == {F()}


def test_definition_3_5_example():
    psi = [{"x2", "x3"}, {"x2", "x4"}, {"x1", "x2"}]
    assert bhs(psi, complete=True) == {F({"x2"}), F({"x1", "x3", "x4"})}
    assert minimum_hitting_sets(psi) == {F({"x2"})}
    assert min_hitting_set_size(psi) == 1
    assert is_hitting_set({"x1", "x3", "x4"}, psi) and not is_hitting_set({"x1", "x3"}, psi)


def test_absorption_law():
    assert absorb([F("ab"), F("a"), F("abc"), F("bc")]) == {F("a"), F("bc")}


def test_empty_set_has_no_hitting_set():
    with pytest.raises(ValueError):
        min_hitting_set_size([{"a"}, set()])
    with pytest.raises(ValueError):
        IncrementalEl(2).add(set())


# -- Algorithm 2, branch by branch --------------------------------------------------------------

@pytest.mark.parametrize("use_bhs", [False, True])
def test_sat_el_branches(use_bhs):
    # lines 9-16: no single-value individual; the triangle needs 2 values
    tri = [{"a", "b"}, {"a", "c"}, {"b", "c"}]
    assert sat_el(tri, 2, use_bhs) and not sat_el(tri, 3, use_bhs)
    # lines 17-18: |xi| >= l at once (the others do not matter)
    assert sat_el([{"a"}, {"b"}, {"c"}, {"a", "b"}], 3, use_bhs)
    # lines 20-31: xi = {a}; {a, b} is hit by xi and leaves; {c, d} needs one more: 1 + 1
    psi = [{"a"}, {"a", "b"}, {"c", "d"}]
    assert sat_el(psi, 2, use_bhs) and not sat_el(psi, 3, use_bhs)
    # lines 20-31 with a rest needing 2: xi = {a}, rest = triangle on b, c, d
    psi = [{"a"}, {"b", "c"}, {"b", "d"}, {"c", "d"}, {"a", "e"}]
    assert sat_el(psi, 3, use_bhs) and not sat_el(psi, 4, use_bhs)
    # Table 3's Q2 is not 3-diverse: Hypertension hits every individual
    q2 = [{"Hypertension", "Heart"}, {"Hypertension"}, {"Hypertension", "Diabetes"}]
    assert sat_el(q2, 1, use_bhs) and not sat_el(q2, 2, use_bhs)
    # the empty class is not l-diverse
    assert not sat_el([], 1, use_bhs)


# -- Algorithm 5: the running example of section 4.3 ---------------------------------------------

def test_incremental_running_example():
    inc = IncrementalEl(3)
    assert inc.add({"Leukaemia", "Heart"}) is False          # individual 6
    assert inc.family == {F({"Leukaemia"}), F({"Heart"})}     # line 2
    assert inc.add({"Syphilis"}) is False                     # individual 7
    assert inc.family == {F({"Leukaemia", "Syphilis"}), F({"Heart", "Syphilis"})}
    assert inc.minimum() == 2
    assert inc.add({"Hypertension", "Diabetes"}) is True      # individual 4: 3-diverse
    assert inc.satisfied and inc.family == set() and inc.minimum() == 3


def test_incremental_running_example_keeps_the_four_sets_of_size_3():
    """With l = 4 the size-3 sets are kept: the four products of line 4 (the paper prints
    {Leukaemia, Syphilis, Diabetes} twice and means {Heart, Syphilis, Hypertension} once)."""
    inc = IncrementalEl(4)
    for s in ({"Leukaemia", "Heart"}, {"Syphilis"}, {"Hypertension", "Diabetes"}):
        assert inc.add(s) is False
    assert inc.family == {F({"Leukaemia", "Syphilis", "Hypertension"}), F({"Heart", "Syphilis", "Hypertension"}),
                          F({"Leukaemia", "Syphilis", "Diabetes"}), F({"Heart", "Syphilis", "Diabetes"})}
    assert inc.minimum() == 3 and inc.tau_lower == 3


def test_incremental_bound_a_drops_large_sets():
    inc = IncrementalEl(2)
    assert inc.add({"a", "b", "c"}) is False
    assert inc.family == {F("a"), F("b"), F("c")}
    assert inc.add({"d", "e"}) is True                  # every hitting set now has 2 values
    assert inc.family == set()


def test_incremental_bound_b_packing_decides():
    inc = IncrementalEl(3, cap=0)                       # no family can be kept at all
    assert inc.add({"a", "b"}) is False                 # cap 0: switches to the exact check
    assert inc.mode == "exact"
    assert inc.add({"c", "d"}) is False
    assert inc.add({"e", "f"}) is True                  # three disjoint sets: packing of 3
    assert len(inc.packing) == 3


def test_incremental_bound_c_switches_and_stays_exact():
    rng = random.Random(7)
    sets = [set(rng.sample(range(30), rng.randint(2, 6))) for _ in range(25)]
    small, big = IncrementalEl(6, cap=50), IncrementalEl(6, cap=10 ** 9)
    for i, s in enumerate(sets):
        assert small.add(s) == big.add(s) == sat_el(sets[:i + 1], 6)
    assert small.mode == "exact" and big.mode == "family"
    assert small.minimum() == big.minimum() == min_hitting_set_size(sets, limit=6)


def test_min_hitting_set_size_limit():
    psi = [{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}]
    assert min_hitting_set_size(psi) == 4
    assert min_hitting_set_size(psi, limit=2) == 2
    assert min_hitting_set_size(psi, limit=9) == 4
    assert min_hitting_set_size([]) == 0


def test_branch_and_bound_on_a_larger_class():
    """14 individuals with up to 5 values of 60: the exact minimum equals the smallest set BHS
    returns, by the listing and by the complete expansion."""
    rng = random.Random(3)
    psi = [set(rng.sample(range(60), rng.randint(1, 5))) for _ in range(14)]
    assert min_hitting_set_size(psi) == min(map(len, bhs(psi))) == min(map(len, bhs(psi, complete=True)))


# -- brute force ------------------------------------------------------------------------------------

sets_strategy = st.lists(st.sets(st.sampled_from("abcdefg"), min_size=1, max_size=4), max_size=7)


@settings(max_examples=300, deadline=None)
@given(sets_strategy)
def test_bhs_against_brute_force(psi):
    truth = brute_force_minimal_hitting_sets(psi)
    assert bhs(psi, complete=True) == truth
    listed = bhs(psi)
    assert all(is_hitting_set(h, psi) for h in listed)
    assert min(map(len, listed)) == min(map(len, truth))      # BHS keeps a minimum hitting set


@settings(max_examples=300, deadline=None)
@given(sets_strategy, st.integers(1, 6))
def test_minimum_and_sat_el_against_brute_force(psi, l):
    tau = brute_min(psi)
    assert min_hitting_set_size(psi) == tau
    assert min_hitting_set_size(psi, limit=l) == min(tau, l)
    expected = bool(psi) and tau >= l
    assert sat_el(psi, l) == expected
    assert sat_el(psi, l, use_bhs=True) == expected


@settings(max_examples=300, deadline=None)
@given(sets_strategy, st.integers(1, 6), st.sampled_from([0, 3, 2_000]), st.randoms(use_true_random=False))
def test_incremental_against_brute_force_in_any_order(psi, l, cap, rnd):
    order = list(psi) + rnd.sample(list(psi), min(3, len(psi)))   # an individual's set seen again
    rnd.shuffle(order)
    inc = IncrementalEl(l, cap=cap)
    for i, s in enumerate(order):
        tau = brute_min(order[:i + 1])
        assert inc.add(s) == (tau >= l)
        assert inc.minimum() == min(tau, l)
        assert inc.tau_lower <= max(tau, l) and (inc.satisfied or inc.tau_lower <= tau)
        if inc.mode == "family":  # bound (a): exactly the minimal hitting sets of size < l
            small = {h for h in brute_force_minimal_hitting_sets(order[:i + 1]) if len(h) < l}
            assert inc.family == small


def test_incremental_family_on_larger_classes():
    """Families of hundreds of sets (where absorption looks subsets up instead of scanning):
    the kept family is exactly the complete BHS's minimal hitting sets of size < l."""
    rng = random.Random(11)
    for _ in range(4):
        sets = [set(rng.sample(range(14), rng.randint(2, 4))) for _ in range(12)]
        inc = IncrementalEl(6, cap=10 ** 9)
        for i, s in enumerate(sets):
            inc.add(s)
            if inc.satisfied:
                break
            assert inc.family == {h for h in bhs(sets[:i + 1], complete=True) if len(h) < 6}
