"""Paper 002's claims (section 5, Figures 2-23) checked against the experiment's rows
(:mod:`.experiment`)."""

from __future__ import annotations

from anonymizer.reproduce import findings as shared
from anonymizer.reproduce.findings import finding, rounded, verdict
from anonymizer.reproduce.p002_msb.experiment import BASELINES, EPS, MSLF, SIZE_D, present_algorithms

#: this experiment's verdicts (every step agrees, none, some, no evidence)
WORDS = ("true", "false", "partly", "n/a")


def _series(rows: list[dict], sweep: str, algorithm: str, key: str) -> list[tuple[int, float]]:
    return sorted((r["setting"], r[key]) for r in rows if r["sweep"] == sweep and r["algorithm"] == algorithm)


def _a_no_suppression(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for b, m in MSLF.items():
        mine = [r["suppression_ratio"] for r in rows if r["algorithm"] == m]
        base = [r["suppression_ratio"] for r in rows if r["algorithm"] == b]
        if not mine:
            continue
        flags.append(max(mine) <= EPS)
        evidence[m] = {"max_suppression_ratio": rounded(max(mine)), "runs": len(mine),
                       "runs_suppressing": sum(x > EPS for x in mine)}
        if base:
            evidence[b] = {"suppression_ratio_range": [rounded(min(base)), rounded(max(base))]}
    return finding("a", "the MSLF variants suppress nothing: suppression ratio 0 at every n and d",
                    verdict(flags, WORDS), evidence, "true per variant when no run of it suppresses a record")


def _b_loss_vs_baseline(rows: list[dict]) -> dict:
    """Per setting: MSLF loss - baseline loss; 'a little' = more than the baseline's, and by
    less than the baseline's suppression ratio (the loss it trades against)."""
    by = {(r["sweep"], r["setting"], r["algorithm"]): r for r in rows}
    evidence, flags_up, flags_small = {}, [], []
    for b, m in MSLF.items():
        pairs = [(s, by[s, v, b], by[s, v, m]) for (s, v, a) in by if a == b and (s, v, m) in by]
        if not pairs:
            continue
        diffs = [pm["additional_information_loss"] - pb["additional_information_loss"] for _, pb, pm in pairs]
        up = [x > EPS for x in diffs]
        small = [x <= pb["suppression_ratio"] + EPS for x, (_, pb, _) in zip(diffs, pairs)]
        flags_up += up
        flags_small += small
        evidence[f"{m} - {b}"] = {"settings": len(pairs), "loss_higher_in": sum(up),
                                  "not_higher_at": [f"n={pb['n']} d={pb['d']}" for (_, pb, _), u in zip(pairs, up)
                                                    if not u],
                                  "increase_min": rounded(min(diffs)), "increase_mean": rounded(sum(diffs) / len(diffs)),
                                  "increase_max": rounded(max(diffs)),
                                  "increase_below_baseline_suppression_in": sum(small)}
    if not flags_up:
        holds = "n/a"
    elif all(flags_up) and all(flags_small):
        holds = "true"
    elif any(flags_up):
        holds = "partly"
    else:
        holds = "false"
    return finding("b", "MSLF's additional information loss 'increases a little' over its baseline's",
                    holds, evidence, "true when the MSLF loss is higher in every setting (both sweeps) and "
                    "the increase stays below the baseline's suppression ratio in that setting (the "
                    "yardstick for 'a little'); partly when higher in some settings or by more")


def _c_baseline_with_d(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for b in BASELINES:
        sup = _series(rows, "d", b, "suppression_ratio")
        loss = _series(rows, "d", b, "additional_information_loss")
        if len(sup) < 2:
            continue
        grows = all(y > x + EPS for (_, x), (_, y) in zip(sup, sup[1:]))
        to_zero = loss[-1][1] <= EPS + 0.01 and all(y <= x + EPS for (_, x), (_, y) in zip(loss, loss[1:]))
        flags += [grows, to_zero]
        evidence[b] = {"suppression_ratio_by_d": {d: rounded(v) for d, v in sup},
                       "loss_by_d": {d: rounded(v) for d, v in loss},
                       "suppression_grows": grows, "loss_falls_to_0": to_zero}
    return finding("c", "baselines: with d the suppression ratio grows quickly while the additional "
                    "information loss tends to 0", verdict(flags, WORDS), evidence,
                    "per baseline: the suppression ratio rises at every step of d; the loss never rises "
                    "and ends within 0.01 of 0")


def _d_mslf_with_d(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for m in MSLF.values():
        loss = _series(rows, "d", m, "additional_information_loss")
        if len(loss) < 3:
            continue
        values = [v for _, v in loss]
        peak = max(range(len(values)), key=values.__getitem__)
        interior = 0 < peak < len(values) - 1
        rise_ok = all(y > x for x, y in zip(values[:peak], values[1:peak + 1]))
        fall_ok = all(y <= x for x, y in zip(values[peak:], values[peak + 1:]))
        rise = (values[peak] - values[0]) / peak if peak else 0.0
        fall = (values[peak] - values[-1]) / (len(values) - 1 - peak) if peak < len(values) - 1 else 0.0
        shape = interior and rise_ok and fall_ok
        flags.append(shape and rise > fall)
        evidence[m] = {"loss_by_d": {d: rounded(v) for d, v in loss}, "peak_at_d": loss[peak][0],
                       "rise_per_step": rounded(rise), "fall_per_step": rounded(fall),
                       "rises_then_falls": shape}
    holds = verdict(flags, WORDS)
    if holds == "false" and any(e["rises_then_falls"] for e in evidence.values()):
        holds = "partly"
    return finding("d", "MSLF: with d the additional information loss 'increases quickly and then "
                    "decreases slowly'", holds, evidence,
                    "per variant: the peak is at an inner d, the loss rises at every step before it and "
                    "never rises after it, and rises faster per step than it falls")


def _compare_to_mbf(rows: list[dict], sweep: str, where) -> dict[int, dict]:
    by = {(r["setting"], r["algorithm"]): r["additional_information_loss"] for r in rows
          if r["sweep"] == sweep and where(r)}
    out = {}
    for s in sorted({s for s, _ in by}):
        if (s, "mbf-mslf") not in by:
            continue
        out[s] = {a: rounded(by[s, a]) for a in ("mbf-mslf", "msdcf-mslf", "mmdcf-mslf") if (s, a) in by}
    return out


def _e_low_d(rows: list[dict]) -> dict:
    table = _compare_to_mbf(rows, "n", lambda r: r["d"] == SIZE_D)
    flags = [t[a] < t["mbf-mslf"] for t in table.values() for a in ("msdcf-mslf", "mmdcf-mslf") if a in t]
    lower = {a: sum(t[a] < t["mbf-mslf"] for t in table.values() if a in t) for a in ("msdcf-mslf", "mmdcf-mslf")}
    return finding("e", f"at d = {SIZE_D}, MSDCF-MSLF and MMDCF-MSLF have a lower additional information "
                    "loss than MBF-MSLF (Figure 20, every n)", verdict(flags, WORDS),
                    {"loss_by_n": table, "lower_than_mbf_mslf_in": lower, "settings": len(table)},
                    "true when both are strictly lower at every n of sweep (1)")


def _f_high_d(rows: list[dict]) -> dict:
    """Per variant: lower than MBF-MSLF at some d and higher at a later one (crosses); true
    when it is also higher at the largest d, partly when it crosses and falls back."""
    table = _compare_to_mbf(rows, "d", lambda r: True)
    evidence: dict = {"loss_by_d": table}
    states = []
    ds = sorted(table)
    for a in ("msdcf-mslf", "mmdcf-mslf"):
        mine = [d for d in ds if a in table[d]]
        if len(mine) < 2:
            continue
        lower = [d for d in mine if table[d][a] < table[d]["mbf-mslf"]]
        higher = [d for d in mine if table[d][a] > table[d]["mbf-mslf"]]
        crosses = bool(lower) and any(d > lower[0] for d in higher)
        at_end = mine[-1] in higher
        states.append("true" if crosses and at_end else "partly" if crosses else "false")
        evidence[a] = {"lower_than_mbf_mslf_at_d": lower, "higher_than_mbf_mslf_at_d": higher,
                       "first_lower_then_higher": crosses, "higher_at_largest_d": at_end}
    holds = "n/a" if not states else states[0] if len(set(states)) == 1 else "partly"
    return finding("f", "with larger d, MSDCF-MSLF's and MMDCF-MSLF's loss becomes higher than MBF-MSLF's "
                    "(first lower, then higher; Figure 22)", holds, evidence,
                    "per variant: true when lower than MBF-MSLF at some d, higher at a later d and still "
                    "higher at the largest d; partly when it crosses but falls back below; false when never "
                    "higher after being lower")


def _g_stable_with_n(rows: list[dict]) -> dict:
    """Loss (and suppression) over the upper half of the sizes varies less than over the lower half."""
    evidence, flags = {}, []
    for a in present_algorithms(rows):
        entry = {}
        for key, short in (("additional_information_loss", "loss"), ("suppression_ratio", "suppression")):
            s = _series(rows, "n", a, key)
            if len(s) < 4:
                continue
            half = len(s) // 2
            head = [v for _, v in s[:half]]
            tail = [v for _, v in s[half:]]
            head_spread, tail_spread = max(head) - min(head), max(tail) - min(tail)
            stable = tail_spread <= 0.01 or tail_spread <= head_spread / 2
            if key == "additional_information_loss":
                flags.append(stable)
            entry[short] = {"lower_half_spread": rounded(head_spread), "upper_half_spread": rounded(tail_spread),
                            "upper_half_range": [rounded(min(tail)), rounded(max(tail))], "stable": stable}
        if entry:
            evidence[a] = entry
    return finding("g", "the additional information loss (and the suppression ratio) tends to be stable "
                    "as n grows", verdict(flags, WORDS), evidence,
                    "per algorithm: over the upper half of the sizes the loss varies by at most 0.01 or by "
                    "at most half its variation over the lower half (the suppression ratio is reported "
                    "the same way; the verdict is on the loss)")


def _h_runtime(rows: list[dict]) -> dict:
    """Runtime grows with n and d; MSLF costs only a little more than its baseline."""
    evidence, grow, ratios = {}, [], []
    for a in present_algorithms(rows):
        entry = {}
        for sweep in ("n", "d"):
            s = _series(rows, sweep, a, "algorithm_seconds")
            if len(s) >= 2:
                ok = s[-1][1] > s[0][1]
                grow.append(ok)
                entry[f"seconds_{sweep}_{s[0][0]}_to_{s[-1][0]}"] = [rounded(s[0][1]), rounded(s[-1][1])]
        steps = {n: r["greedy_steps"] / max(r["groups"], 1) for r in rows
                 if r["sweep"] == "n" and r["algorithm"] == a for n in [r["setting"]]}
        if steps:   # why the work grows with n: about one greedy step per group
            entry[f"greedy_steps_per_group_n_{max(steps)}"] = rounded(steps[max(steps)])
        if entry:
            evidence[a] = entry
    by = {(r["sweep"], r["setting"], r["algorithm"]): r["algorithm_seconds"] for r in rows}
    for b, m in MSLF.items():
        pairs = [(by[k], by[k[0], k[1], m]) for k in by if k[2] == b and (k[0], k[1], m) in by]
        if pairs:
            ratio = sum(y for _, y in pairs) / max(sum(x for x, _ in pairs), EPS)
            ratios.append(ratio)
            evidence[f"{m} / {b} seconds"] = rounded(ratio)
    flags = grow + [r <= 1.5 for r in ratios]
    return finding("h", "runtime grows with n and with d, and an MSLF variant costs only a little more "
                    "than its baseline", verdict(flags, WORDS), evidence,
                    "algorithm seconds (not the paper's C++ CPU time; noisy for small runs): larger at "
                    "the last setting than at the first, and MSLF's total over all settings within 1.5x "
                    "its baseline's. Greedy steps per group at the largest n: the exact greedy "
                    "forms about one group per step (it takes a group again only when it can prove "
                    "the one-record greedy would, which tied keys on Adult rarely allow), so its work "
                    "grows with n, at microseconds per group (compiled)")


CHECKS = (_a_no_suppression, _b_loss_vs_baseline, _c_baseline_with_d, _d_mslf_with_d, _e_low_d, _f_high_d,
          _g_stable_with_n, _h_runtime)


def findings(rows: list[dict]) -> list[dict]:
    """The paper's claims checked against ``rows``: each ``{id, claim, holds, evidence, note}``
    with ``holds`` one of "true", "false", "partly" or "n/a" (the rows lack what it needs)."""
    return [check(rows) for check in CHECKS]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, the rule, the numbers behind it."""
    return shared.format_findings(found, "002")
