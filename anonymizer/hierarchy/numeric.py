"""The root interval of the paper's numeric builders (CGH, DBGH, CBGH; paper 001 sec. III).

The root is ``range: [low, high]`` when declared (it must hold every value of the column),
else the data's minimum and maximum. On an integer column its bounds are whole numbers
(a declared real bound is widened to the next whole number) and intervals include both ends.
"""

from __future__ import annotations

import math

from anonymizer.errors import SpecError
from anonymizer.hierarchy.site import Domain


def root_range(domain: Domain) -> tuple[float, float]:
    """``(low, high)`` of the root interval; a SpecError if the declared range misses values."""
    h = domain.hierarchy
    if h.range is None:
        return domain.num_min, domain.num_max
    low, high = h.range
    if domain.num_min < low or domain.num_max > high:
        raise SpecError(f"{domain.site.where}.{h.kind}.range",
                        f"does not hold the values of column {domain.site.column.name!r} "
                        f"({domain.num_min:g} to {domain.num_max:g})", list(h.range))
    return (math.floor(low), math.ceil(high)) if domain.integer else (low, high)
