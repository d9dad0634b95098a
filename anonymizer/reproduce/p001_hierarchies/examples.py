"""Paper 001's worked examples beside ours (``anonymizer reproduce p001 --table 4`` or
``--figure 2`` / ``--figure 3``), all on Adult's hours-per-week with the root [1, 100].

- Table 4: height, distortion and nodes at each level of IOTF, CGH, DBGH and CBGH
  (:mod:`.figures` builds them; Figures 5 and 6 plot the same figures).
- Figure 2: CGH's levels as section III.A lists them ("[1 to 50] and [51 to 100] ... [1 to
  25], [26 to 50], [51 to 75], and [76 to 100]").
- Figure 3: DBGH's levels i-iv as section III.B lists them.

Figure 4 (CBGH) is an image our copy of the paper does not hold, and its text names no
interval; ``tests/hierarchy/test_paper_table4.py`` pins CBGH's levels instead.
"""

from __future__ import annotations

from anonymizer.hierarchy import level_summary
from anonymizer.reproduce.p001_hierarchies.figures import NAMES, ROOT, TABLE4, built
from anonymizer.reproduce.worked import Side

MOST_LABELS = 100
WHOLE = f"[{ROOT[0]}, {ROOT[1]}]"   # the root '*' is the range


def _decimals(text: str) -> int:
    return max(len(part.split(".")[1]) if "." in part else 0 for part in text.split(", "))


def _number(x: float, decimals: int) -> str:
    """``x`` rounded to ``decimals``, without trailing zeros (as Table 4 prints 0.5, 1, 2.5)."""
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def distortion_cell(low: float, high: float, printed: str) -> str:
    """A level's node distortions as Table 4 prints them: one figure, or the least and the
    greatest where they differ ("0.96, 1.97"), rounded to the printed decimals (at least 2).

    Example:
        >>> distortion_cell(5 * 19 / 99, 5 * 39 / 99, "0.96, 1.97"), distortion_cell(0.5, 0.5, "0.5")
        ('0.96, 1.97', '0.5')
    """
    decimals = max(2, _decimals(printed))
    low_text, high_text = _number(low, decimals), _number(high, decimals)
    return low_text if low_text == high_text else f"{low_text}, {high_text}"


def _levels(con) -> dict[str, list]:
    return built(con, lambda engine, coded: level_summary(engine, coded.hier, MOST_LABELS)[1:])


def table4(con) -> list[Side]:
    """Table 4 beside ours: every builder on hours-per-week, root [1, 100], intervals at
    least 10 wide, IOTF with 24, 16, 4 nodes."""
    from anonymizer.demo import load_adult
    load_adult(con)
    ours = _levels(con)
    columns = list(TABLE4)
    paper_rows = [("Maximum height", "", *(TABLE4[b][0] for b in columns))]
    our_rows = [("Maximum height", "", *(len(ours[b]) for b in columns))]
    for j in range(1, 6):
        paper_rows.append(("Distortion", f"Level {j}", *(TABLE4[b][1][j - 1] if j <= TABLE4[b][0] else "NA"
                                                        for b in columns)))
        our_rows.append(("Distortion", f"Level {j}", *(
            distortion_cell(ours[b][j - 1].min_distortion, ours[b][j - 1].max_distortion,
                            TABLE4[b][1][min(j, TABLE4[b][0]) - 1]) if j <= len(ours[b]) else "NA" for b in columns)))
    for j in range(1, 6):
        paper_rows.append(("Nodes", f"Level {j}", *(TABLE4[b][2][j - 1] if j <= TABLE4[b][0] else "NA"
                                                   for b in columns)))
        our_rows.append(("Nodes", f"Level {j}", *(ours[b][j - 1].nodes if j <= len(ours[b]) else "NA"
                                                 for b in columns)))
    note = ("Heights and nodes: all ours, IOTF's by its setting (Table 4's 24, 16, 4). CGH and CBGH distortions "
            "are the paper's. DBGH: ours follow the paper's 'proportions formula' H (hi - lo) / (MaxValue - "
            "MinValue), 0.45, 0.96, 1.21, 2.47; the paper's 0.1, 0.125, 0.625, 2.5 follow no single formula "
            "(anonymizer/hierarchy/dbgh.py). IOTF: Table 4 is all paper 001 says of it; ours clusters the values "
            "(anonymizer/hierarchy/iotf.py), so its nodes differ in width (hours 40 alone: distortion 0); its "
            "records' mean distortion is 0.034, 0.080, 0.618, 4 (reproduce p001, Figure 6), and the paper's 0.25 "
            "and 1 are what equal-width nodes give, its 0.041 is 1/24 (4/24 = 0.167 for equal widths).")
    return [Side("Table 4: IOTF against the proposed hierarchies, hours-per-week on [1, 100]",
                 ["figure", "level", *(NAMES[b] for b in columns)], paper_rows, our_rows, note)]


def _listed(con, builder: str, levels: list[int]) -> list[tuple]:
    from anonymizer.demo import load_adult
    load_adult(con)
    ours = _levels(con)[builder]
    return [(j, ", ".join(ours[j - 1].examples).replace("*", WHOLE)) for j in levels]


def figure2(con) -> list[Side]:
    """CGH's top levels as section III.A splits [1, 100]: halves, then quarters."""
    paper = [(4, WHOLE), (3, "[1, 50], [51, 100]"), (2, "[1, 25], [26, 50], [51, 75], [76, 100]")]
    note = ("Our root is labelled '*', the range [1, 100]. The text stops at the quarters ('this process "
            "continued until we found the level with smallest desired intervals'); our level 1 has the eighths "
            "of the 100 values, [1, 13], [14, 25], [26, 38], ... (Table 4: 8 nodes).")
    return [Side("Figure 2: CGH on hours-per-week, the levels section III.A lists", ["level", "intervals"],
                 paper, _listed(con, "cgh", [4, 3, 2]), note)]


def figure3(con) -> list[Side]:
    """DBGH's levels i-iv as section III.B lists them: MaxValue 100's divisors 50, 25, 20, 10."""
    paper = [(4, "[1, 50], [51, 100]"), (3, "[1, 25], [26, 50], [51, 75], [76, 100]"),
             (2, "[1, 20], [21, 40], [41, 60], [61, 80], [81, 100]"),
             (1, ", ".join(f"[{lo}, {lo + 9}]" for lo in range(1, 100, 10)))]
    note = ("Level 1 is the text's '[1 to 10, 11 to 20, ....., 81 to 90, and 91 to 100]' written out; "
            "Adult's largest hours-per-week is 99, inside [91, 100].")
    return [Side("Figure 3: DBGH on hours-per-week, the levels i-iv section III.B lists", ["level", "intervals"],
                 paper, _listed(con, "dbgh", [4, 3, 2, 1]), note)]


EXAMPLES = {("table", "4"): ("IOTF against CGH, DBGH and CBGH on hours-per-week (Table 4, Figs. 5-6)", table4),
            ("figure", "2"): ("CGH's levels of hours-per-week (sec. III.A)", figure2),
            ("figure", "3"): ("DBGH's levels of hours-per-week (sec. III.B)", figure3)}
