"""Paper 001's claims about Figures 5-7 and its conclusion, checked against our rows.

Figures 5 and 6 (:mod:`.figures`, hours-per-week): section IV.A's and IV.B's observations on
the nodes and the distortion at each level. The lattices (:mod:`.experiment`): section
IV.C's DCP and the conclusion's "CBGH appeared as having minimum distortion ratio, as well as
Discernibility Penalty ... CBGH is best amongst all the newly proposed and existing
techniques", IOTF being the existing one. A level's distortion is the records' mean there.
"""

from __future__ import annotations

from anonymizer.reproduce.findings import finding, rounded, verdict
from anonymizer.reproduce.p001_hierarchies.figures import NAMES, TABLE4

PROPOSED = ("cgh", "dbgh", "cbgh")


def _at(levels: dict[str, list[dict]], j: int, key: str) -> dict[str, float]:
    """Each builder's ``key`` at level ``j`` (1-based), for the builders that have it."""
    return {b: rows[j - 1][key] for b, rows in levels.items() if j <= len(rows)}


def figure_findings(levels: dict[str, list[dict]]) -> list[dict]:
    """Sections IV.A (Fig. 5, nodes) and IV.B (Fig. 6, distortion) on ``levels`` (:func:`.figures.level_figures`)."""
    height = max(len(rows) for rows in levels.values())
    nodes = {j: _at(levels, j, "nodes") for j in range(1, height + 1)}
    mean = {j: {b: rounded(v) for b, v in _at(levels, j, "mean").items()} for j in range(1, height + 1)}
    paper_nodes = {f"level {j}": {b: TABLE4[b][2][j - 1] for b in TABLE4 if j <= TABLE4[b][0]} for j in (2, 3)}
    totals = {b: sum(r["nodes"] for r in rows) for b, rows in levels.items()}
    ranked = sorted(totals, key=totals.get)
    tallest = {b: rows[-1]["mean"] for b, rows in levels.items()}
    found = [
        finding("5a", "IOTF's levels 2 and 3 have the most nodes (sec. IV.A)",
                verdict([nodes[j]["iotf"] >= max(nodes[j].values()) for j in (2, 3)]),
                {f"level {j}": nodes[j] for j in (2, 3)} | {"paper": paper_nodes},
                "IOTF's nodes at every level of the others; IOTF's counts are its setting (Table 4's 24, 16, "
                "4), the others' are built"),
        finding("5b", "CGH has the fewest nodes at each level (sec. IV.A, V)",
                verdict([nodes[j]["cgh"] <= min(nodes[j].values()) for j in nodes if "cgh" in nodes[j]]),
                {f"level {j}": nodes[j] for j in nodes if "cgh" in nodes[j]},
                "CGH's nodes at most every other builder's, at each of CGH's levels"),
        finding("5c", "CBGH is second fewest by nodes (sec. IV.A)", verdict([ranked[1:2] == ["cbgh"]]),
                {"nodes over all levels": totals}, "the second smallest total of nodes over the levels is CBGH's"),
        finding("6a", "CBGH and DBGH have the highest distortion, at level 5 (sec. IV.B)",
                verdict([len(levels[b]) == height and tallest[b] >= max(tallest.values()) for b in ("cbgh", "dbgh")]),
                {"height": {b: len(rows) for b, rows in levels.items()},
                 "top level's distortion": {b: rounded(v) for b, v in tallest.items()}},
                "CBGH and DBGH reach the top level and its distortion is the largest; a root's distortion is "
                "the tree's height, so the tallest trees hold it by construction"),
        finding("6b", "CBGH has the least distortion at each level (sec. V: 'minimum distortion ratio')",
                verdict([mean[j]["cbgh"] <= min(mean[j].values()) for j in mean if "cbgh" in mean[j]]),
                {f"level {j}": mean[j] for j in mean} | {"paper (Table 4)": {NAMES[b]: TABLE4[b][1] for b in TABLE4}},
                "CBGH's mean distortion at most every builder's, at each level; Table 4 itself gives IOTF "
                "0.041 and DBGH 0.1 against CBGH's 0.45 at level 1"),
        finding("6c", "The proposed hierarchies distort less than IOTF at each level (sec. IV)",
                verdict([min(mean[j][b] for b in PROPOSED if b in mean[j]) < mean[j]["iotf"]
                         for j in mean if "iotf" in mean[j]]),
                {f"level {j}": mean[j] for j in mean if "iotf" in mean[j]},
                "the least of CGH, DBGH, CBGH below IOTF's mean distortion at each of IOTF's levels; IOTF puts "
                "the commonest values in nodes of their own (hours 40: [40, 40], distortion 0)"),
    ]
    return found


def lattice_findings(compared: dict) -> list[dict]:
    """Section IV.C and the conclusion on the lattices (:func:`.experiment.comparison`):
    per k, the least distortion ratio and DCP of the nodes reaching it."""
    ks = list(next(iter(compared.values()))["best"])

    def best(key: str, builders) -> dict:
        return {k: {b: (compared[b]["best"][k][key] or {}).get("value") for b in builders if b in compared}
                for k in ks}

    def least_is(table: dict, who: str) -> list[bool]:
        return [row[who] is not None and row[who] <= min(v for v in row.values() if v is not None)
                for row in table.values()]

    dcp_proposed, ratio_all, dcp_all = best("dcp", PROPOSED), best("distortion_ratio", compared), best("dcp", compared)
    ratio_all = {k: {b: None if v is None else rounded(v) for b, v in row.items()} for k, row in ratio_all.items()}
    beats = [min(v for b, v in row.items() if b != "iotf" and v is not None) < row["iotf"]
             for table in (ratio_all, dcp_all) for row in table.values()]
    return [
        finding("7", "CBGH gives the least DCP of the proposed hierarchies (sec. IV.C, Fig. 7)",
                verdict(least_is(dcp_proposed, "cbgh")), {f"k={k}": row for k, row in dcp_proposed.items()},
                "per k, CBGH's least DCP reaching k at most CGH's and DBGH's"),
        finding("V-a", "CBGH has the least distortion ratio of all, IOTF included (sec. V)",
                verdict(least_is(ratio_all, "cbgh")), {f"k={k}": row for k, row in ratio_all.items()},
                "per k, CBGH's least distortion ratio reaching k at most every other lattice's"),
        finding("V-b", "CBGH has the least DCP of all, IOTF included (sec. V)",
                verdict(least_is(dcp_all, "cbgh")), {f"k={k}": row for k, row in dcp_all.items()},
                "per k, CBGH's least DCP reaching k at most every other lattice's"),
        finding("IV", "The proposed hierarchies outperform IOTF (sec. IV, V)", verdict(beats),
                {"distortion ratio": {f"k={k}": row for k, row in ratio_all.items()},
                 "DCP": {f"k={k}": row for k, row in dcp_all.items()}},
                "per k and for each of distortion ratio and DCP, the best proposed lattice below IOTF's"),
    ]
