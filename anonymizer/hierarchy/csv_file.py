"""Hierarchies from ARX-format CSV files: ``value;level1;level2;...`` per line, no header.

The file's last column may already be one node (ARX files end in ``*``); otherwise the top
``*`` is added above it. A categorical column is coded in the order of its paths (top level
first), which makes every node a contiguous code range when the file is a tree; a numeric
column keeps numeric order. Distortion: the level (paper 001, Definition 9).
"""

from __future__ import annotations

from pathlib import Path

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.hierarchy.coverage import check_covered
from anonymizer.hierarchy.site import BY_VALUE, Domain, Levels, Order, Site


#: the files the current run has read: (its work schema, path, delimiter) -> (leaves table, levels)
_READ: dict[tuple[str, str, str], tuple[str, int]] = {}


def load_leaves(engine: Engine, key: str, path: str | Path, delimiter: str) -> tuple[str, int]:
    """Read the file (a local path, or a URI the engine reads) into ``leaves<key>(value,
    h1..hH)``; return the table and H. A file the run has read already is not read again: its
    table is returned (every step of the run sees the same lines, and a DP run reads each
    file three times: to leave out the rows it does not cover, to code, to score)."""
    seen = (engine.open_work(), str(path), delimiter)
    if seen not in _READ:
        if any(run != seen[0] for run, *_ in _READ):   # another run's (work schemas are unique): not kept
            _READ.clear()
        _READ[seen] = _load_leaves(engine, key, path, delimiter)
    return _READ[seen]


def _load_leaves(engine: Engine, key: str, path: str | Path, delimiter: str) -> tuple[str, int]:
    raw, leaves = engine.work(f"hraw{key}"), engine.work(f"leaves{key}")
    engine.load_csv(path, delimiter, raw)
    ncols = len(engine.columns(raw))
    if ncols < 2:
        raise SpecError(f"hierarchy {path}", "needs at least two columns (value;level1;...)")
    short, value = engine.one("hierarchy/csv_ragged.sql.j2", raw=raw, levels=ncols - 1)
    if short:
        raise SpecError(f"hierarchy {path}", f"has {short} line(s) with an empty level or fewer fields than its longest "
                                             f"line's {ncols}, e.g. the line of {value!r}: give every value the same "
                                             f"number of levels, none empty (value{delimiter}level1{delimiter}...)")
    twice, value, a, b = engine.one("hierarchy/csv_conflicts.sql.j2", raw=raw, levels=ncols - 1)
    if twice:
        raise SpecError(f"hierarchy {path}", f"lists {twice} value(s) under two different parents, e.g. {value!r} as "
                                             f"{a!r} and as {b!r}: a hierarchy is a tree, so give each value one line "
                                             "(or one path)")
    engine.run("hierarchy/csv_leaves.sql.j2", target=leaves, raw=raw, levels=ncols - 1)
    return leaves, ncols - 1


def order(site: Site) -> Order:
    """Load the file, check it names every value, and order by its paths (numeric: by value)."""
    h = site.column.hierarchy
    leaves, height = load_leaves(site.engine, site.key, h.location, h.delimiter)
    if not site.covered:   # a DP release's source is already the rows its files cover (dp/covered.py)
        check_covered(site.engine, site.values, site.column.name, leaves, site.where)
    if site.column.type == "numeric":
        return Order(BY_VALUE.order_by, leaves)
    return Order(", ".join([f"lv.h{j}" for j in range(height, 0, -1)] + ["vals.value"]), leaves)


def levels(domain: Domain) -> Levels:
    """The file's columns as levels 1..H, and ``*`` above unless level H is one node; a
    numeric (or date) column's nodes are bounded by the least and greatest leaf the file
    lists under them."""
    engine, leaves = domain.site.engine, domain.leaves
    height = len(engine.columns(leaves)) - 1
    numeric = domain.site.column.type == "numeric"
    engine.run("hierarchy/csv_levels.sql.j2", target=domain.nodes, dom=domain.dom, leaves=leaves, levels=height,
               value_type=domain.site.value_type if numeric else None)
    add_top = engine.execute(f"SELECT count(DISTINCT h{height}) > 1 FROM {leaves}").fetchone()[0]
    return Levels(top=height + 1 if add_top else height, add_top=add_top, bounds=numeric)
