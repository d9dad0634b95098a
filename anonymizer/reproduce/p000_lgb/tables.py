"""Paper 000's experiment as printed tables: the l caps, Figs. 5 to 7 as k x l tables (the
algorithms side by side), Fig. 7 with each of its two contributors removed (:mod:`.fig7`),
Fig. 8 by density, and the seconds per phase."""

from __future__ import annotations

from typing import Sequence

from anonymizer.families.lgb import LGB_ALGORITHMS
from anonymizer.reproduce.p000_lgb.series import DENSITY_ALGORITHM, GRID_DENSITY, NAMES, SET_OBJECTIVE

MEASURES = (("c_dm", "C_DM = sum of |LEG|^2 (section 4.1, Fig. 5)", "{:,}"),
            ("ncp", "NCP(T), summed over the QI cells, our convention: an ungeneralized categorical value costs "
                    "0, a value set its values / |A| (section 4.1, Fig. 6)", "{:,.1f}"),
            ("ncp_paper", "NCP(T), paper 000's convention (Sec. 3.2.2, NCP_Acat): an ungeneralized categorical "
                          "value costs 1/|A|, a cell the leaves of its hierarchy node / |A| (flat hierarchies here: "
                          "two values or more cost 1) (Fig. 6)", "{:,.1f}"),
            ("query_error", "query error: mean relative error R_error (section 4.2, Fig. 7)", "{:.3f}"),
            ("query_error_median", "query error: median relative error", "{:.3f}"))
#: Fig. 7 with a contributor removed (:mod:`.fig7`): measure, label, the columns' algorithms
FIG7 = (("query_error_unrounded", "without contributor (ii), the per-salary-bucket rounding of R_error (P_b rows, "
                                  "not its floor and ceiling)", LGB_ALGORITHMS),
        ("query_error", f"without contributor (i): {NAMES[SET_OBJECTIVE]} minimizes the reported NCP (objective "
                        "set: value sets, not code ranges)", ("lgb-ncp", SET_OBJECTIVE)),
        ("query_error_unrounded", "without both", ("lgb-ncp", SET_OBJECTIVE)))
WIDTH = 10
PHASES = ("prepare", "algorithm", "table", "query_error", "total")


def _cells(fmt: str, values: Sequence) -> str:
    return "".join(f"{'-' if v is None else fmt.format(v):>{WIDTH}}" for v in values)


def _measure_block(rows: list[dict], key: str, label: str, fmt: str, algorithms: Sequence[str]) -> list[str]:
    """One measure at 20 %: a line per k, the l columns of each algorithm side by side."""
    part = [r for r in rows if r["density"] == GRID_DENSITY and r["algorithm"] in algorithms]
    ks, ls = sorted({r["k"] for r in part}), sorted({r["l"] for r in part})
    at = {(r["algorithm"], r["k"], r["l"]): r.get(key) for r in part}
    algs = [a for a in algorithms if a in {r["algorithm"] for r in part}]
    if not algs:
        return []
    span = WIDTH * len(ls)
    lines = ["", label, " " * 6 + " | ".join(f"{NAMES[a]:^{span}}" for a in algs),
             "k \\ l " + " | ".join(_cells("{}", ls) for _ in algs)]
    for k in ks:
        lines.append(f"{k:>5} " + " | ".join(_cells(fmt, [at.get((a, k, l)) for l in ls]) for a in algs))
    return lines


def _fig7_blocks(rows: list[dict]) -> list[str]:
    """Fig. 7's mean R_error with each contributor removed, beside the default above."""
    lines: list[str] = []
    for key, label, algorithms in FIG7:
        lines += _measure_block(rows, key, f"Fig. 7 {label}", "{:.3f}", algorithms)
    return (["", "Fig. 7 with each contributor removed (findings i and j say what each explains)"] + lines
            if lines else [])


def _density_block(rows: list[dict]) -> list[str]:
    """Section 4.3: a line per (k, l), a column per density (LGB_MDP's mean query error)."""
    part = [r for r in rows if "4.3" in r["sections"]]
    if not part:
        return []
    densities = sorted({r["density"] for r in part})
    at = {(r["k"], r["l"], r["density"]): r["query_error"] for r in part}
    lines = ["", f"section 4.3 (Fig. 8): {NAMES[DENSITY_ALGORITHM]}'s mean query error by density of sensitive "
                 "values", "  k   l" + "".join(f"{d:>{WIDTH}.0%}" for d in densities)]
    for k, l in sorted({(r["k"], r["l"]) for r in part}):
        lines.append(f"{k:>3} {l:>3}" + _cells("{:.3f}", [at.get((k, l, d)) for d in densities]))
    return lines


def format_caps(rows: list[dict]) -> str:
    """The printed note on the l caps: a line per density table and capped attribute."""
    tables, top_l = {r["density"]: r["l_caps"] for r in rows}, max((r["l"] for r in rows), default=0)
    lines = ["l caps: L = floor(cells / most frequent count), the largest l at which an attribute's sensitive "
             "cells are l-eligible (at a larger l no l-unique bucketization exists)"]
    lines += [f"  {d:>3.0%}  {a:<10} L = {c['cap']:>5} ({c['cells']:,} cells, {c['values']:,} values, most "
              f"frequent {c['top_value']!r} x {c['top']:,}): " + ("not binding" if c["cap"] >= top_l else
                                                                 f"binding for l > {c['cap']}")
              for d, caps in sorted(tables.items()) for a, c in caps.items()]
    occ = [tables[d]["occupation"] for d in sorted(tables) if "occupation" in tables[d]]
    if occ and min(c["cap"] for c in occ) < top_l:
        lines.append(f"occupation's buckets use l = min(l, L) because Adult's occupation has only "
                     f"{max(c['values'] for c in occ)} values (the paper's has 257), so its most frequent value "
                     f"makes l > L impossible: L = {', '.join(str(c['cap']) for c in occ)} at "
                     f"{', '.join(f'{d:.0%}' for d in sorted(tables))}")
    return "\n".join(lines)


def format_tables(rows: list[dict]) -> str:
    """Figs. 5-7 as k x l tables (algorithms side by side; Fig. 6 under both NCP
    conventions), Fig. 7 with each contributor removed, Fig. 8 by density, and the seconds
    spent per phase (the l caps are :func:`format_caps`)."""
    grid = [r for r in rows if "4.1" in r["sections"]]
    title = f"paper 000, section 4 on UCI Adult ({len(rows)} LGB releases, verified, not published)"
    lines = [title, "=" * len(title)]
    if grid:
        lines += ["", f"sections 4.1 and 4.2 at density {GRID_DENSITY:.0%}"]
        for key, label, fmt in MEASURES:
            lines += _measure_block(grid, key, label, fmt, LGB_ALGORITHMS)
        lines += _fig7_blocks(rows)
    lines += _density_block(rows)
    lines += ["", "seconds (all runs): " + ", ".join(f"{p} {sum(r['seconds'].get(p, 0.0) for r in rows):.1f}"
                                                     for p in PHASES)]
    return "\n".join(lines)
