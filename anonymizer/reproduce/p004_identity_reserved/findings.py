"""Paper 004's claims (section 5, Figures 2-9) checked against the experiment's rows
(:mod:`.experiment`): (a) to (m), each a finding with its verdict and evidence."""

from __future__ import annotations

from typing import Any, Sequence

from anonymizer.reproduce.findings import NOT, PARTLY, finding, rounded, verdict
from anonymizer.reproduce.findings import format_findings as shared_format
from anonymizer.reproduce.p004_identity_reserved.experiment import ENHANCED, GENEIR, VARIANTS, sweep_value

HIGH_V = 10.0                  # (a): "fairly high" = at least 10 % of the classes vulnerable
TREND = 0.75                   # a trend: at least 75 % of the steps go that way, last beyond first
FLAT_V = 10.0                  # (e): "almost does not affect" = v spreads over at most 10 points
GENEIR_BAND = (1.863, 3.039)   # (f): the paper's GeneIR / DAnonyIR NLoss ratios, all four ranges
CLOSE = 0.10                   # (g), (k), (m): "close" = within 10 %
ALGORITHM_SWEEPS = {"l": +1, "qi-kl": +1, "alpha": -1, "beta": -1, "qi-ab": +1}


def _series(rows: list[dict], sweep: str, variant: str, key: str) -> list[tuple[Any, float]]:
    return sorted((sweep_value(r, sweep), r[key]) for r in rows
                  if sweep in r["sweeps"] and r["variant"] == variant and r[key] is not None)


def _trend(series: list[tuple[Any, float]], up: bool) -> tuple[bool, dict] | None:
    """Whether a series goes up (down): at least TREND of its steps that way and the last value
    beyond the first; None for fewer than two points."""
    ys = [y for _, y in series]
    if len(ys) < 2:
        return None
    steps = [(b > a) if up else (b < a) for a, b in zip(ys, ys[1:])]
    share = sum(steps) / len(steps)
    ok = share >= TREND and ((ys[-1] > ys[0]) if up else (ys[-1] < ys[0]))
    return ok, {"values": {_fmt_key(x): rounded(y) for x, y in series}, "steps_" + ("up" if up else "down"): rounded(share)}


def _fmt_key(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _trend_finding(key_id: str, claim: str, rows: list[dict], key: str, plan: list[tuple[str, Sequence[str], bool]],
                   note: str) -> dict:
    evidence, flags = {}, []
    for sweep, variants, up in plan:
        for v in variants:
            got = _trend(_series(rows, sweep, v, key), up)
            if got is None:
                continue
            ok, ev = got
            flags.append(ok)
            evidence[f"{VARIANTS[v][0]} {sweep}"] = {**ev, ("rises" if up else "falls"): ok}
    return finding(key_id, claim, verdict(flags), evidence or {"needs": "two values of a sweep"}, note)


def _pairs(rows: list[dict], a: str, b: str, key: str) -> list[tuple[str, float, float]]:
    """(setting, a's key, b's key) wherever both variants ran the same setting."""
    def setting(r):
        return (r["qi"], r["l"], r["alpha"], r["beta"])

    mine = {setting(r): r[key] for r in rows if r["variant"] == a and r[key] is not None}
    other = {setting(r): r[key] for r in rows if r["variant"] == b and r[key] is not None}
    return [(_setting_text(s), mine[s], other[s]) for s in sorted(mine, key=str) if s in other]


def _setting_text(s: tuple) -> str:
    qi, l, alpha, beta = s
    return f"|QI|={qi} l={l}" if l is not None else f"|QI|={qi} a={alpha:g} b={beta:g}"


def _a_high(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for v in ("geneir-kl", "danonyir-kl", "geneir-ab", "danonyir-ab"):
        vs = [r["vulnerable_percent"] for r in rows if r["variant"] == v and r["vulnerable_percent"] is not None]
        if not vs:
            continue
        flags.append(min(vs) >= HIGH_V)
        evidence[VARIANTS[v][0]] = {"runs": len(vs), "v_min": rounded(min(vs)), "v_mean": rounded(sum(vs) / len(vs)),
                                    "v_max": rounded(max(vs))}
    return finding("a", "IR (k, l)- and IR (alpha, beta)-anonymity leave many vulnerable classes: v is fairly "
                    "high for GeneIR and DAnonyIR (Figs. 2, 3; section 5.4)", verdict(flags), evidence,
                    f"per IR variant: v >= {HIGH_V:g} % of the classes in every run")


def _b_v_l(rows: list[dict]) -> dict:
    return _trend_finding("b", "v rises with l (Fig. 2a)", rows, "vulnerable_percent",
                          [("l", ("geneir-kl", "danonyir-kl"), True)],
                          f"per IR (k, l) variant against l: at least {TREND:.0%} of the steps up, the last above "
                          "the first")


def _c_v_danonyir(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for g, (ir, _e) in GENEIR.items():
        pairs = _pairs(rows, ir, g, "vulnerable_percent")
        if not pairs:
            continue
        above = [a > b for _, a, b in pairs]
        flags += above
        evidence[f"{VARIANTS[ir][0]} vs {VARIANTS[g][0]}"] = {
            "settings": len(pairs), "danonyir_higher_in": sum(above),
            "v": {s: [rounded(a), rounded(b)] for s, a, b in pairs}}
    return finding("c", "DAnonyIR leaves more vulnerable classes than GeneIR (Figs. 2, 3)", verdict(flags),
                    evidence, "per setting both ran: DAnonyIR's v above GeneIR's ([DAnonyIR, GeneIR] in %)")


def _d_v_alpha_beta(rows: list[dict]) -> dict:
    return _trend_finding("d", "v rises with alpha (Fig. 3a) and falls with beta (Fig. 3b)", rows,
                          "vulnerable_percent", [("alpha", ("geneir-ab", "danonyir-ab"), True),
                                                 ("beta", ("geneir-ab", "danonyir-ab"), False)],
                          f"per IR (alpha, beta) variant: at least {TREND:.0%} of the steps go the claimed way, the "
                          "last beyond the first")


def _e_v_qi(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for sweep, variants in (("qi-kl", ("geneir-kl", "danonyir-kl")), ("qi-ab", ("geneir-ab", "danonyir-ab"))):
        for v in variants:
            series = _series(rows, sweep, v, "vulnerable_percent")
            if len(series) < 2:
                continue
            ys = [y for _, y in series]
            flags.append(max(ys) - min(ys) <= FLAT_V)
            evidence[f"{VARIANTS[v][0]} {sweep}"] = {"values": {_fmt_key(x): rounded(y) for x, y in series},
                                                     "spread_points": rounded(max(ys) - min(ys))}
    return finding("e", "the size of QI almost does not affect v (Figs. 2b, 3c)", verdict(flags),
                    evidence or {"needs": "two values of |QI|"},
                    f"per IR variant against |QI|: v spreads over at most {FLAT_V:g} percentage points")


def _f_geneir_loss(rows: list[dict]) -> dict:
    evidence, in_band, higher = {}, [], []
    for g, mine in GENEIR.items():
        for d in mine:
            pairs = _pairs(rows, g, d, "nloss")
            if not pairs:
                continue
            ratios = [a / b for _, a, b in pairs if b > 0]
            in_band += [GENEIR_BAND[0] <= x <= GENEIR_BAND[1] for x in ratios]
            higher += [x > 1 for x in ratios]
            evidence[f"{VARIANTS[g][0]} / {VARIANTS[d][0]}"] = {
                "settings": len(ratios), "ratio_range": [rounded(min(ratios)), rounded(max(ratios))] if ratios else None,
                "in_band": sum(GENEIR_BAND[0] <= x <= GENEIR_BAND[1] for x in ratios)}
    holds = verdict(in_band)
    if holds == NOT and any(higher):
        holds = PARTLY
    return finding("f", "GeneIR's information loss is 1.9 to 3 times DAnonyIR's (Figs. 4, 5: 1.923-2.683 and "
                    "2.018-3.039 over the IR variants, 1.863-2.626 and 1.976-2.915 over the EIR ones)", holds,
                    evidence, f"NLoss(GeneIR) / NLoss(DAnonyIR) per setting both ran; holds when every ratio lies "
                    f"in {GENEIR_BAND[0]}-{GENEIR_BAND[1]}, partly when some do or GeneIR's loss is merely higher")


def _close(rows: list[dict], key: str) -> tuple[list[bool], list[bool], dict]:
    """EIR over IR variant ratios of ``key``: (within CLOSE, at least 1), with evidence."""
    close, above, evidence = [], [], {}
    for ir, e in ENHANCED.items():
        pairs = _pairs(rows, e, ir, key)
        ratios = [a / b for _, a, b in pairs if b]
        if not ratios:
            continue
        close += [abs(x - 1) <= CLOSE for x in ratios]
        above += [x >= 1 for x in ratios]
        evidence[f"{VARIANTS[e][0]} / {VARIANTS[ir][0]}"] = {"settings": len(ratios),
                                                             "ratio_range": [rounded(min(ratios)), rounded(max(ratios))]}
    return close, above, evidence


def _g_eir_close(rows: list[dict]) -> dict:
    close, above, evidence = _close(rows, "nloss")
    holds = verdict([c and a for c, a in zip(close, above)])
    if holds == NOT and any(close):
        holds = PARTLY
    return finding("g", "the EIR variants' information loss is higher than, and close to, the IR variants' "
                    "(DAnonyIR_El / DAnonyIR_kl 1.0148-1.0347, DAnonyIR_Eab / DAnonyIR_ab 1.0127-1.0519; Figs. 4, 5)",
                    holds, evidence, f"NLoss ratio per setting; holds when every ratio is in [1, {1 + CLOSE:g}]; "
                    f"partly when some are within {CLOSE:.0%} of 1")


def _h_loss_trends(rows: list[dict]) -> dict:
    all_kl, all_ab = ("geneir-kl", "danonyir-kl", "danonyir-el"), ("geneir-ab", "danonyir-ab", "danonyir-eab")
    return _trend_finding("h", "NLoss rises with l and |QI| (Fig. 4) and falls with alpha and beta, rising with "
                          "|QI| (Fig. 5)", rows, "nloss",
                          [("l", all_kl, True), ("qi-kl", all_kl, True), ("alpha", all_ab, False),
                           ("beta", all_ab, False), ("qi-ab", all_ab, True)],
                          f"per variant and sweep: at least {TREND:.0%} of the steps go the claimed way, the last "
                          "beyond the first")


def _i_error_trends(rows: list[dict]) -> dict:
    all_kl, all_ab = ("geneir-kl", "danonyir-kl", "danonyir-el"), ("geneir-ab", "danonyir-ab", "danonyir-eab")
    return _trend_finding("i", "the query error (lambda = 1) rises with l (Fig. 6a) and falls with alpha and beta "
                          "(Figs. 7a, 7b)", rows, "query_error_1",
                          [("l", all_kl, True), ("alpha", all_ab, False), ("beta", all_ab, False)],
                          f"per variant and sweep: at least {TREND:.0%} of the steps go the claimed way, the last "
                          "beyond the first")


def _j_error_lambda(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for v in VARIANTS:
        part = [r for r in rows if r["variant"] == v and r["query_error_1"] is not None
                and r["query_error_qi"] is not None and r["qi"] > 1]
        if not part:
            continue
        lower = [r["query_error_qi"] < r["query_error_1"] for r in part]
        flags += lower
        evidence[VARIANTS[v][0]] = {"runs": len(part), "lambda_qi_lower_in": sum(lower),
                                    "mean_lambda_1": rounded(sum(r["query_error_1"] for r in part) / len(part)),
                                    "mean_lambda_qi": rounded(sum(r["query_error_qi"] for r in part) / len(part))}
    for sweep in ("qi-kl", "qi-ab"):
        for v in VARIANTS:
            got = _trend(_series(rows, sweep, v, "query_error_qi"), up=False)
            if got is not None:
                flags.append(got[0])
                evidence[f"{VARIANTS[v][0]} {sweep}, lambda = |QI|"] = {**got[1], "falls": got[0]}
    return finding("j", "the query error falls as the query dimension rises (Figs. 6b, 7c)", verdict(flags),
                    evidence, "per run with |QI| > 1: the mean error of the lambda = |QI| queries below that of "
                    f"lambda = 1; per variant against |QI| (lambda = |QI|, the figures' curves): at least {TREND:.0%} "
                    "of the steps down, the last below the first")


def _k_error_algorithms(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for g, mine in GENEIR.items():
        for d in mine:
            for key in ("query_error_1", "query_error_qi"):
                pairs = _pairs(rows, d, g, key)
                if not pairs:
                    continue
                lower = [a < b for _, a, b in pairs]
                flags += lower
                evidence[f"{VARIANTS[d][0]} < {VARIANTS[g][0]} ({key})"] = {"settings": len(pairs),
                                                                            "lower_in": sum(lower)}
    close, _above, ev = _close(rows, "query_error_1")
    flags += close
    evidence.update({f"{k} (query_error_1)": dict(v, within=f"{CLOSE:.0%}") for k, v in ev.items()})
    return finding("k", "DAnonyIR's query error is below GeneIR's, and the EIR variants' close to the IR "
                    "variants' (section 5.2.2)", verdict(flags), evidence,
                    f"per setting both ran: DAnonyIR's mean error below GeneIR's (both lambdas); the EIR / IR "
                    f"ratio at lambda = 1 within {CLOSE:.0%} of 1")


def _l_runtime(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for g, mine in GENEIR.items():
        for d in mine:
            pairs = _pairs(rows, g, d, "runtime")
            if not pairs:
                continue
            faster = [a < b for _, a, b in pairs]
            flags += faster
            evidence[f"{VARIANTS[g][0]} vs {VARIANTS[d][0]}"] = {
                "settings": len(pairs), "geneir_faster_in": sum(faster),
                "seconds_range": {"geneir": [rounded(min(a for _, a, _ in pairs)), rounded(max(a for _, a, _ in pairs))],
                                  "danonyir": [rounded(min(b for _, _, b in pairs)), rounded(max(b for _, _, b in pairs))]}}
    return finding("l", "GeneIR runs faster than DAnonyIR (Figs. 8, 9; section 5.3)", verdict(flags), evidence,
                    "per setting both ran: GeneIR's algorithm seconds below DAnonyIR's")


def _m_runtime_trends(rows: list[dict]) -> dict:
    plan = [(s, ("danonyir-kl", "danonyir-el") if s in ("l", "qi-kl") else ("danonyir-ab", "danonyir-eab"), up > 0)
            for s, up in ALGORITHM_SWEEPS.items()]
    return _trend_finding("m", "DAnonyIR's runtime rises with l and |QI| (Fig. 8) and falls with alpha and beta, "
                          "rising with |QI| (Fig. 9)", rows, "runtime", plan,
                          f"per DAnonyIR variant and sweep: at least {TREND:.0%} of the steps go the claimed way, "
                          "the last beyond the first (wall-clock seconds of the algorithm phase)")


CHECKS = (_a_high, _b_v_l, _c_v_danonyir, _d_v_alpha_beta, _e_v_qi, _f_geneir_loss, _g_eir_close, _h_loss_trends,
          _i_error_trends, _j_error_lambda, _k_error_algorithms, _l_runtime, _m_runtime_trends)


def findings(rows: list[dict]) -> list[dict]:
    """Section 5's claims checked against ``rows``: each ``{id, claim, holds, evidence, note}``,
    ``holds`` one of "holds", "partly", "does not hold", "n/a" (the rows lack what it needs)."""
    return [check(rows) for check in CHECKS]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, rule, the numbers behind it."""
    return shared_format(found, "004")


