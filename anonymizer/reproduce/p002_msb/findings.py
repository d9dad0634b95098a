"""Paper 002's claims (section 5, Figures 2-23) checked against the experiment's rows
(:mod:`.experiment`): (a) to (l), each a finding whose verdict follows from its printed
checks (:func:`anonymizer.reproduce.findings.finding`, by its rule of the checks met)."""

from __future__ import annotations

from anonymizer.reproduce import findings as shared
from anonymizer.reproduce.findings import Check, check, finding, rounded, trend
from anonymizer.reproduce.p002_msb.experiment import BASELINES, EPS, MSLF, SIZE_D, present_algorithms

TREND = 0.75                   # (h): a trend (findings.trend): at least 75 % of the steps that way, the fit too
NEAR_ZERO = 0.01               # (c): "tends to 0": the loss at the largest d at most 0.01
STABLE = 0.01                  # (g): an upper-half spread of at most 0.01 counts as stable whatever the lower half
SMALL_COST = 1.5               # (h): "only a small increase": MSLF's seconds at most 1.5x its baseline's
OTHERS = ("msdcf-mslf", "mmdcf-mslf")


def _series(rows: list[dict], sweep: str, algorithm: str, key: str) -> list[tuple[int, float]]:
    """(setting, ``key`` rounded as printed) of ``algorithm`` over ``sweep``, by setting."""
    return sorted((r["setting"], rounded(r[key])) for r in rows if r["sweep"] == sweep and r["algorithm"] == algorithm)


def _share(ys: list[float], up: bool) -> float:
    """The share of the steps of ``ys`` going up (``up``) or not going up."""
    steps = [(b > a) == up for a, b in zip(ys, ys[1:])]
    return sum(steps) / len(steps)


def _a_no_suppression(rows: list[dict]) -> dict:
    """Sections 5.1-5.4 (Figs. 3, 6, 9, 12, 15, 18): the MSLF variants' suppression ratio is 0."""
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    for b, m in MSLF.items():
        mine = [rounded(r["suppression_ratio"]) for r in rows if r["algorithm"] == m]
        base = [r["suppression_ratio"] for r in rows if r["algorithm"] == b]
        if not mine:
            continue
        checks[f"{m}: greatest suppression ratio"] = check(max(mine), "== 0")
        context[m] = {"runs": len(mine), "runs_suppressing": sum(x > 0 for x in mine)}
        if base:
            context[b] = {"suppression_ratio_range": [rounded(min(base)), rounded(max(base))]}
    return finding("a", "the MSLF variants suppress nothing: suppression ratio 0 at every n and d", checks,
                   "per variant: its greatest suppression ratio over the runs is 0", context)


def _b_loss_vs_baseline(rows: list[dict]) -> dict:
    """Sections 5.1-5.3 (Figs. 2, 5, 8, 11, 14, 17): per setting, MSLF loss - baseline loss;
    'a little' = by at most the baseline's suppression ratio (the loss it trades against)."""
    by = {(r["sweep"], r["setting"], r["algorithm"]): r for r in rows}
    checks, context = {}, {}
    for b, m in MSLF.items():
        pairs = [(by[s, v, b], by[s, v, m]) for (s, v, a) in by if a == b and (s, v, m) in by]
        if not pairs:
            continue
        diffs = [pm["additional_information_loss"] - pb["additional_information_loss"] for pb, pm in pairs]
        checks[f"{m} - {b}: least loss increase"] = check(min(diffs), "> 0")
        checks[f"{m} - {b}: greatest of loss increase - {b}'s suppression ratio"] = check(
            max(x - pb["suppression_ratio"] for x, (pb, _) in zip(diffs, pairs)), "<= 0")
        context[f"{m} - {b}"] = {"settings": len(pairs), "loss_higher_in": sum(rounded(x) > 0 for x in diffs),
                                 "not_higher_at": [f"n={pb['n']} d={pb['d']}" for x, (pb, _) in zip(diffs, pairs)
                                                   if rounded(x) <= 0],
                                 "increase_mean": rounded(sum(diffs) / len(diffs)), "increase_max": rounded(max(diffs))}
    return finding("b", "MSLF's additional information loss 'increases a little' over its baseline's", checks,
                   "per variant, over the settings of both sweeps: the least increase of its loss over its "
                   "baseline's above 0 (higher in every setting), and the greatest increase minus the baseline's "
                   "suppression ratio in that setting at most 0 (the yardstick for 'a little')", context)


def _c_baseline_with_d(rows: list[dict]) -> dict:
    """Sections 5.1-5.3 (Figs. 5-6, 11-12, 17-18): a baseline's loss "tends to be 0 quickly"
    and its suppression ratio "increases very fast" with d."""
    checks, context = {}, {}
    for b in BASELINES:
        sup = _series(rows, "d", b, "suppression_ratio")
        loss = _series(rows, "d", b, "additional_information_loss")
        if len(sup) < 2:
            continue
        checks[f"{b}: trend of the suppression ratio over d"] = check(trend([[v for _, v in sup]]), "== 1")
        checks[f"{b}: share of d steps the loss does not rise"] = check(_share([v for _, v in loss], False), "== 1")
        checks[f"{b}: loss at the largest d"] = check(loss[-1][1], f"<= {NEAR_ZERO:g}")
        context[b] = {"suppression_ratio_by_d": dict(sup), "loss_by_d": dict(loss)}
    return finding("c", "baselines: with d the suppression ratio grows quickly while the additional "
                   "information loss tends to 0", checks,
                   "per baseline: the suppression ratio rises at every step of d (its trend, judged whole, is 1); "
                   f"the loss rises at no step and ends at most {NEAR_ZERO:g}", context)


def _d_mslf_with_d(rows: list[dict]) -> dict:
    """Sections 5.1-5.3 (Figs. 5, 11, 17): with d an MSLF variant's loss "increases quickly
    and then decreases slowly". The peak is the first greatest loss; rise and fall per step
    are the change to and from it over the steps before and after it (0 without such steps)."""
    checks, context = {}, {}
    for m in MSLF.values():
        loss = _series(rows, "d", m, "additional_information_loss")
        if len(loss) < 3:
            continue
        ys = [v for _, v in loss]
        peak = max(range(len(ys)), key=ys.__getitem__)
        after = len(ys) - 1 - peak
        rise, fall = ys[peak] - ys[0], ys[peak] - ys[-1]
        steps = [b > a for a, b in zip(ys[:peak], ys[1:peak + 1])] + [b <= a for a, b in zip(ys[peak:], ys[peak + 1:])]
        checks[f"{m}: rise to the peak (peak - first)"] = check(rise, "> 0")
        checks[f"{m}: fall after the peak (peak - last)"] = check(fall, "> 0")
        checks[f"{m}: share of d steps up before the peak and not up after it"] = check(sum(steps) / len(steps), "== 1")
        checks[f"{m}: rise per step - fall per step"] = check((rise / peak if peak else 0.0)
                                                               - (fall / after if after else 0.0), "> 0")
        context[m] = {"loss_by_d": dict(loss), "peak_at_d": loss[peak][0]}
    return finding("d", "MSLF: with d the additional information loss 'increases quickly and then "
                   "decreases slowly'", checks,
                   "per variant: the greatest loss above the first and the last (a peak at an inner d), the loss "
                   "rising at every step before the peak and at none after it, and rising faster per step than it "
                   "falls", context)


def _compare_to_mbf(rows: list[dict], sweep: str, where) -> dict[int, dict]:
    by = {(r["setting"], r["algorithm"]): r["additional_information_loss"] for r in rows
          if r["sweep"] == sweep and where(r)}
    out = {}
    for s in sorted({s for s, _ in by}):
        if (s, "mbf-mslf") not in by:
            continue
        out[s] = {a: rounded(by[s, a]) for a in ("mbf-mslf",) + OTHERS if (s, a) in by}
    return out


def _e_low_d(rows: list[dict]) -> dict:
    """Section 5.4 (Fig. 20): at d = 3, MSDCF-MSLF's and MMDCF-MSLF's loss below MBF-MSLF's."""
    table = _compare_to_mbf(rows, "n", lambda r: r["d"] == SIZE_D)
    checks = {f"{a} - mbf-mslf: greatest over n": check(max(t[a] - t["mbf-mslf"] for t in table.values() if a in t),
                                                         "< 0")
              for a in OTHERS if any(a in t for t in table.values())}
    lower = {a: sum(t[a] < t["mbf-mslf"] for t in table.values() if a in t) for a in OTHERS}
    return finding("e", f"at d = {SIZE_D}, MSDCF-MSLF and MMDCF-MSLF have a lower additional information "
                   "loss than MBF-MSLF (Figure 20, every n)", checks,
                   "per variant: its loss minus MBF-MSLF's, at its greatest over the n of sweep (1), below 0",
                   {"loss_by_n": table, "lower_than_mbf_mslf_in": lower, "settings": len(table)})


def _f_high_d(rows: list[dict]) -> dict:
    """Section 5.4 (Fig. 22) and the conclusion: with d, MSDCF-MSLF's and MMDCF-MSLF's loss
    is first lower than MBF-MSLF's, then higher."""
    table = _compare_to_mbf(rows, "d", lambda r: True)
    checks: dict[str, Check] = {}
    for a in OTHERS:
        diffs = [(d, t[a] - t["mbf-mslf"]) for d, t in table.items() if a in t]
        if len(diffs) < 2:
            continue
        checks[f"{a} - mbf-mslf: least below the largest d"] = check(min(x for _, x in diffs[:-1]), "< 0")
        checks[f"{a} - mbf-mslf at the largest d ({diffs[-1][0]})"] = check(diffs[-1][1], "> 0")
    return finding("f", "with larger d, MSDCF-MSLF's and MMDCF-MSLF's loss becomes higher than MBF-MSLF's "
                   "(first lower, then higher; Figure 22)", checks,
                   "per variant: its loss minus MBF-MSLF's below 0 at some d before the largest (first lower), and "
                   "above 0 at the largest d (then higher)", {"loss_by_d": table})


def _g_stable_with_n(rows: list[dict]) -> dict:
    """Sections 5.1-5.3 (Figs. 2-3, 8-9, 14-15): the loss and the suppression ratio "tend to
    be stable" as n grows: over the upper half of the sizes each varies by at most its
    allowance, the larger of STABLE and half its variation over the lower half."""
    checks, context = {}, {}
    for a in present_algorithms(rows):
        for key, short in (("additional_information_loss", "loss"), ("suppression_ratio", "suppression")):
            s = _series(rows, "n", a, key)
            if len(s) < 4:
                continue
            half = len(s) // 2
            head = [v for _, v in s[:half]]
            tail = [v for _, v in s[half:]]
            head_spread, tail_spread = max(head) - min(head), max(tail) - min(tail)
            checks[f"{a} {short}: upper-half spread - allowance"] = check(
                tail_spread - max(STABLE, head_spread / 2), "<= 0")
            context[f"{a} {short}"] = {"lower_half_spread": rounded(head_spread),
                                       "upper_half_spread": rounded(tail_spread),
                                       "upper_half_range": [min(tail), max(tail)]}
    return finding("g", "the additional information loss and the suppression ratio tend to be stable "
                   "as n grows", checks,
                   "per algorithm, for the loss and for the suppression ratio: the spread over the upper half of "
                   f"the sizes minus its allowance (the larger of {STABLE:g} and half the spread over the lower half) "
                   "at most 0", context)


def _h_runtime(rows: list[dict]) -> dict:
    """Sections 5.1-5.4 (Figs. 4, 7, 10, 13, 16, 19, 21, 23): runtime grows with n and d
    ("increase gradually"); MSLF's runtime "is only a small increase" over its baseline's, and
    MSDCF-MSLF's and MMDCF-MSLF's over MBF-MSLF's (section 5.4)."""
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    for sweep in ("n", "d"):
        for a in present_algorithms(rows):
            ys = [v for _, v in _series(rows, sweep, a, "algorithm_seconds")]
            if len(ys) >= 2:
                checks[f"{a}: trend over {sweep}"] = check(trend([ys]), f">= {TREND:g}")
                context.setdefault(a, {})[f"seconds_{sweep}_first_last"] = [ys[0], ys[-1]]
    for a in present_algorithms(rows):
        steps = {r["setting"]: r["greedy_steps"] / max(r["groups"], 1) for r in rows
                 if r["sweep"] == "n" and r["algorithm"] == a}
        if steps:   # why the work grows with n: about one greedy step per group
            context.setdefault(a, {})[f"greedy_steps_per_group_n_{max(steps)}"] = rounded(steps[max(steps)])
    by = {(r["sweep"], r["setting"], r["algorithm"]): r["algorithm_seconds"] for r in rows}
    for b, m in [*MSLF.items(), *((MSLF["mbf"], o) for o in OTHERS)]:
        pairs = [(by[k], by[k[0], k[1], m]) for k in by if k[2] == b and (k[0], k[1], m) in by]
        if pairs:
            checks[f"{m} / {b}: total seconds"] = check(sum(y for _, y in pairs) / max(sum(x for x, _ in pairs), EPS),
                                                        f"<= {SMALL_COST:g}")
    return finding("h", "runtime grows with n and with d, an MSLF variant costs only a little more than its "
                   "baseline, and MSDCF-MSLF and MMDCF-MSLF only a little more than MBF-MSLF", checks,
                   "algorithm seconds (not the paper's C++ CPU time; noisy for small runs): per algorithm and sweep, "
                   f"its trend judged whole (at least {TREND:.0%} of the steps up, with the fitted slope up too); "
                   f"each MSLF variant's total over the settings both ran at most {SMALL_COST:g}x its baseline's, and "
                   f"MSDCF-MSLF's and MMDCF-MSLF's at most {SMALL_COST:g}x MBF-MSLF's. Greedy "
                   "steps per group at the largest n: the exact greedy forms about one group per step (it takes a "
                   "group again only when it can prove the one-record greedy would, which tied keys on Adult rarely "
                   "allow), so its work grows with n, at microseconds per group (compiled)", context)


def _i_runtime_faster(rows: list[dict]) -> dict:
    """Sections 5.1-5.4 (Figs. 4, 7, 10, 13, 16, 19, 21, 23), eight sentences: "the CPU runtime
    of MBF-MSLF increases faster than that of MBF" (and MSDCF's, MMDCF's pairs, over n and
    over d); "the CPU runtime of MSDCF-MSLF or MMDCF-MSLF increases faster than that of
    MBF-MSLF" (over n and over d). Faster = the gap between the two widens: the trend of the
    faster one's seconds minus the other's, over the settings both ran, judged whole."""
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    by = {(r["sweep"], r["setting"], r["algorithm"]): r["algorithm_seconds"] for r in rows}
    for slow, fast in [*MSLF.items(), *((MSLF["mbf"], o) for o in OTHERS)]:
        for sweep in ("n", "d"):
            settings = sorted(v for s, v, a in by if s == sweep and a == slow and (s, v, fast) in by)
            if len(settings) < 2:
                continue
            gap = [by[sweep, v, fast] - by[sweep, v, slow] for v in settings]
            checks[f"{fast} - {slow}: trend over {sweep}"] = check(trend([gap]), f">= {TREND:g}")
            context[f"{fast} - {slow}, {sweep}"] = {str(v): rounded(g) for v, g in zip(settings, gap)}
    return finding("i", "an MSLF variant's runtime increases faster than its baseline's, and MSDCF-MSLF's and "
                   "MMDCF-MSLF's faster than MBF-MSLF's, with n and with d", checks,
                   "per pair and sweep: the faster one's algorithm seconds minus the other's widen, their trend judged "
                   f"whole (at least {TREND:.0%} of the steps up, with the fitted slope up too); seconds of one run "
                   "each, so a step within the timing's noise can go either way", context)


def _j_fewer_groups(rows: list[dict]) -> dict:
    """Sections 5.1-5.3: as d grows "fewer and fewer groups can be formed" by a baseline."""
    checks: dict[str, Check] = {}
    context: dict[str, list] = {}
    for b in BASELINES:
        series = _series(rows, "d", b, "groups")
        if len(series) > 1:
            checks[f"{b}: groups, trend over d"] = check(trend([[y for _, y in series]], up=False), f">= {TREND:g}")
            context[b] = [y for _, y in series]
    return finding("j", "as d grows, fewer and fewer groups can be formed by MBF, MSDCF and MMDCF", checks,
                   f"per baseline: its groups over d, judged whole (at least {TREND:.0%} of the steps down, with the "
                   "fitted slope down)", context)


def _added(rows: list[dict], sweep: str) -> dict[str, list[tuple[int, float]]]:
    """Per other MSLF variant: (setting, its records added by MSLF minus MBF-MSLF's) over ``sweep``."""
    by = {(r["setting"], r["algorithm"]): r["residual_added"] for r in rows if r["sweep"] == sweep}
    return {o: [(v, by[v, o] - by[v, "mbf-mslf"]) for v, a in sorted(by) if a == o and (v, "mbf-mslf") in by]
            for o in OTHERS}


def _k_added_fewer(rows: list[dict]) -> dict:
    """Section 5.4 (Fig. 20): over n, "the added records of MSDCF-MSLF or MMDCF-MSLF is less than
    those of MBF-MSLF"."""
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    for o, diffs in _added(rows, "n").items():
        if diffs:
            checks[f"{o} - mbf-mslf: greatest difference of records added"] = check(max(d for _, d in diffs), "< 0")
            context[f"{o} - mbf-mslf"] = {str(v): d for v, d in diffs}
    return finding("k", "over n, MSDCF-MSLF and MMDCF-MSLF add fewer records to formed groups than MBF-MSLF", checks,
                   "per variant over the sizes both ran: its records added by MSLF minus MBF-MSLF's, the greatest "
                   "below 0", context)


def _l_added_then_more(rows: list[dict]) -> dict:
    """Section 5.4 (Fig. 22): over d, "the added records of MSDCF-MSLF or MMDCF-MSLF is first less
    than those of MBF-MSLF, and then more"."""
    checks: dict[str, Check] = {}
    context: dict[str, dict] = {}
    for o, diffs in _added(rows, "d").items():
        if len(diffs) > 1:
            checks[f"{o} - mbf-mslf: records added, least below the largest d"] = check(
                min(d for _, d in diffs[:-1]), "< 0")
            checks[f"{o} - mbf-mslf at the largest d ({diffs[-1][0]}): records added"] = check(diffs[-1][1], "> 0")
            context[f"{o} - mbf-mslf"] = {str(v): d for v, d in diffs}
    return finding("l", "over d, MSDCF-MSLF and MMDCF-MSLF first add fewer records than MBF-MSLF, then more", checks,
                   "per variant: its records added by MSLF minus MBF-MSLF's, below 0 at some d before the largest "
                   "(first fewer) and above 0 at the largest (then more), read as (f) reads the same words", context)


CHECKS = (_a_no_suppression, _b_loss_vs_baseline, _c_baseline_with_d, _d_mslf_with_d, _e_low_d, _f_high_d,
          _g_stable_with_n, _h_runtime, _i_runtime_faster, _j_fewer_groups, _k_added_fewer, _l_added_then_more)


def findings(rows: list[dict]) -> list[dict]:
    """The paper's claims checked against ``rows``: each ``{id, claim, holds, note, checks, context}``,
    ``holds`` the verdict of :func:`anonymizer.reproduce.findings.verdict` ("n/a": the rows lack what it needs)."""
    return [claim(rows) for claim in CHECKS]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, the rule, each check, the context."""
    return shared.format_findings(found, "002")
