"""Ordered grouping of categories: consecutive values of a declared order, grouped.

``{ordered: [Preschool, 1st-4th, 5th-6th, 7th-8th, ...], sizes: [2, 4]}``: level 1 groups
the values two by two in the declared order, ``[Preschool, 1st-4th]``, level 2 four by four,
``[Preschool, 7th-8th]``; the top is ``*`` (ARX's order-based builder). Sizes count values,
so a level nests in the next when its size divides the next one's (computed, see
``QI.nested``). The column is categorical; its codes follow the declared order, so every
group is a contiguous code range. Distortion: the level (paper 001, Definition 9).
"""

from __future__ import annotations

from anonymizer.hierarchy.coverage import check_covered
from anonymizer.hierarchy.site import Domain, Levels, Order, Site


def declared_order(site: Site, values: tuple[str, ...], field: str) -> Order:
    """Code the domain in the order of ``values``, which must name every value of the column."""
    leaves = site.work("order")
    site.engine.run("hierarchy/order_leaves.sql.j2", {"values": list(values)}, target=leaves)
    check_covered(site.engine, site.values, site.column.name, leaves, field)
    return Order("lv.pos", leaves)


def order(site: Site) -> Order:
    """The declared order."""
    return declared_order(site, site.column.hierarchy.values, f"{site.where}.ordered")


def levels(domain: Domain) -> Levels:
    """One level of groups per size."""
    h = domain.hierarchy
    domain.site.engine.run("hierarchy/ordered.sql.j2", {"values": list(h.values), "sizes": list(h.sizes)},
                           target=domain.nodes, dom=domain.dom, leaves=domain.leaves)
    return Levels(top=len(h.sizes) + 1)
