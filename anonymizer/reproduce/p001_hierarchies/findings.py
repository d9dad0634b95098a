"""Paper 001's claims about Figures 5-7 and its conclusion, checked against our rows.

Figures 5 and 6 (:mod:`.figures`, hours-per-week): section IV.A's and IV.B's observations on
the nodes and the distortion at each level. The lattices (:mod:`.experiment`): section
IV.C's DCP and the conclusion's "CBGH appeared as having minimum distortion ratio, as well as
Discernibility Penalty ... CBGH is best amongst all the newly proposed and existing
techniques", IOTF being the existing one. A level's distortion is the records' mean there.
Each finding's verdict follows from its printed checks (:func:`anonymizer.reproduce.findings.finding`):
a builder's figure minus the least (or the greatest) of the others', against 0.
"""

from __future__ import annotations

from anonymizer.reproduce.findings import Check, check, finding, rounded
from anonymizer.reproduce.p001_hierarchies.figures import NAMES, TABLE4

PROPOSED = ("cgh", "dbgh", "cbgh")
TOP = 5                        # 6a: the level the paper's tallest hierarchies (DBGH, CBGH) reach


def _at(levels: dict[str, list[dict]], j: int, key: str) -> dict[str, float]:
    """Each builder's ``key`` at level ``j`` (1-based), for the builders that have it."""
    return {b: rows[j - 1][key] for b, rows in levels.items() if j <= len(rows)}


def _least(table: dict[str, dict[str, float]], who: str, others, rule: str, what: str) -> dict[str, Check]:
    """Per row of ``table`` holding ``who`` and another of ``others``: ``who``'s figure minus
    the least of those others' against ``rule``."""
    return {f"{key}: {NAMES[who]} {what} - the least of the others'":
            check(row[who] - min(row[b] for b in others if b in row and b != who), rule)
            for key, row in table.items() if who in row and any(b in row and b != who for b in others)}


def figure_findings(levels: dict[str, list[dict]]) -> list[dict]:
    """Sections IV.A (Fig. 5, nodes) and IV.B (Fig. 6, distortion) on ``levels`` (:func:`.figures.level_figures`)."""
    height = max(len(rows) for rows in levels.values())
    nodes = {f"level {j}": _at(levels, j, "nodes") for j in range(1, height + 1)}
    mean = {f"level {j}": {b: rounded(v) for b, v in _at(levels, j, "mean").items()} for j in range(1, height + 1)}
    paper_nodes = {f"level {j}": {b: TABLE4[b][2][j - 1] for b in TABLE4 if j <= TABLE4[b][0]} for j in (2, 3)}
    totals = {b: sum(r["nodes"] for r in rows) for b, rows in levels.items()}
    fewer = sorted(v for b, v in totals.items() if b != "cbgh")
    tallest = {b: rows[-1]["mean"] for b, rows in levels.items()}
    most_iotf = {f"level {j}: IOTF nodes - the most of the others'":
                 check(nodes[f"level {j}"]["iotf"] - max(v for b, v in nodes[f"level {j}"].items() if b != "iotf"),
                       ">= 0") for j in (2, 3) if j <= height}
    top = {}
    for b in ("cbgh", "dbgh"):
        top[f"{NAMES[b]}: top level"] = check(len(levels[b]), f"== {TOP}")
        top[f"{NAMES[b]}: top-level distortion - the greatest of the others'"] = check(
            tallest[b] - max(v for o, v in tallest.items() if o != b), ">= 0")
    iotf_levels = {key: row for key, row in mean.items() if "iotf" in row}
    return [
        finding("5a", "IOTF's levels 2 and 3 have the most nodes (sec. IV.A)", most_iotf,
                "at levels 2 and 3: IOTF's nodes minus the most of the others' at least 0; IOTF's counts are its "
                "setting (Table 4's 24, 16, 4), the others' are built",
                {key: nodes[key] for key in ("level 2", "level 3") if key in nodes} | {"paper": paper_nodes}),
        finding("5b", "CGH has the fewest nodes at each level (sec. IV.A, V)",
                _least(nodes, "cgh", NAMES, "<= 0", "nodes"),
                "at each of CGH's levels: CGH's nodes minus the least of the others' at most 0",
                {key: row for key, row in nodes.items() if "cgh" in row}),
        finding("5c", "CBGH is second fewest by nodes (sec. IV.A)",
                {"CBGH nodes - the fewest of the others'": check(totals["cbgh"] - fewer[0], "> 0"),
                 "CBGH nodes - the second fewest of the others'": check(totals["cbgh"] - fewer[1], "<= 0")},
                "nodes over all levels: CBGH's above the fewest of the others' and at most the second fewest",
                {"nodes over all levels": totals}),
        finding("6a", f"CBGH and DBGH have the highest distortion, at level {TOP} (sec. IV.B)", top,
                f"CBGH and DBGH: the top level is {TOP}, and its distortion minus the greatest of the other "
                "builders' top-level distortion at least 0; a root's distortion is the tree's height, so the "
                "tallest trees hold it by construction",
                {"top level's distortion": {b: rounded(v) for b, v in tallest.items()}}),
        finding("6b", "CBGH has the least distortion at each level (sec. V: 'minimum distortion ratio')",
                _least(mean, "cbgh", NAMES, "<= 0", "distortion"),
                "at each of CBGH's levels: CBGH's mean distortion minus the least of the others' at most 0; "
                "Table 4 itself gives IOTF 0.041 and DBGH 0.1 against CBGH's 0.45 at level 1",
                mean | {"paper (Table 4)": {NAMES[b]: TABLE4[b][1] for b in TABLE4}}),
        finding("6c", "The proposed hierarchies distort less than IOTF at each level (sec. IV)",
                {f"{key}: least of CGH, DBGH, CBGH - IOTF":
                 check(min(row[b] for b in PROPOSED if b in row) - row["iotf"], "< 0")
                 for key, row in iotf_levels.items()},
                "at each of IOTF's levels: the least mean distortion of CGH, DBGH, CBGH minus IOTF's below 0; "
                "IOTF puts the commonest values in nodes of their own (hours 40: [40, 40], distortion 0)",
                iotf_levels),
    ]


def lattice_findings(compared: dict) -> list[dict]:
    """Section IV.C and the conclusion on the lattices (:func:`.experiment.comparison`):
    per k, the least distortion ratio and DCP of the nodes reaching it, at the k every
    lattice reaches."""
    ks = [k for k in next(iter(compared.values()))["best"]
          if all(c["best"][k][key] for c in compared.values() for key in ("dcp", "distortion_ratio"))]

    def best(key: str, builders) -> dict[str, dict[str, float]]:
        return {f"k={k}": {b: compared[b]["best"][k][key]["value"] for b in builders if b in compared} for k in ks}

    dcp_proposed, dcp_all = best("dcp", PROPOSED), best("dcp", compared)
    ratio_all = {k: {b: rounded(v) for b, v in row.items()} for k, row in best("distortion_ratio", compared).items()}
    beats = {f"{k}: best proposed {what} - IOTF's": check(min(v for b, v in row.items() if b != "iotf") - row["iotf"],
                                                          "< 0")
             for what, table in (("distortion ratio", ratio_all), ("DCP", dcp_all)) for k, row in table.items()}
    return [
        finding("7", "CBGH gives the least DCP of the proposed hierarchies (sec. IV.C, Fig. 7)",
                _least(dcp_proposed, "cbgh", PROPOSED, "<= 0", "DCP"),
                "per k: CBGH's least DCP reaching k minus the least of CGH's and DBGH's at most 0", dcp_proposed),
        finding("V-a", "CBGH has the least distortion ratio of all, IOTF included (sec. V)",
                _least(ratio_all, "cbgh", NAMES, "<= 0", "distortion ratio"),
                "per k: CBGH's least distortion ratio reaching k minus the least of every other lattice's at most 0",
                ratio_all),
        finding("V-b", "CBGH has the least DCP of all, IOTF included (sec. V)",
                _least(dcp_all, "cbgh", NAMES, "<= 0", "DCP"),
                "per k: CBGH's least DCP reaching k minus the least of every other lattice's at most 0", dcp_all),
        finding("IV", "The proposed hierarchies outperform IOTF (sec. IV, V)", beats,
                "per k, for distortion ratio and for DCP: the best proposed lattice's least figure reaching k minus "
                "IOTF's below 0", {"distortion ratio": ratio_all, "DCP": dcp_all}),
    ]
