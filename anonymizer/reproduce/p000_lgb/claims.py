"""Paper 000's claims of section 4 (Figs. 5 to 8) checked against the experiment's rows:
findings (a) to (f) and (k). Each verdict follows from its printed checks
(:func:`anonymizer.reproduce.findings.finding`), each check a measured number against the
bound the paper's words set:

- "much lower" (Fig. 5): LGB_MDP's C_DM at most :data:`MUCH_LOWER` of LGB_NCP's;
- "hardly affected by l", "the same for every l" (Fig. 5): C_DM spread over l at most
  :data:`FLAT` of its least value;
- "lower ... by about 14 % to 17 %" (Fig. 6): the reduction in :data:`NCP_BAND`, under our
  NCP and under paper 000's (Sec. 3.2.2, NCP_Acat as printed);
- "increases with k or l" (Figs. 7, 8 decline): one check per series, judged whole
  (:func:`anonymizer.reproduce.findings.trend`): at least :data:`~.series.GROWS` of the steps
  go that way, with the fitted slope going that way too;
- "more affected by k than l" (Fig. 7): the ratio last / first over k exceeds that over l;
- "lower ... when l is small", "gradually close" (Fig. 7): the gap is positive at the
  smallest l, and its size falls over l, judged whole as a trend;
- "more evenly" (section 4.1, the reason given for Fig. 5): fewer of LGB_MDP's rows in groups
  of at least 2k rows, and a smaller largest group, at every (k, l).
"""

from __future__ import annotations

from anonymizer.families.lgb import LGB_ALGORITHMS
from anonymizer.reproduce.findings import Check, check, finding, rounded, trend
from anonymizer.reproduce.p000_lgb.series import GROWS, NAMES, k_l_series, pairs, ratios, table

MUCH_LOWER = 0.75            # (a): "much lower" = at most 75 % of LGB_NCP's C_DM
FLAT = 0.01                  # (b): "hardly affected" = spread over l within 1 %
NCP_BAND = (0.14, 0.17)      # (c): "about 14 % to 17 %" lower
#: the two NCPs of Fig. 6: the rows' keys and how the checks name them
NCPS = (("ncp", "our NCP"), ("ncp_paper", "paper 000's NCP"))


def _by_k(found: list[tuple[tuple[int, int], float, float]]) -> dict[int, list[tuple[float, float]]]:
    by: dict[int, list[tuple[float, float]]] = {}
    for (k, _), m, n in found:
        by.setdefault(k, []).append((m, n))
    return by


def a_cdm(rows: list[dict]) -> dict:
    checks, context = {}, {}
    for k, values in _by_k(pairs(rows, "c_dm")).items():
        ratios = [m / n for m, n in values]
        checks[f"C_DM ratio LGB_MDP / LGB_NCP, k={k} (largest over l)"] = check(max(ratios), f"<= {MUCH_LOWER}")
        context[f"k={k}"] = {"LGB_MDP": values[-1][0], "LGB_NCP": values[-1][1]}
    return finding("a", "C_DM of LGB_MDP is much lower than LGB_NCP's (Fig. 5)", checks,
                   f"per k: LGB_MDP's C_DM over LGB_NCP's, at every l at most {MUCH_LOWER} (\"much lower\"); the C_DM "
                   "by k is the last l's", context)


def b_cdm_flat(rows: list[dict]) -> dict:
    checks, context = {}, {}
    for a in LGB_ALGORITHMS:
        t = table(rows, a, "c_dm")
        for k in sorted({k for k, _ in t}):
            values = [v for (kk, _), v in t.items() if kk == k]
            if len(values) > 1:
                checks[f"{NAMES[a]} k={k}: C_DM spread over l"] = check((max(values) - min(values)) / min(values),
                                                                        f"<= {FLAT}")
                context[f"{NAMES[a]} k={k}"] = {"c_dm_range": [min(values), max(values)]}
    return finding("b", "C_DM is hardly affected by l: at a fixed k it is the same for every l (Fig. 5)", checks,
                   f"per algorithm and k: (largest - least C_DM over l) / least, at most {FLAT}", context)


def c_ncp(rows: list[dict]) -> dict:
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    for key, name in NCPS:
        for k, values in _by_k(pairs(rows, key)).items():
            cuts = [1 - n / m for m, n in values]
            checks[f"NCP reduction k={k}, {name} (mean over l)"] = check(sum(cuts) / len(cuts),
                                                                         f"in [{NCP_BAND[0]}, {NCP_BAND[1]}]")
            context.setdefault(f"k={k}", {})[name] = {"LGB_MDP": rounded(values[-1][0]),
                                                      "LGB_NCP": rounded(values[-1][1])}
    return finding("c", "NCP of LGB_NCP is lower than LGB_MDP's by about 14 % to 17 % (Fig. 6)", checks,
                   "reduction = 1 - NCP(LGB_NCP) / NCP(LGB_MDP) per k, in the paper's band, under our NCP (an "
                   "ungeneralized categorical value costs 0, a value set its values) and under paper 000's "
                   "(Sec. 3.2.2 NCP_Acat: 1/|A|, and the leaves of the hierarchy node, here flat: any two values "
                   "cost 1); the NCPs by k are the last l's", context)


def trend_checks(t: dict[tuple[int, int], float], name: str) -> dict[str, Check]:
    """Fig. 7's shape on one k x l table: it grows with k and with l (each judged whole over
    its series, :func:`~anonymizer.reproduce.findings.trend`) and more with k (ratio last /
    first over k minus over l); none without two k and two l."""
    series = k_l_series(t)
    if series is None:
        return {}
    return {f"{name}: trend over k": check(trend(series[0]), f">= {GROWS}"),
            f"{name}: trend over l": check(trend(series[1]), f">= {GROWS}"),
            f"{name}: ratio last / first, k's minus l's": check(ratios(series[0]) - ratios(series[1]), "> 0")}


CLAIM_D = "the query error grows with k and with l, and more with k than with l (Fig. 7)"
NOTE_D = (f"per algorithm, on the k x l table, each trend judged whole: at least {GROWS} of the steps in k (each l), "
          f"and in l (each k), go up, with the slope fitted to the series going up too (else the trend is minus the "
          "share of steps down); the mean ratio of the error at the largest to the smallest k exceeds that of l")


def d_query_k_l(rows: list[dict]) -> dict:
    checks: dict[str, Check] = {}
    for a in LGB_ALGORITHMS:
        checks.update(trend_checks(table(rows, a, "query_error"), NAMES[a]))
    return finding("d", CLAIM_D, checks, NOTE_D, None if checks else {"needs": "two k and two l"})


def gap_checks(rows: list[dict], other: str, key: str = "query_error") -> tuple[dict[str, Check], dict]:
    """Per k: the gap (other - LGB_MDP) / other at the smallest l (> 0: LGB_MDP lower), and
    its size over every l judged whole (:func:`trend` down: "gradually close")."""
    mdp, ncp = table(rows, "lgb-mdp", key), table(rows, other, key)
    checks, context = {}, {}
    for k in sorted({k for k, _ in mdp}):
        ls = sorted(l for kk, l in mdp if kk == k and (k, l) in ncp)
        if len(ls) < 2:
            continue
        gap = {l: (ncp[k, l] - mdp[k, l]) / ncp[k, l] for l in ls}
        checks[f"k={k}: gap at l={ls[0]}"] = check(gap[ls[0]], "> 0")
        checks[f"k={k}: |gap| trend down over l"] = check(trend([[abs(gap[l]) for l in ls]], up=False), f">= {GROWS}")
        context[f"k={k}"] = {f"l={l}": {"LGB_MDP": rounded(mdp[k, l]), NAMES[other]: rounded(ncp[k, l])}
                             for l in (ls[0], ls[-1])}
        context[f"k={k}"]["|gap| by l"] = [rounded(abs(gap[l])) for l in ls]
    return checks, context


def e_query_mdp_ncp(rows: list[dict]) -> dict:
    checks, context = gap_checks(rows, "lgb-ncp")
    return finding("e", "LGB_MDP has a lower query error than LGB_NCP when l is small; they get close as l "
                   "grows (Fig. 7)", checks, "per k: gap = (LGB_NCP - LGB_MDP) / LGB_NCP is positive at the "
                   f"smallest l, and its size falls over l judged whole (at least {GROWS} of the steps down, with "
                   "the fitted slope down too)", context)


CLAIM_F = "the query error declines as the density rises, most at k=10, l=20 (Fig. 8)"


def f_density(rows: list[dict]) -> dict:
    part = [r for r in rows if "4.3" in r["sections"]]
    series: dict[tuple[int, int], list[float]] = {}
    for r in sorted(part, key=lambda r: r["density"]):
        series.setdefault((r["k"], r["l"]), []).append(r["query_error"])
    series = {kl: s for kl, s in series.items() if len(s) > 1}
    if not series:
        return finding("f", CLAIM_F, {}, "needs two densities")
    checks = {"trend over density, every (k, l)": check(trend(list(series.values()), up=False), f">= {GROWS}")}
    cuts = {kl: 1 - s[-1] / s[0] for kl, s in series.items()}
    corner = max(series)
    if len(cuts) > 1:
        rest = max(v for kl, v in cuts.items() if kl != corner)
        checks[f"reduction at k={corner[0]} l={corner[1]} minus the largest elsewhere"] = check(cuts[corner] - rest,
                                                                                               "> 0")
    densities = sorted({r["density"] for r in part})
    context = {"reduction_range": [rounded(min(cuts.values())), rounded(max(cuts.values()))],
               f"k={corner[0]} l={corner[1]}": {f"{d:.0%}": rounded(v) for d, v in zip(densities, series[corner])}}
    return finding("f", CLAIM_F, checks, f"over the (k, l) series by density, judged whole: at least {GROWS} of the "
                   "steps go down, with the fitted slope down too; reduction = 1 - last / first is largest at the largest "
                   "k and l", context)


CLAIM_K = "LGB_MDP divides the tuples into local equivalence groups more evenly than LGB_NCP (section 4.1)"


def k_evenly(rows: list[dict]) -> dict:
    sizes = {a: table(rows, a, "group_sizes") for a in ("lgb-mdp", "lgb-ncp")}
    both = [kl for kl in sorted(sizes["lgb-mdp"]) if kl in sizes["lgb-ncp"]]
    checks: dict[str, Check] = {}
    if both:
        for key, what in (("share_2k", "share of the rows in groups of >= 2k rows"), ("largest", "largest group")):
            checks[f"{what}: LGB_MDP - LGB_NCP, greatest over (k, l)"] = check(
                max(sizes["lgb-mdp"][kl][key] - sizes["lgb-ncp"][kl][key] for kl in both), "< 0")
    context = {f"k={k} l={l}": {f"{NAMES[a]} {key}": sizes[a][k, l][key] for a in sizes for key in ("share_2k", "largest")}
               for k, l in both}
    return finding("k", CLAIM_K, checks, "at every (k, l) both ran at 20 %: LGB_MDP's share of the rows in groups of "
                   "at least 2k rows below LGB_NCP's, and its largest group smaller (the greatest difference below 0)",
                   context)


CLAIMS = (a_cdm, b_cdm_flat, c_ncp, d_query_k_l, e_query_mdp_ncp, f_density)
