"""On-the-fly hierarchies (IOTF), the baseline of paper 001 (sec. II.H-I, Table 4, Figs. 5-6).

Paper 001 compares its builders with "the existing state-of-the-art IOTF" (Campan, Cooper
and Truta [14], improving the on-the-fly hierarchies of Campan and Cooper [4]): hierarchies
for numerical attributes generated automatically from the data (Table 2: "automatically
generates generalization hierarchies"), during anonymization rather than predefined. Paper
001 gives no algorithm for it, only its Table 4 column on hours-per-week: height 4, and
24, 16, 4 and 1 nodes at levels 1 to 4.

Our IOTF is therefore a reconstruction, documented as such: the on-the-fly hierarchy as a
bottom-up agglomerative clustering of the attribute's distinct values (the construction of
[4], whose clusters follow the data's closeness), cut at a fixed number of nodes per level
(``nodes``, default Table 4's 24, 16, 4; a level needs fewer nodes than the level below, so
counts at or above the number of values are dropped). Each step merges the two adjacent
clusters whose union adds the least information loss, rows times interval length:
``(n_a + n_b)(hi_b - lo_a) - n_a (hi_a - lo_a) - n_b (hi_b - lo_b)`` (ties: the leftmost pair).
A node's label is the interval of the values it holds, ``[lo, hi]``; the levels nest.

Distortion: the proportions formula of the other builders, H (hi - lo) / (root_hi - root_lo),
the root ``range`` (default the data's min and max). The paper's IOTF distortions 0.25 and 1
at levels 2 and 3 are what this formula gives equal-width nodes (4 x 100/16/100, 4 x 100/4/100);
its 0.041 at level 1 is not (4/24 = 0.167; 0.041 is 1/24).

The counts come from one SQL aggregate (rows per distinct value); the merges run over at most
:data:`MOST_VALUES` values in Python with a heap; the mapping is built in SQL (``iotf.sql.j2``).
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

from anonymizer.engine.names import ident
from anonymizer.errors import SpecError
from anonymizer.hierarchy.numeric import root_range
from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric order
MOST_VALUES = 100_000


class Cluster(NamedTuple):
    """Values coded ``first..last`` (numbers ``lo..hi``) holding ``n`` rows."""

    first: int
    last: int
    lo: float
    hi: float
    n: int


def merge_cost(a: Cluster, b: Cluster) -> float:
    """Information loss (rows x length) the union of adjacent ``a`` and ``b`` adds.

    Example:
        >>> merge_cost(Cluster(0, 0, 1, 1, 5), Cluster(1, 1, 3, 3, 2))   # 7 rows now 2 wide
        14
    """
    return (a.n + b.n) * (b.hi - a.lo) - a.n * (a.hi - a.lo) - b.n * (b.hi - b.lo)


def cuts(values: list[tuple[float, int]], nodes: tuple[int, ...]) -> list[list[Cluster]]:
    """The clusters when their number first reaches each count of ``nodes`` (decreasing),
    merging the cheapest adjacent pair first, from ``values`` ((number, rows), in order).

    Example:
        >>> [[(c.lo, c.hi) for c in level] for level in cuts([(1, 9), (2, 1), (3, 1), (9, 9)], (2,))]
        [[(1, 3), (9, 9)]]
    """
    alive = {i: Cluster(i, i, v, v, n) for i, (v, n) in enumerate(values)}  # by first code
    nxt = {i: i + 1 for i in range(len(values) - 1)}
    prv = {i + 1: i for i in range(len(values) - 1)}
    version = dict.fromkeys(alive, 0)
    heap = [(merge_cost(alive[i], alive[j]), i, j, 0, 0) for i, j in nxt.items()]
    heapq.heapify(heap)

    def push(i: int, j: int) -> None:
        heapq.heappush(heap, (merge_cost(alive[i], alive[j]), i, j, version[i], version[j]))

    out = []
    for target in nodes:
        while len(alive) > target:
            _, i, j, vi, vj = heapq.heappop(heap)
            if version.get(i) != vi or version.get(j) != vj:
                continue  # stale: one side has changed since
            a, b = alive[i], alive.pop(j)
            alive[i], version[i] = Cluster(a.first, b.last, a.lo, b.hi, a.n + b.n), vi + 1
            del version[j], prv[j]
            if j in nxt:
                nxt[i] = nxt.pop(j)
                prv[nxt[i]] = i
                push(i, nxt[i])
            else:
                del nxt[i]
            if i in prv:
                push(prv[i], i)
        out.append([alive[i] for i in sorted(alive)])
    return out


def levels(domain: Domain) -> Levels:
    """Rows per value (SQL), the clusters at each count of ``nodes``, then the mapping in SQL."""
    h, site = domain.hierarchy, domain.site
    if domain.m > MOST_VALUES:
        raise SpecError(f"{site.where}.iotf", f"clusters at most {MOST_VALUES:,} distinct values, the column has "
                                              f"{domain.m:,}: generalize it first, or take cbgh")
    low, high = root_range(domain)
    counts = site.engine.rows("hierarchy/iotf_counts.sql.j2", source=site.source, dom=domain.dom,
                              column=ident(site.column.name))
    plan = cuts([(num, n) for num, n in counts], tuple(c for c in h.nodes if c < domain.m))
    inner = [(level, c) for level, clusters in enumerate(plan, start=1) for c in clusters]
    top = len(plan) + 1
    if inner:
        domain.site.engine.run("hierarchy/iotf.sql.j2",
                               {"levels": [lv for lv, _ in inner], "firsts": [c.first for _, c in inner],
                                "lasts": [c.last for _, c in inner], "top": top, "span": high - low},
                               target=domain.nodes, dom=domain.dom, integer=domain.integer)
    return Levels(top=top, inner=bool(inner), bounds=True)
