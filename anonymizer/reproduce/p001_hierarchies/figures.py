"""Paper 001's Table 4 and Figures 5 and 6: IOTF and the three builders on hours-per-week.

Table 4 compares "IOTF generalization & distortion ratio" with CGH, DBGH and CBGH: per
level of each hierarchy its distortion and its number of nodes; Figure 5 plots the nodes
at each level, Figure 6 the distortion ratio at each level ("Figure 6 and Table 4 show
distortion ratios at each level"). The paper states only the hours-per-week setting (root
[1 to 100], "our desired minimum interval was 10"), and Table 4's heights and node counts
are those of that setting, so the figures are built on Adult's hours-per-week:
:data:`SETTINGS`. IOTF (``anonymizer/hierarchy/iotf.py``) takes Table 4's 24, 16, 4 nodes.

A level's figure for Figure 6 is the records' mean distortion at that level (Definition 9's
distortion of the column generalized to the level over the rows); Table 4 prints the node
distortions (one, or two where they differ: CBGH's "0.96, 1.97"), shown as min and max.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import duckdb

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.hierarchy import Coded, build_hierarchy, column_type, parse_hierarchy
from anonymizer.spec.types import Column

COLUMN = "hours-per-week"
ROOT = [1, 100]
SETTINGS = {"iotf": {"iotf": {"nodes": [24, 16, 4], "range": ROOT}},
            "cgh": {"cgh": {"min_width": 10, "range": ROOT}},
            "dbgh": {"dbgh": {"min_width": 10, "range": ROOT}},
            "cbgh": {"cbgh": {"min_width": 10, "range": ROOT}}}
NAMES = {"iotf": "IOTF", "cgh": "CGH", "dbgh": "DBGH", "cbgh": "CBGH"}

#: Table 4 as printed: per builder the height, then per level 1..H the distortion (text, as
#: printed) and the number of nodes.
TABLE4 = {"iotf": (4, ["0.041", "0.25", "1", "4"], [24, 16, 4, 1]),
          "cgh": (4, ["0.5", "1", "2", "4"], [8, 4, 2, 1]),
          "dbgh": (5, ["0.1", "0.125", "0.625", "2.5", "5"], [10, 5, 4, 2, 1]),
          "cbgh": (5, ["0.45", "0.96", "0.96, 1.97", "1.97, 2.98", "5"], [10, 5, 3, 2, 1])}


def built(con: duckdb.DuckDBPyConnection, read: Callable[[Engine, Coded], Any], table: str = "adult") -> dict[str, Any]:
    """Per builder of :data:`SETTINGS`: build its hours-per-week hierarchy on ``table`` and
    return what ``read(engine, coded)`` reads of it (the work tables are then dropped)."""
    engine = Engine(con)
    source = ident(table)
    db_type = engine.columns(source)[COLUMN]
    out = {}
    with engine.workspace():
        for key, (builder, value) in enumerate(SETTINGS.items()):
            h = parse_hierarchy(value, f"columns.{COLUMN}.hierarchy", Path("."))
            column = Column(COLUMN, "quasi", column_type(h, f"columns.{COLUMN}.hierarchy", db_type, None), h)
            out[builder] = read(engine, build_hierarchy(engine, source, column, str(key)))
    return out


def level_figures(con: duckdb.DuckDBPyConnection, table: str = "adult") -> dict[str, list[dict]]:
    """Per builder of :data:`SETTINGS`, its hours-per-week hierarchy level by level (levels
    1..H): nodes, least, greatest and records' mean distortion (one SQL aggregate each)."""
    def read(engine: Engine, coded: Coded) -> list[dict]:
        rows = engine.rows("hierarchy/level_means.sql.j2", source=ident(table), column=ident(COLUMN),
                           dom=coded.dom, hier=coded.hier)
        return [{"level": lv, "nodes": n, "min": lo, "max": hi, "mean": mean} for lv, n, lo, hi, mean in rows if lv > 0]

    return built(con, read, table)


def format_figures(levels: dict[str, list[dict]]) -> str:
    """Figures 5 and 6 as two tables, level by level (``-``: the hierarchy has no such level)."""
    height = max(len(v) for v in levels.values())
    head = f"{'level':>5} " + " ".join(f"{NAMES[b]:>19}" for b in levels)
    lines = [f"Figures 5 and 6 (Table 4): {COLUMN} on {ROOT}, min width 10; IOTF nodes 24, 16, 4",
             "", "Figure 5: nodes at each level", head]
    for j in range(height):
        lines.append(f"{j + 1:>5} " + " ".join(f"{v[j]['nodes'] if j < len(v) else '-':>19}"
                                                 for v in levels.values()))
    lines += ["", "Figure 6: distortion at each level, the records' mean (node min..max)", head]
    for j in range(height):
        cells = [f"{v[j]['mean']:.3f} ({v[j]['min']:.2f}..{v[j]['max']:.2f})" if j < len(v) else "-"
                 for v in levels.values()]
        lines.append(f"{j + 1:>5} " + " ".join(f"{c:>19}" for c in cells))
    return "\n".join(lines)
