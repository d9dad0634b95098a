"""Cardinality-based generalization hierarchies (CBGH), paper 001 Algorithm 2 (sec. III.C, Fig. 4).

Algorithm 2 builds the tree bottom up from the data's cardinalities:

1. (line 1) the range is extended so that it is a whole number of leaves. The paper's leaves
   are two values wide and it adds one to MaxValue when MinValue and MaxValue differ in
   parity; we take leaves ``min_width`` wide (rounded up to a whole number on integer
   columns) and extend the top to ``low + n * min_width - 1`` (integers) or
   ``low + n * min_width`` (reals), n the number of leaves.
2. (line 2, CreateLeafLevel) the leaf level: intervals of width ``min_width`` from ``low``.
3. (line 4, CreateLevel, until one node) an even number of nodes merges in pairs
   N1+N2, N3+N4, ...; an odd number merges n-1 nodes in consecutive pairs and leaves one
   untouched (rules i and ii): the untouched node is the one that minimizes the spread
   (max - min) of the resulting cardinalities, ties broken by the smallest variance, then
   the leftmost ("the nodes having low cardinalities would be merged, so the same level
   nodes-cardinality difference might be minimized", sec. III.C).

The cardinalities come from one SQL aggregate (rows per leaf, :func:`leaf_counts`); the
merge plan over the leaves is a small Python loop (at most :data:`MOST_LEAVES` leaves); the
value -> node mapping is built in SQL from the plan's node bounds (``cbgh.sql.j2``).

Distortion: H (hi - lo) / (root_hi - root_lo), the node's share of the root's length times
the height. On hours-per-week (Adult) with ``range: [1, 100]`` and ``min_width: 10`` the
levels have 10, 5, 3, 2, 1 nodes and distortions 0.45; 0.96; 0.96 and 1.97; 1.97 and 2.98;
5: every CBGH figure of Table 4.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from anonymizer.errors import SpecError
from anonymizer.engine.names import ident
from anonymizer.hierarchy.numeric import root_range
from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric order
MOST_LEAVES = 1024


class Node(NamedTuple):
    """A run of leaves ``first..last`` holding ``n`` rows."""

    first: int
    last: int
    n: int


def merge_pairs(nodes: list[Node]) -> list[Node]:
    """N1+N2, N3+N4, ... of an even number of consecutive nodes."""
    return [Node(a.first, b.last, a.n + b.n) for a, b in zip(nodes[::2], nodes[1::2])]


def imbalance(level: list[Node]) -> tuple[int, int]:
    """Spread of the cardinalities, then their variance (times len^2, exact in integers)."""
    sizes = [node.n for node in level]
    return max(sizes) - min(sizes), len(sizes) * sum(s * s for s in sizes) - sum(sizes) ** 2


def create_level(nodes: list[Node]) -> list[Node]:
    """Algorithm 2, CreateLevel: the parent level of ``nodes``.

    Example:
        >>> create_level([Node(0, 0, 5), Node(1, 1, 1), Node(2, 2, 1)])   # keep the big one
        [Node(first=0, last=0, n=5), Node(first=1, last=2, n=2)]
    """
    if len(nodes) % 2 == 0:
        return merge_pairs(nodes)
    options = [merge_pairs(nodes[:keep]) + [nodes[keep]] + merge_pairs(nodes[keep + 1:])
               for keep in range(0, len(nodes), 2)]
    return min(options, key=imbalance)


def merge_plan(counts: list[int]) -> list[list[Node]]:
    """Algorithm 2, line 4: the levels from the leaves (one per count) up to the root.

    Example:
        >>> [len(level) for level in merge_plan([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])]
        [10, 5, 3, 2, 1]
    """
    levels = [[Node(j, j, n) for j, n in enumerate(counts)]]
    while len(levels[-1]) > 1:
        levels.append(create_level(levels[-1]))
    return levels


def leaves(domain: Domain) -> tuple[float, float, int]:
    """Algorithm 2, lines 1-2: ``(low, width, n)`` of the leaf level."""
    h = domain.hierarchy
    low, high = root_range(domain)
    width = math.ceil(h.min_width) if domain.integer else h.min_width
    count = math.ceil((high - low + 1) / width) if domain.integer else max(math.ceil((high - low) / width), 1)
    if count > MOST_LEAVES:
        raise SpecError(f"{domain.site.where}.cbgh.min_width",
                        f"gives {count} leaves over [{low:g}, {high:g}]; CBGH merges at most {MOST_LEAVES}: "
                        "take a wider min_width", h.min_width)
    return low, width, count


def leaf_counts(domain: Domain, params: dict) -> list[int]:
    """Rows of the source per leaf (one SQL aggregate), zero for empty leaves."""
    counts = [0] * params["leaves"]
    site = domain.site
    for leaf, n in site.engine.rows("hierarchy/cbgh_counts.sql.j2", params, source=site.source,
                                    column=ident(site.column.name)):
        counts[leaf] = n
    return counts


def levels(domain: Domain) -> Levels:
    """Leaves, their counts, the merge plan, then the mapping in SQL."""
    low, width, count = leaves(domain)
    params = {"low": low, "width": width, "leaves": count}
    plan = merge_plan(leaf_counts(domain, params))
    top = len(plan)
    inner = [(level, node) for level, nodes in enumerate(plan[:-1], start=1) for node in nodes]
    if inner:
        span = count * width - 1 if domain.integer else count * width
        params.update(top=top, span=span, levels=[lv for lv, _ in inner], firsts=[n.first for _, n in inner],
                      lasts=[n.last for _, n in inner])
        domain.site.engine.run("hierarchy/cbgh.sql.j2", params, target=domain.nodes, dom=domain.dom,
                               integer=domain.integer)
    return Levels(top=top, inner=bool(inner), bounds=True)
