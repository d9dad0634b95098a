"""Masking of code-like strings: level j replaces the last j characters by ``*``.

``{masking: true}`` masks up to the longest value less one character (21357, 2135*, 213**,
21***, 2****, then ``*``); ``{masking: 3}`` stops after three (21357, 2135*, 213**, 21***,
``*``). A value shorter than the level is all ``*`` (``**`` for a two-character value).
The column becomes categorical, coded in (length, value) order so that every node (same
length, same prefix) is a contiguous code range. Distortion: the level (paper 001,
Definition 9).
"""

from __future__ import annotations

from anonymizer.hierarchy.site import Domain, Levels, Order, Site


def order(site: Site) -> Order:
    """(length, value) of the value's text."""
    return Order("length(vals.value::VARCHAR), vals.value::VARCHAR")


def levels(domain: Domain) -> Levels:
    """The declared number of masked levels, or the longest value's length less one."""
    engine = domain.site.engine
    masked = domain.hierarchy.levels
    if masked is None:
        longest = engine.execute(f"SELECT max(length(value::VARCHAR)) FROM {domain.dom}").fetchone()[0]
        masked = max(longest - 1, 0)
    if masked:
        engine.run("hierarchy/masking.sql.j2", {"top": masked + 1}, target=domain.nodes, dom=domain.dom)
    return Levels(top=masked + 1, inner=masked > 0)
