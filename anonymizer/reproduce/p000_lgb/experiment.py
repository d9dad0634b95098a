"""Paper 000's experiment (section 4) on the bundled UCI Adult data.

Section 4.1 compares C_DM (sum of |LEG|^2) and NCP of LGB_MDP and LGB_NCP for k = 5, 8, 10,
l = 5, 8, 10, 12, 15, 18, 20, t = 0.2 and about 20 % of each semi-sensitive attribute's values
sensitive (Figs. 5, 6); section 4.2 the mean relative error of 1,000 random SUM(salary) queries
(Fig. 7); section 4.3 LGB_MDP's query error at densities 10 to 40 % (Fig. 8). Every run is one
LGB release, verified (Corollary 3) but not published (:func:`evaluate`); :func:`findings`
checks the paper's claims against the rows, nothing hard-coded. Findings (g) and (h) say why
Figs. 5, 6 and 8 do not reproduce, from group sizes and cell costs measured beside every run
and from Algorithm 4 as printed (``balance: false``) run at each k (:mod:`.explain`).

Choices (Adult is not the paper's census extract; see :mod:`anonymizer.datasets.flagged` for the data):

- l caps: Adult's occupation has 14 values (the paper's 257), so its flagged cells are not
  l-eligible at every l (most frequent count * l > cells) and no l-unique bucketization would
  exist. Per density table, L = floor(cells / most frequent count) of occupation, age and
  fnlwgt is computed in SQL (``reproduce/p000/experiment_caps``); an attribute with L < l gets
  l = min(l, L). Rows report it (``l_caps``, ``l_occupation``, ``capped``), and so does the text.
- Queries: one set for every table (``query_seed``; the tables share attributes and domains,
  so the seed draws the same queries, fingerprinted by ``query_set``). The error is the mean
  R_error over queries with a positive actual sum (:mod:`anonymizer.reproduce.p000_lgb.query_error`).
- The LGB_MDP run at 20 % serves sections 4.1/4.2 and 4.3 and runs once (``sections``).
"""

from __future__ import annotations

import hashlib
import time
from typing import Callable, Iterable, Sequence

import duckdb

from anonymizer.families.lgb import form as lgb_table

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.datasets.flagged import SALARY, experiment_spec, flagged_adult
from anonymizer.reproduce.p000_lgb import explain
from anonymizer.reproduce.p000_lgb.query_error import draw_queries, query_error
from anonymizer.reproduce.findings import HOLDS, NA, NOT, PARTLY, finding, rounded, verdict
from anonymizer.reproduce.findings import format_findings as shared_format
from anonymizer.plan import prepare
from anonymizer.families.lgb import LGB_ALGORITHMS
from anonymizer.release.run import verified
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec
from anonymizer.engine.names import ident

KS: tuple[int, ...] = (5, 8, 10)
LS: tuple[int, ...] = (5, 8, 10, 12, 15, 18, 20)
DENSITIES: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4)
GRID_DENSITY = 0.2              # sections 4.1 and 4.2
DENSITY_ALGORITHM = "lgb-mdp"   # section 4.3
CAPPED = ("occupation", "age", SALARY)
DIMS = 4                        # attributes per query (section 4.2)


def evaluate(con: duckdb.DuckDBPyConnection, spec: dict | ReleaseSpec, *, queries: int = 1000,
             query_seed: int = 0) -> dict:
    """One LGB release of ``spec`` in a private workspace, verified but not published: C_DM,
    NCP, groups, buckets, suppressed rows, the query error and the seconds of each phase.
    Raises PrivacyCheckFailed if the table fails Corollary 3 or the suppression limit."""
    spec = spec if isinstance(spec, ReleaseSpec) else load_spec(spec)
    engine, start = Engine(con), time.perf_counter()
    with engine.workspace():
        candidate, utility, clock = _candidate(engine, spec)
        salary = next(x["a"] for x in candidate.attrs if x["name"] == spec.sensitive[0].name)
        t0 = time.perf_counter()
        qe = query_error(engine, candidate.table, candidate.attrs, salary, queries=queries, dims=DIMS,
                         seed=query_seed)
        clock["query_error"] = time.perf_counter() - t0
        drawn = draw_queries(candidate.attrs, salary, queries, DIMS, query_seed)
        measured = explain.measure(engine, candidate, spec.k)
    clock["total"] = time.perf_counter() - start
    keep = ("c_dm", "ncp", "ncp_per_qi_cell", "groups", "smallest_group", "buckets", "rows", "suppressed")
    return {**{k: utility[k] for k in keep}, "query_error": qe["relative_error"], "query_error_median": qe["median"],
            "queries": qe["queries"], "queries_discarded": qe["discarded"], "query_seed": query_seed,
            "query_set": hashlib.sha256(repr(drawn).encode()).hexdigest()[:12],
            **measured, "seconds": {k: round(v, 4) for k, v in clock.items()}}


def _candidate(engine: Engine, spec: ReleaseSpec) -> tuple[lgb_table.LgbCandidate, dict, dict]:
    """Algorithm 1 and the Fig. 2 table, verified and measured as a release does before it
    publishes (the release's own :func:`anonymizer.release.run.verified`): the candidate, its section
    4.1 metrics and the phases' seconds."""
    t0 = time.perf_counter()
    plan = prepare(engine, spec)   # loads the source and resolves the columns
    prepared = time.perf_counter() - t0
    seconds: dict[str, float] = {}
    run = verified(engine, plan, spec.algorithm.family.steps(), seconds)
    notes = run.rounds.result.notes
    clock = {"prepare": prepared, "algorithm": seconds["algorithm"],
             "bucketization": notes["bucketization_seconds"], "generalization": notes["generalization_seconds"],
             "table": seconds["generalize"] + seconds["verify"] + seconds["metrics"]}
    return run.built, run.ready.utility, clock


def l_caps(con: duckdb.DuckDBPyConnection, table: str, attributes: Sequence[str] = CAPPED) -> dict[str, dict]:
    """Per attribute of ``table`` (flagged cells, or every cell of the sensitive salary): cells,
    distinct values, the most frequent value and its count, and the cap L (one statement)."""
    attrs = [{"col": ident(a), "flag": None if a == SALARY else ident(f"{a}_flag")} for a in attributes]
    found = Engine(con).rows("reproduce/p000/experiment_caps.sql.j2", source=ident(table), attrs=attrs)
    return {attributes[i]: {"cells": int(cells), "values": int(values), "top": int(top), "top_value": value,
                            "cap": int(cap)} for i, cells, values, top, value, cap in found}


def _runs(ks, ls, densities, algorithms) -> list[tuple[float, str, int, int]]:
    """The distinct (density, algorithm, k, l) runs: the grid at 20 %, section 4.3's, and
    with LGB_NCP the paper-literal Algorithm 4 at each k and the smallest l (:mod:`.explain`)."""
    grid = [(GRID_DENSITY, a, k, l) for a in algorithms for k in ks for l in ls]
    literal = [(GRID_DENSITY, explain.LITERAL, k, min(ls)) for k in ks] if "lgb-ncp" in algorithms else []
    return list(dict.fromkeys(grid + [(d, DENSITY_ALGORITHM, k, l) for d in densities for k in ks for l in ls]
                              + literal))


def _check_arguments(ks, ls, densities, algorithms, queries) -> None:
    if not ks or not ls or any(not isinstance(v, int) or isinstance(v, bool) or v < 2 for v in ks + ls):
        raise SpecError("ks/ls", "must be non-empty lists of whole numbers >= 2", (ks, ls))
    if any(not 0 < d < 1 for d in densities):
        raise SpecError("densities", "must be fractions in (0, 1)", densities)
    if not algorithms or set(algorithms) - set(LGB_ALGORITHMS):
        raise SpecError("algorithms", f"one or both of {', '.join(LGB_ALGORITHMS)}", algorithms)
    if not isinstance(queries, int) or isinstance(queries, bool) or queries < 1:
        raise SpecError("queries", "must be a whole number >= 1", queries)


def run_experiment(con: duckdb.DuckDBPyConnection | None = None, ks: Iterable[int] = KS, ls: Iterable[int] = LS,
                   densities: Iterable[float] = DENSITIES, t: float = 0.2,
                   algorithms: Iterable[str] = LGB_ALGORITHMS, queries: int = 1000, seed: int = 0,
                   progress: Callable[[str], None] | None = None) -> list[dict]:
    """Sections 4.1-4.3 on Adult in ``con`` (a new in-memory database if None): both
    algorithms over k x l at 20 %, LGB_MDP over k x l at each density. ``seed`` draws the flags
    and the queries. A row per run: ``sections``, ``algorithm``, ``density``, ``k``, ``l``,
    ``t``, ``table``, ``l_caps``, ``l_occupation``, ``capped`` and :func:`evaluate`'s fields."""
    ks, ls, densities, algorithms = list(ks), list(ls), [float(d) for d in densities], list(algorithms)
    _check_arguments(ks, ls, densities, algorithms, queries)
    con = con if con is not None else duckdb.connect()
    runs, tables, rows = _runs(ks, ls, densities, algorithms), {}, []
    for i, (density, algorithm, k, l) in enumerate(runs, 1):
        if density not in tables:
            name = f"adult_flagged_{round(density * 100)}"
            flagged_adult(con, name, density, seed)
            tables[density] = (name, l_caps(con, name))
        name, caps = tables[density]
        spec = experiment_spec(name, "lgb-ncp" if algorithm == explain.LITERAL else algorithm, k, l, t,
                               l_caps={a: c["cap"] for a, c in caps.items()}, seed=seed)
        if algorithm == explain.LITERAL:
            spec["algorithm"]["balance"] = False
        sections = (["4.1", "4.2"] if density == GRID_DENSITY and algorithm in algorithms else []) + \
                   (["4.3"] if algorithm == DENSITY_ALGORITHM and density in densities else [])
        row = {"sections": sections, "algorithm": algorithm, "density": density, "k": k, "l": l, "t": t,
               "table": name, "l_caps": caps, "l_occupation": min(l, caps["occupation"]["cap"]),
               "capped": [a for a, c in caps.items() if c["cap"] < l],
               **evaluate(con, spec, queries=queries, query_seed=seed)}
        rows.append(row)
        if progress:
            progress(f"[{i}/{len(runs)}] {density:.0%} {algorithm} k={k} l={l}: C_DM {row['c_dm']}, NCP "
                     f"{row['ncp']:.1f}, query error {row['query_error']:.3f}, {row['seconds']['total']:.1f} s")
    return rows


# -- tables ---------------------------------------------------------------------------------
NAMES = {"lgb-mdp": "LGB_MDP", "lgb-ncp": "LGB_NCP"}
MEASURES = (("c_dm", "C_DM = sum of |LEG|^2 (section 4.1, Fig. 5)", "{:,}"),
            ("ncp", "NCP(T), summed over the QI cells (section 4.1, Fig. 6)", "{:,.1f}"),
            ("query_error", "query error: mean relative error R_error (section 4.2, Fig. 7)", "{:.3f}"),
            ("query_error_median", "query error: median relative error", "{:.3f}"))
WIDTH = 10
PHASES = ("prepare", "algorithm", "table", "query_error", "total")


def _grid_rows(rows: list[dict]) -> list[dict]:
    return [r for r in rows if "4.1" in r["sections"]]


def _cells(fmt: str, values: Sequence) -> str:
    return "".join(f"{'-' if v is None else fmt.format(v):>{WIDTH}}" for v in values)


def _measure_block(rows: list[dict], key: str, label: str, fmt: str) -> list[str]:
    """One measure: a line per k, the l columns of each algorithm side by side."""
    ks, ls = sorted({r["k"] for r in rows}), sorted({r["l"] for r in rows})
    at = {(r["algorithm"], r["k"], r["l"]): r[key] for r in rows}
    algs = [a for a in LGB_ALGORITHMS if a in {r["algorithm"] for r in rows}]
    span = WIDTH * len(ls)
    lines = ["", label, " " * 6 + " | ".join(f"{NAMES[a]:^{span}}" for a in algs),
             "k \\ l " + " | ".join(_cells("{}", ls) for _ in algs)]
    for k in ks:
        lines.append(f"{k:>5} " + " | ".join(_cells(fmt, [at.get((a, k, l)) for l in ls]) for a in algs))
    return lines


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
    """Figs. 5-7 as k x l tables (algorithms side by side), Fig. 8 by density, and the seconds
    spent per phase (the l caps are :func:`format_caps`)."""
    grid = _grid_rows(rows)
    title = f"paper 000, section 4 on UCI Adult ({len(rows)} LGB releases, verified, not published)"
    lines = [title, "=" * len(title)]
    if grid:
        lines += ["", f"sections 4.1 and 4.2 at density {GRID_DENSITY:.0%}"]
        for key, label, fmt in MEASURES:
            lines += _measure_block(grid, key, label, fmt)
    lines += _density_block(rows)
    lines += ["", "seconds (all runs): " + ", ".join(f"{p} {sum(r['seconds'].get(p, 0.0) for r in rows):.1f}"
                                                     for p in PHASES)]
    return "\n".join(lines)


# -- findings -------------------------------------------------------------------------------
MUCH_LOWER = 0.75            # (a): "much lower" = at most 75 % of LGB_NCP's C_DM
FLAT = 0.01                  # (b): "hardly affected" = spread over l within 1 %
NCP_BAND = (0.12, 0.19)      # (c): "about 14 % to 17 %", +-2 points
GROWS = 0.75                 # (d), (f): a trend = at least 75 % of the steps go that way


def _table(rows: list[dict], algorithm: str, key: str) -> dict[tuple[int, int], float]:
    return {(r["k"], r["l"]): r[key] for r in _grid_rows(rows) if r["algorithm"] == algorithm}


def _pairs(rows: list[dict], key: str) -> list[tuple[tuple[int, int], float, float]]:
    """(k, l), LGB_MDP's and LGB_NCP's ``key`` wherever both ran at 20 %."""
    mdp, ncp = _table(rows, "lgb-mdp", key), _table(rows, "lgb-ncp", key)
    return [(kl, mdp[kl], ncp[kl]) for kl in sorted(mdp) if kl in ncp]


def _a_cdm(rows: list[dict]) -> dict:
    pairs = _pairs(rows, "c_dm")
    ratios = [m / n for _, m, n in pairs]
    flags = [x <= MUCH_LOWER for x in ratios]
    holds = PARTLY if verdict(flags) == NOT and any(x < 1 for x in ratios) else verdict(flags)
    by_k = {k: {"lgb-mdp": m, "lgb-ncp": n, "ratio": rounded(m / n)} for (k, _), m, n in pairs}
    evidence = {"c_dm_by_k": by_k, "runs": len(pairs), "mdp_lower_in": sum(x < 1 for x in ratios),
                "ratio_range": [rounded(min(ratios)), rounded(max(ratios))] if ratios else None}
    return finding("a", "C_DM of LGB_MDP is much lower than LGB_NCP's (Fig. 5)", holds, evidence,
                    f"holds when LGB_MDP's C_DM is at most {MUCH_LOWER:.0%} of LGB_NCP's at every (k, l); "
                    "partly when lower somewhere; the C_DM by k is the last l's")


def _b_cdm_flat(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for a in LGB_ALGORITHMS:
        table = _table(rows, a, "c_dm")
        for k in sorted({k for k, _ in table}):
            values = [v for (kk, _), v in table.items() if kk == k]
            if len(values) < 2:
                continue
            spread = (max(values) - min(values)) / min(values)
            flags.append(spread <= FLAT)
            evidence[f"{NAMES[a]} k={k}"] = {"c_dm_range": [min(values), max(values)], "spread": rounded(spread),
                                             "identical": max(values) == min(values)}
    return finding("b", "C_DM is hardly affected by l: at a fixed k it is the same for every l (Fig. 5)",
                    verdict(flags), evidence, f"per algorithm and k: the C_DM over l spreads by at most "
                    f"{FLAT:.0%} of its least value")


def _c_ncp(rows: list[dict]) -> dict:
    pairs = _pairs(rows, "ncp")
    cuts = [1 - n / m for _, m, n in pairs]
    band = [NCP_BAND[0] <= c <= NCP_BAND[1] for c in cuts]
    holds = HOLDS if band and all(band) else PARTLY if any(band) or any(c > 0 for c in cuts) else verdict(band)
    by_k = {}
    for (k, _), m, n in pairs:
        by_k.setdefault(k, []).append(1 - n / m)
    evidence = {"runs": len(pairs), "ncp_lower_in": sum(c > 0 for c in cuts), "in_band": sum(band),
                "reduction_range": [rounded(min(cuts)), rounded(max(cuts))] if cuts else None,
                "mean_reduction_by_k": {k: rounded(sum(v) / len(v)) for k, v in by_k.items()},
                "ncp_by_k": {k: {"lgb-mdp": rounded(m), "lgb-ncp": rounded(n)} for (k, _), m, n in pairs}}
    return finding("c", "NCP of LGB_NCP is lower than LGB_MDP's by about 14 % to 17 % (Fig. 6)", holds,
                    evidence, f"reduction = 1 - NCP(LGB_NCP) / NCP(LGB_MDP); holds when every (k, l) is within "
                    f"{NCP_BAND[0]:.0%} to {NCP_BAND[1]:.0%}; partly when LGB_NCP is lower somewhere or some "
                    "are in the band; the NCP by k is the last l's")


def _trend(lines: list[list[float]], up: bool = True) -> tuple[float, float]:
    """Over several series: the share of consecutive steps going up (down), and the mean ratio
    last / first."""
    steps = [(y > x) if up else (y < x) for s in lines for x, y in zip(s, s[1:])]
    ratios = [s[-1] / s[0] for s in lines if len(s) > 1 and s[0]]
    nan = float("nan")
    return (sum(steps) / len(steps) if steps else nan, sum(ratios) / len(ratios) if ratios else nan)


def _d_query_k_l(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for a in LGB_ALGORITHMS:
        table = _table(rows, a, "query_error")
        ks, ls = sorted({k for k, _ in table}), sorted({l for _, l in table})
        if len(ks) < 2 or len(ls) < 2 or len(table) < len(ks) * len(ls):
            continue
        k_share, k_ratio = _trend([[table[k, l] for k in ks] for l in ls])
        l_share, l_ratio = _trend([[table[k, l] for l in ls] for k in ks])
        checks = {"grows_with_k": k_share >= GROWS, "grows_with_l": l_share >= GROWS,
                  "k_more_than_l": k_ratio > l_ratio}
        flags += checks.values()
        evidence[NAMES[a]] = {"k_steps_up": rounded(k_share), f"k{ks[0]}_to_k{ks[-1]}_ratio": rounded(k_ratio),
                              "l_steps_up": rounded(l_share), f"l{ls[0]}_to_l{ls[-1]}_ratio": rounded(l_ratio), **checks}
    return finding("d", "the query error grows with k and with l, and more with k than with l (Fig. 7)",
                    verdict(flags), evidence or {"needs": "two k and two l"}, f"per algorithm: at least {GROWS:.0%} "
                    "of the steps in k (each l) and in l (each k) go up, and the mean ratio of the error at the "
                    "largest to the smallest k exceeds that of l; holds when all three hold for both algorithms")


def _e_query_mdp_ncp(rows: list[dict]) -> dict:
    mdp, ncp = _table(rows, "lgb-mdp", "query_error"), _table(rows, "lgb-ncp", "query_error")
    evidence, flags = {}, []
    for k in sorted({k for k, _ in mdp}):
        ls = sorted(l for kk, l in mdp if kk == k and (k, l) in ncp)
        if len(ls) < 2:
            continue
        gap = {l: (ncp[k, l] - mdp[k, l]) / ncp[k, l] for l in (ls[0], ls[-1])}
        lower, closer = gap[ls[0]] > 0, abs(gap[ls[-1]]) < abs(gap[ls[0]])
        flags += [lower, closer]
        evidence[f"k={k}"] = {f"l={ls[0]}": {"lgb-mdp": rounded(mdp[k, ls[0]]), "lgb-ncp": rounded(ncp[k, ls[0]])},
                              f"l={ls[-1]}": {"lgb-mdp": rounded(mdp[k, ls[-1]]), "lgb-ncp": rounded(ncp[k, ls[-1]])},
                              "gap_small_l": rounded(gap[ls[0]]), "gap_large_l": rounded(gap[ls[-1]]),
                              "mdp_lower_at_small_l": lower, "closer_at_large_l": closer}
    return finding("e", "LGB_MDP has a lower query error than LGB_NCP when l is small; they get close as l "
                    "grows (Fig. 7)", verdict(flags), evidence, "per k: gap = (LGB_NCP - LGB_MDP) / LGB_NCP is "
                    "positive at the smallest l and smaller in size at the largest l")


CLAIM_F = "the query error declines as the density rises, most at k=10, l=20 (Fig. 8)"


def _f_density(rows: list[dict]) -> dict:
    part = [r for r in rows if "4.3" in r["sections"]]
    series: dict[tuple[int, int], list[float]] = {}
    for r in sorted(part, key=lambda r: r["density"]):
        series.setdefault((r["k"], r["l"]), []).append(r["query_error"])
    series = {kl: s for kl, s in series.items() if len(s) > 1}
    if not series:
        return finding("f", CLAIM_F, NA, {}, "needs two densities")
    cuts = {kl: 1 - s[-1] / s[0] for kl, s in series.items()}
    declines = {kl: _trend([s], up=False)[0] >= GROWS and s[-1] < s[0] for kl, s in series.items()}
    most, corner = max(cuts, key=cuts.get), max(series)
    holds = verdict(list(declines.values()))
    if holds == HOLDS and most != corner:
        holds = PARTLY
    densities = sorted({r["density"] for r in part})
    evidence = {"declining": f"{sum(declines.values())} of {len(series)} (k, l)",
                "reduction_range": [rounded(min(cuts.values())), rounded(max(cuts.values()))],
                "largest_reduction_at": f"k={most[0]} l={most[1]} ({rounded(cuts[most])})",
                f"k={corner[0]} l={corner[1]}": {f"{d:.0%}": rounded(v) for d, v in zip(densities, series[corner])}}
    return finding("f", CLAIM_F, holds, evidence, f"per (k, l): at least {GROWS:.0%} of the density steps go "
                    "down, the last below the first; reduction = 1 - last / first; holds when every (k, l) "
                    "declines and the largest reduction is at the largest k and l")


def _g_groups(rows: list[dict]) -> dict:
    return explain.g_groups_and_ncp(rows, GRID_DENSITY, MUCH_LOWER, NCP_BAND)


CHECKS = (_a_cdm, _b_cdm_flat, _c_ncp, _d_query_k_l, _e_query_mdp_ncp, _f_density, _g_groups, explain.h_density)


def findings(rows: list[dict]) -> list[dict]:
    """Section 4's claims checked against ``rows``: each ``{id, claim, holds, evidence, note}``,
    ``holds`` one of "holds", "partly", "does not hold", "n/a" (the rows lack what it needs);
    (g) and (h) say, with measured figures, why (a), (c) and (f) do not hold (:mod:`.explain`)."""
    return [check(rows) for check in CHECKS]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, rule, the numbers behind it."""
    return shared_format(found, "000")


def to_json(rows: list[dict], found: list[dict] | None = None, plots: Sequence = ()) -> dict:
    """The experiment as one object for ``json.dumps``."""
    found = findings(rows) if found is None else found
    caps = {f"{r['density']:.0%}": r["l_caps"] for r in rows}
    return {"experiment": "000", "grid_density": GRID_DENSITY, "l_caps": caps, "rows": rows, "findings": found,
            "plots": [str(p) for p in plots]}
