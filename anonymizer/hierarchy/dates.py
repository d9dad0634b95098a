"""Truncation of dates through increasing units: ``{dates: [month, year, decade]}``.

Units, finest first: day (2020-03-14), month (2020-03), quarter (2020-Q1), year (2020),
decade (2020s), century (2000-2099); the top is ``*``. The column (DATE or TIMESTAMP) is
categorical, coded in date order, so every node is a contiguous code range and the levels
nest. A node's bounds (the published ``<column>_low``, ``<column>_high`` of a class labelled
by it) are its unit's first and last day, never a date the data holds. Distortion: the level
(paper 001, Definition 9).
"""

from __future__ import annotations

from anonymizer.hierarchy.site import Domain, Levels, by_value

order = by_value  # numeric or date order


def levels(domain: Domain) -> Levels:
    """One level per unit; a node's bounds are its unit's first and last day (or microsecond)."""
    units, engine = list(domain.hierarchy.units), domain.site.engine
    date = domain.site.value_type.upper() == "DATE"
    engine.run("hierarchy/dates.sql.j2", {"units": units}, target=domain.nodes, dom=domain.dom, date=date)
    return Levels(top=len(units) + 1, bounds=True)
