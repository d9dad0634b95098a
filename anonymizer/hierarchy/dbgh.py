"""Divisor-based generalization hierarchies (DBGH), paper 001 Algorithm 1 (sec. III.B, Fig. 3).

Algorithm 1: MaxValue (the root's ``high``: ``range``, default the data's maximum) is
increased by one if it is prime (line 1); each divisor d of MaxValue (line 3) gives a level
of intervals [1 + t d, (t + 1) d] (CreateLevel, line 2; intervals without values are
skipped), levels in increasing order of d (line 4: each new level goes on top), the divisor
MaxValue itself being the root ``*``. Divisors below ``min_width`` give no level ("our
desired minimum interval was 10, so we ignored those levels"). On hours-per-week with
``range: [1, 100]`` and ``min_width: 10``: divisors 10, 20, 25, 50, 100, so levels of 10,
5, 4, 2 and 1 nodes, height 5 (Table 4).

The levels do not nest: [1, 20] of width 20 straddles [1, 25] and [26, 50] of width 25.
``QI.nested`` is then false; full-domain generalization is unaffected (one level per QI),
but a lattice search cannot assume a value's node at level j+1 contains its node at level j.

MinValue (the root's ``low``: ``range``, default the data's minimum) bounds the intervals
from below: CreateLevel counts from 1 and skips the intervals ending below MinValue, and
the one holding MinValue is labelled from MinValue (age on Table 3's [17, 90], width 18:
[17, 18], not [1, 18]), so no label claims values the root excludes.

Distortion (sec. III.B): "distortion of the root node was, once again, equal to the height
of the tree. However, the calculation of lower levels-distortions was based on interval
length of each level, using the proportions formula": H (hi - lo) / (MaxValue - MinValue),
the root being [MinValue, MaxValue]. For Table 4's levels (widths 10, 20, 25, 50, 100 on [1, 100], H = 5)
this gives 0.45, 0.96, 1.21, 2.47 and 5. Of the paper's DBGH distortions, 0.1, 0.125, 0.625,
2.5 and 5, only the root's 5 is reproduced: the others follow no single formula (2.5 is the
root's half, 0.625 a quarter of that, 0.125 a fifth of that, 0.1 four fifths of that; no
reading of "proportions" gives 0.1 < 0.125 for widths 10 and 20 together with 0.625 for 25).
The same formula reproduces every CBGH distortion of Table 4 (:mod:`.cbgh`).

Real columns use [t d, (t + 1) d) from 0 to MaxValue = ceil(high), the last one closed,
the first from MinValue.
"""

from __future__ import annotations

import math

from anonymizer.errors import SpecError
from anonymizer.hierarchy.numeric import root_range
from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric order
LARGEST = 10 ** 12  # divisors are found by trial division up to the square root


def is_prime(n: int) -> bool:
    """Whether ``n`` is prime (Algorithm 1, line 1).

    Example:
        >>> [n for n in range(20) if is_prime(n)]
        [2, 3, 5, 7, 11, 13, 17, 19]
    """
    return n >= 2 and all(n % p for p in range(2, math.isqrt(n) + 1))


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` in increasing order (Algorithm 1, line 3: DivList).

    Example:
        >>> divisors(100)
        [1, 2, 4, 5, 10, 20, 25, 50, 100]
    """
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def levels(domain: Domain) -> Levels:
    """One level per divisor of MaxValue of at least ``min_width``, the last one the root."""
    h = domain.hierarchy
    low, high = root_range(domain)
    top_value = math.ceil(high)
    if not 1 <= top_value <= LARGEST:
        raise SpecError(f"{domain.site.where}.dbgh", f"needs a maximum between 1 and {LARGEST:g} "
                                                     f"(Algorithm 1 divides it), not {high:g}")
    if is_prime(top_value):
        top_value += 1
    # a root of no length (one value, no range) has nothing to divide: the values, then '*'
    widths = [d for d in divisors(top_value) if d >= h.min_width and d < top_value] if top_value > low else []
    top = len(widths) + 1
    if widths:
        domain.site.engine.run("hierarchy/dbgh.sql.j2", {"divisors": widths, "low": low, "max": top_value,
                                                         "top": top, "span": top_value - low},
                               target=domain.nodes, dom=domain.dom, integer=domain.integer)
    return Levels(top=top, inner=bool(widths), bounds=True)
