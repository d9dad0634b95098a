"""Fixed-width numeric intervals, one width per level: ``{intervals: [5, 10, 20]}``.

Intervals are anchored at 0 (``[0, 4]``, ``[5, 9]``, ... on an integer column; ``[0.0, 5.0)``
on a real one). Widths that do not divide each other give levels that do not nest (computed,
see ``QI.nested``). Distortion: the level (paper 001, Definition 9).
"""

from __future__ import annotations

from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric or date order


def levels(domain: Domain) -> Levels:
    """One level per width."""
    widths = list(domain.hierarchy.widths)
    domain.site.engine.run("hierarchy/intervals.sql.j2", {"widths": widths}, target=domain.nodes, dom=domain.dom,
                           integer=domain.integer)
    return Levels(top=len(widths) + 1, bounds=True)
