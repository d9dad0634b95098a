"""No hierarchy: a value, then ``*`` (the top, level 1).

Numeric columns are coded in numeric order; categorical ones in their declared ``order``
(spec field ``columns.<name>.order``, which must name every value), or alphabetically. Mondrian still splits them along
that order; full-domain generalization can only keep them or suppress them to ``*``.
"""

from __future__ import annotations

from anonymizer.hierarchy.ordered import declared_order
from anonymizer.hierarchy.site import BY_VALUE, Domain, Levels, Order, Site


def order(site: Site) -> Order:
    """The declared order (numbers keep numeric order), or the values' order."""
    column = site.column
    if not column.order:
        return BY_VALUE
    declared = declared_order(site, column.order, f"columns.{column.name}.order")
    return BY_VALUE if column.type == "numeric" else declared


def levels(domain: Domain) -> Levels:
    """Nothing between a value and the top ``*``."""
    return Levels(top=1, inner=False)
