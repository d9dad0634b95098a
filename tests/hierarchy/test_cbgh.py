"""CBGH's merge plan (paper 001 Algorithm 2, CreateLevel) on hand-made cardinalities."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.hierarchy.cbgh import Node, create_level, merge_plan


def runs(level: list[Node]) -> list[tuple[int, int]]:
    return [(n.first, n.last) for n in level]


def leaves(*counts: int) -> list[Node]:
    return [Node(j, j, n) for j, n in enumerate(counts)]


CASES = [  # counts, the parent level's runs of leaves, why
    pytest.param([3, 1, 4, 1], [(0, 1), (2, 3)], id="even: N1+N2, N3+N4"),
    pytest.param([5, 1, 1, 1, 9], [(0, 1), (2, 3), (4, 4)], id="odd: keep the node giving the least spread (6, 2, 9)"),
    pytest.param([2, 5, 1, 2, 4], [(0, 1), (2, 3), (4, 4)],
                 id="spread tie (2,6,6) vs (7,3,4): the smaller variance wins"),
    pytest.param([1, 10, 1, 1, 1], [(0, 0), (1, 2), (3, 4)], id="full tie: the leftmost node stays untouched"),
    pytest.param([7], [(0, 0)], id="one node is the root"),
]


@pytest.mark.parametrize("counts,parent", CASES)
def test_create_level(counts, parent):
    assert runs(create_level(leaves(*counts))) == parent


def test_plan_goes_up_to_one_node_and_keeps_counts():
    plan = merge_plan([4, 0, 0, 7, 1, 1, 2])
    assert [len(level) for level in plan] == [7, 4, 2, 1]
    assert all(sum(n.n for n in level) == 15 for level in plan)
    for level in plan:  # every level covers the leaves once, in order
        assert [n.first for n in level][0] == 0 and level[-1].last == 6
        assert all(a.last + 1 == b.first for a, b in zip(level, level[1:]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=40))
def test_every_level_merges_consecutive_pairs_and_keeps_at_most_one(counts):
    plan = merge_plan(counts)
    assert len(plan[-1]) == 1
    for child, parent in zip(plan, plan[1:]):
        runs_of = {(n.first, n.last): n.n for n in child}
        pairs = {(a.first, b.last): a.n + b.n for a, b in zip(child, child[1:])}
        kept = [n for n in parent if (n.first, n.last) in runs_of]
        assert len(kept) == len(child) % 2
        assert all(pairs[(n.first, n.last)] == n.n for n in parent if n not in kept)
        assert parent[0].first == 0 and parent[-1].last == len(counts) - 1
        assert all(a.last + 1 == b.first for a, b in zip(parent, parent[1:]))
