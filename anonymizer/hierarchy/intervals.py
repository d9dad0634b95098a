"""Fixed-width numeric intervals, one width per level: ``{intervals: [5, 10, 20]}``.

Intervals are anchored at 0 (``[0, 4]``, ``[5, 9]``, ... on an integer column; ``[0.0, 5.0)``
on a real one). Widths that do not divide each other give levels that do not nest (computed,
see ``QI.nested``). Distortion: the level (paper 001, Definition 9).
"""

from __future__ import annotations

from anonymizer.errors import SpecError
from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric or date order

#: the widest interval whose bounds an integer column states exactly (a DOUBLE's integers)
WIDEST = 2.0 ** 53


def levels(domain: Domain) -> Levels:
    """One level per width; a width past :data:`WIDEST` on an integer column is the spec's error."""
    widths = list(domain.hierarchy.widths)
    for i, width in enumerate(widths):   # the spec refused widths that are not finite
        if domain.integer and width > WIDEST:
            raise SpecError(f"columns.{domain.site.column.name}.hierarchy.intervals[{i}]",
                            "is wider than an integer column's interval bounds can state (2^53 at most); a width "
                            "past the column's range already puts every value in one interval", width)
    domain.site.engine.run("hierarchy/intervals.sql.j2", {"widths": widths}, target=domain.nodes, dom=domain.dom,
                           integer=domain.integer)
    return Levels(top=len(widths) + 1, bounds=True)
