"""Conventional generalization hierarchies (CGH), paper 001 sec. III.A (Fig. 2).

"We started from the highest generalized level and created lower level generalizations by
splitting each parent interval into two equivalent child intervals ... until we found the
level with smallest desired intervals": the root ``[low, high]`` (``range``, default the
data's min and max) is halved level by level while the halves stay at least ``min_width``
wide. On hours-per-week with root [1, 100] and ``min_width: 10`` the levels above the values
have 8, 4, 2 and 1 nodes (widths 12.5, 25, 50, 100): height 4, as in Table 4.

Distortion (sec. III.A, i and ii): the root's is the height H, every other node's half its
parent's, so level j's nodes have H / 2^(H-j): 0.5, 1, 2, 4 in Table 4.

Integer columns split the ``high - low + 1`` values ([1, 13], [14, 25], ...); real columns
split ``[low, high]`` into half-open intervals, the last one closed. The levels nest.
"""

from __future__ import annotations

from anonymizer.hierarchy.numeric import root_range
from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric order


def depth(span: float, min_width: float) -> int:
    """How many times ``span`` halves before a half is narrower than ``min_width``.

    Example:
        >>> depth(100, 10)   # 50, 25, 12.5 (6.25 is too narrow)
        3
        >>> depth(8, 10)
        0
    """
    splits = 0
    while span / 2 ** (splits + 1) >= min_width:
        splits += 1
    return splits


def levels(domain: Domain) -> Levels:
    """Levels 1..H-1 halve the root H-1-j times less than the finest (Fig. 2, bottom up)."""
    low, high = root_range(domain)
    span = high - low + 1 if domain.integer else high - low
    top = depth(span, domain.hierarchy.min_width) + 1
    if top > 1:
        domain.site.engine.run("hierarchy/cgh.sql.j2", {"low": low, "span": span, "top": top},
                               target=domain.nodes, dom=domain.dom, integer=domain.integer)
    return Levels(top=top, inner=top > 1, bounds=True)
