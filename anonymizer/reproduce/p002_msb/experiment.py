"""Paper 002's experiment (section 5, Tables 2-4) on the bundled UCI Adult data.

"The microdata contains 30162 complete records ... the Occupation field, the Education field,
the Marital field, the Workclass field and the Race field are chosen as multiple sensitive
attributes ... (1) changing the number of records (i.e., the value of n is from 1000 to 10000)
when the number of sensitive attributes is set to three; (2) changing the number of sensitive
attributes (i.e., the value of d is from 2 to 5) when the number of records is set to 2000."
Each of MBF, MSDCF, MMDCF (``multi-l-diversity``, l = 3) and their MSLF variants
(``lsl-diversity``, l0, l1, l2 = 1, 2, 3) runs on every setting; the paper compares the
additional information loss (Definition 14), the suppression ratio (Definition 15) and the
CPU runtime (its Figures 2-23).

Choices (the paper does not give them):

- Records: the 30,162 rows of ``adult.data`` without a missing workclass, occupation or
  native-country (the paper's "complete records"). A sample of n is drawn in SQL, ordered by
  ``hash(rowid, seed)`` (the row's position in ``adult.data``), so it is deterministic, the
  same for every algorithm at a given n, and the samples are nested (the 1000 records are
  among the 2000). Sensitive values absent from a sample are dropped from Table 3's
  overrides (a spec naming a value absent from the data is an error).
- Composite sensitive attributes: Table 4 (d = 2: occupation, education; 3: + marital;
  4: + workclass; 5: + race); security levels: Table 3 (:mod:`anonymizer.reproduce.p002_msb.setting`).
- Quasi-identifiers: age, sex, native-country, the fields left over from the paper's nine
  (its Table 2 names only the sensitive ones). The paper does not say which QIs it used; it
  does not matter here, since MSB forms its groups from the sensitive values alone (the QI
  table only carries each record's group id).
- Greedy: ``batch="exact"`` by default, the paper's one-record-at-a-time greedy (a fraction
  batches steps; see :mod:`anonymizer.families.anatomy.greedy`); ties broken by a seeded
  hash of the sensitive vector (the paper picks tied buckets at random).
- Runtime: ``algorithm_seconds`` is the release's algorithm phase (bucket counts in SQL, the
  greedy, the assignment of rows to groups), ``greedy_seconds`` the greedy alone,
  ``total_seconds`` the whole release (load, verification and publication of both anatomy
  tables included). The paper's figures are CPU seconds of a C++ program, not comparable.

The run at n = 2000, d = 3 belongs to both sweeps; it runs once and gives a row to each.
:func:`findings` checks the paper's claims against the rows, with the numbers behind each
verdict; nothing in it is hard-coded.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable, Sequence

import duckdb

from anonymizer.demo import load_adult
from anonymizer.errors import SpecError
from anonymizer.reproduce.p002_msb.setting import ADULT_COLUMNS, ALGORITHMS, TABLE4, msb_spec
from anonymizer.engine.names import ident

SIZES: tuple[int, ...] = tuple(range(1000, 10001, 1000))   # sweep (1): n, at d = SIZE_D
DIMS: tuple[int, ...] = (2, 3, 4, 5)                        # sweep (2): d, at n = DIM_N
SIZE_D = 3
DIM_N = 2000
QIS = ("age", "sex", "native-country")
COMPLETE = ("workclass", "occupation", "native-country")    # the columns holding Adult's '?'
SOURCE = "adult"
COMPLETE_ROWS = 30162                                       # rows of adult.data without NULL in COMPLETE
BASELINES = tuple(a for a in ALGORITHMS if not a.endswith("-mslf"))
MSLF = {b: f"{b}-mslf" for b in BASELINES}

#: a loss within this of 0 counts as 0; spreads within this count as stable
EPS = 1e-9


def sample_table(con: duckdb.DuckDBPyConnection, n: int, seed: int = 0) -> str:
    """Table ``paper002_n<n>``: ``n`` complete records of table ``adult`` (sampled by
    ``hash(rowid, seed)``); returns its name."""
    name = f"paper002_n{n}"
    complete = " AND ".join(f"{ident(c)} IS NOT NULL" for c in COMPLETE)
    con.execute(f"CREATE OR REPLACE TABLE {ident(name)} AS SELECT * FROM {ident(SOURCE)} WHERE {complete} "
                f"ORDER BY hash(rowid, {int(seed)}), rowid LIMIT {int(n)}")
    return name


def present_values(con: duckdb.DuckDBPyConnection, table: str,
                   columns: dict[str, str] = ADULT_COLUMNS) -> dict[str, list[str]]:
    """The distinct values of each of Table 2's sensitive columns in ``table`` (one aggregate)."""
    cols = list(columns.values())
    row = con.execute("SELECT " + ", ".join(f"list(DISTINCT {ident(c)})" for c in cols)
                      + f" FROM {ident(table)}").fetchone()
    return dict(zip(cols, row))


def _runs(sizes: Sequence[int], dims: Sequence[int]) -> list[tuple[int, int]]:
    """The distinct (n, d) settings of both sweeps, in order."""
    settings = [(n, SIZE_D) for n in sizes] + [(DIM_N, d) for d in dims]
    return list(dict.fromkeys(settings))


def run_experiment(con: duckdb.DuckDBPyConnection | None = None, *, sizes: Iterable[int] = SIZES,
                   dims: Iterable[int] = DIMS, algorithms: Iterable[str] = ALGORITHMS, batch: str | float = "exact",
                   seed: int = 0, progress: Callable[[str], None] | None = None) -> list[dict]:
    """Load Adult into table ``adult`` of ``con`` (a new in-memory database if ``None``), run
    every algorithm on every setting of both sweeps (each its own release
    ``paper002_n<n>_d<d>_<algorithm>``, published with ``force``) and return the rows.

    A row: ``sweep`` ("n" or "d"), ``setting`` (its n or d), ``algorithm``, ``n``, ``d``,
    ``additional_information_loss``, ``suppression_ratio``, ``groups``, ``suppressed``,
    ``residual_added``, ``greedy_steps``, ``algorithm_seconds``, ``greedy_seconds``,
    ``total_seconds``, ``release``. ``seed`` draws the samples and breaks the greedy's ties.
    """
    sizes, dims, algorithms = list(sizes), list(dims), list(algorithms)
    for d in dims:
        if d not in TABLE4:
            raise SpecError("dims", f"Table 4 has d = {min(TABLE4)} .. {max(TABLE4)}", d)
    for n in sizes:
        if not 0 < n <= COMPLETE_ROWS:
            raise SpecError("sizes", f"a sample size is 1 .. {COMPLETE_ROWS} (the complete records)", n)
    for a in algorithms:
        if a not in ALGORITHMS:
            raise SpecError("algorithms", f"one of {', '.join(ALGORITHMS)}", a)
    con = con if con is not None else duckdb.connect()
    from anonymizer.api import anonymize
    load_adult(con, SOURCE)
    measured: dict[tuple[int, int, str], dict] = {}
    tables: dict[int, tuple[str, dict]] = {}
    runs = _runs(sizes, dims)
    total = len(runs) * len(algorithms)
    for n, d in runs:
        if n not in tables:
            table = sample_table(con, n, seed)
            tables[n] = (table, present_values(con, table))
        table, present = tables[n]
        for algorithm in algorithms:
            release = f"paper002_n{n}_d{d}_{algorithm.replace('-', '_')}"
            spec = msb_spec(table, algorithm, d, QIS, present=present, batch=batch, seed=seed, release=release)
            t0 = time.perf_counter()
            result = anonymize(spec, con=con, force=True)
            wall = time.perf_counter() - t0
            notes, utility = result.algorithm, result.utility
            measured[n, d, algorithm] = {
                "algorithm": algorithm, "n": n, "d": d,
                "additional_information_loss": float(utility["additional_information_loss"]),
                "suppression_ratio": float(utility["suppression_ratio"]),
                "groups": int(notes["groups"]), "suppressed": int(notes["suppressed"]),
                "residual_added": int(notes["residual_added"]), "greedy_steps": int(notes["greedy_steps"]),
                "algorithm_seconds": float(result.timings["algorithm"]),
                "greedy_seconds": float(notes["greedy_seconds"]),
                "total_seconds": float(result.timings["total"]), "release": result.view}
            if progress:
                m = measured[n, d, algorithm]
                progress(f"[{len(measured)}/{total}] n={n} d={d} {algorithm}: loss "
                         f"{m['additional_information_loss']:.4f}, suppression {m['suppression_ratio']:.4f}, "
                         f"{m['groups']} groups, {wall:.2f} s")
    rows = [{"sweep": "n", "setting": n, **measured[n, SIZE_D, a]} for n in sizes for a in algorithms]
    rows += [{"sweep": "d", "setting": d, **measured[DIM_N, d, a]} for d in dims for a in algorithms]
    return rows


# -- tables ---------------------------------------------------------------------------------
MEASURES = (("additional_information_loss", "additional information loss (Definition 14)", "{:.4f}"),
            ("suppression_ratio", "suppression ratio (Definition 15)", "{:.4f}"),
            ("groups", "groups", "{:d}"),
            ("algorithm_seconds", "algorithm seconds (buckets, greedy, assignment)", "{:.3f}"),
            ("total_seconds", "release seconds (all phases, both anatomy tables)", "{:.3f}"))

SWEEP_TITLES = {"n": f"sweep (1): n = number of records, d = {SIZE_D} (Figures 2-4, 8-10, 14-16, 20-21)",
                "d": f"sweep (2): d = number of sensitive attributes, n = {DIM_N} (Figures 5-7, 11-13, 17-19, 22-23)"}


def _algorithms(rows: list[dict]) -> list[str]:
    present = {r["algorithm"] for r in rows}
    return [a for a in ALGORITHMS if a in present]


def format_table(rows: list[dict]) -> str:
    """One table per sweep: a block per measure, a line per n (or d), a column per algorithm."""
    algs = _algorithms(rows)
    width = max([11] + [len(a) + 1 for a in algs])
    lines: list[str] = []
    for sweep, title in SWEEP_TITLES.items():
        part = [r for r in rows if r["sweep"] == sweep]
        if not part:
            continue
        settings = list(dict.fromkeys(r["setting"] for r in part))
        cell = {(r["setting"], r["algorithm"]): r for r in part}
        if lines:
            lines.append("")
        lines += [title, "=" * len(title)]
        for key, label, fmt in MEASURES:
            lines += ["", label, f"{sweep:>6}" + "".join(f"{a:>{width}}" for a in algs)]
            for s in settings:
                cells = ["-" if (s, a) not in cell else fmt.format(cell[s, a][key]) for a in algs]
                lines.append(f"{s:>6}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


# -- findings -------------------------------------------------------------------------------
def _series(rows: list[dict], sweep: str, algorithm: str, key: str) -> list[tuple[int, float]]:
    return sorted((r["setting"], r[key]) for r in rows if r["sweep"] == sweep and r["algorithm"] == algorithm)


def _verdict(flags: list[bool]) -> str:
    if not flags:
        return "n/a"
    return "true" if all(flags) else "false" if not any(flags) else "partly"


def _r(x: float) -> float:
    return round(float(x), 4)


def _finding(key: str, claim: str, holds: str, evidence: dict, note: str) -> dict:
    return {"id": key, "claim": claim, "holds": holds, "evidence": evidence, "note": note}


def _a_no_suppression(rows: list[dict]) -> dict:
    evidence, flags = {}, []
    for b, m in MSLF.items():
        mine = [r["suppression_ratio"] for r in rows if r["algorithm"] == m]
        base = [r["suppression_ratio"] for r in rows if r["algorithm"] == b]
        if not mine:
            continue
        flags.append(max(mine) <= EPS)
        evidence[m] = {"max_suppression_ratio": _r(max(mine)), "runs": len(mine),
                       "runs_suppressing": sum(x > EPS for x in mine)}
        if base:
            evidence[b] = {"suppression_ratio_range": [_r(min(base)), _r(max(base))]}
    return _finding("a", "the MSLF variants suppress nothing: suppression ratio 0 at every n and d",
                    _verdict(flags), evidence, "true per variant when no run of it suppresses a record")


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
                                  "increase_min": _r(min(diffs)), "increase_mean": _r(sum(diffs) / len(diffs)),
                                  "increase_max": _r(max(diffs)),
                                  "increase_below_baseline_suppression_in": sum(small)}
    if not flags_up:
        holds = "n/a"
    elif all(flags_up) and all(flags_small):
        holds = "true"
    elif any(flags_up):
        holds = "partly"
    else:
        holds = "false"
    return _finding("b", "MSLF's additional information loss 'increases a little' over its baseline's",
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
        evidence[b] = {"suppression_ratio_by_d": {d: _r(v) for d, v in sup},
                       "loss_by_d": {d: _r(v) for d, v in loss},
                       "suppression_grows": grows, "loss_falls_to_0": to_zero}
    return _finding("c", "baselines: with d the suppression ratio grows quickly while the additional "
                    "information loss tends to 0", _verdict(flags), evidence,
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
        evidence[m] = {"loss_by_d": {d: _r(v) for d, v in loss}, "peak_at_d": loss[peak][0],
                       "rise_per_step": _r(rise), "fall_per_step": _r(fall),
                       "rises_then_falls": shape}
    holds = _verdict(flags)
    if holds == "false" and any(e["rises_then_falls"] for e in evidence.values()):
        holds = "partly"
    return _finding("d", "MSLF: with d the additional information loss 'increases quickly and then "
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
        out[s] = {a: _r(by[s, a]) for a in ("mbf-mslf", "msdcf-mslf", "mmdcf-mslf") if (s, a) in by}
    return out


def _e_low_d(rows: list[dict]) -> dict:
    table = _compare_to_mbf(rows, "n", lambda r: r["d"] == SIZE_D)
    flags = [t[a] < t["mbf-mslf"] for t in table.values() for a in ("msdcf-mslf", "mmdcf-mslf") if a in t]
    lower = {a: sum(t[a] < t["mbf-mslf"] for t in table.values() if a in t) for a in ("msdcf-mslf", "mmdcf-mslf")}
    return _finding("e", f"at d = {SIZE_D}, MSDCF-MSLF and MMDCF-MSLF have a lower additional information "
                    "loss than MBF-MSLF (Figure 20, every n)", _verdict(flags),
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
    return _finding("f", "with larger d, MSDCF-MSLF's and MMDCF-MSLF's loss becomes higher than MBF-MSLF's "
                    "(first lower, then higher; Figure 22)", holds, evidence,
                    "per variant: true when lower than MBF-MSLF at some d, higher at a later d and still "
                    "higher at the largest d; partly when it crosses but falls back below; false when never "
                    "higher after being lower")


def _g_stable_with_n(rows: list[dict]) -> dict:
    """Loss (and suppression) over the upper half of the sizes varies less than over the lower half."""
    evidence, flags = {}, []
    for a in _algorithms(rows):
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
            entry[short] = {"lower_half_spread": _r(head_spread), "upper_half_spread": _r(tail_spread),
                            "upper_half_range": [_r(min(tail)), _r(max(tail))], "stable": stable}
        if entry:
            evidence[a] = entry
    return _finding("g", "the additional information loss (and the suppression ratio) tends to be stable "
                    "as n grows", _verdict(flags), evidence,
                    "per algorithm: over the upper half of the sizes the loss varies by at most 0.01 or by "
                    "at most half its variation over the lower half (the suppression ratio is reported "
                    "the same way; the verdict is on the loss)")


def _h_runtime(rows: list[dict]) -> dict:
    """Runtime grows with n and d; MSLF costs only a little more than its baseline."""
    evidence, grow, ratios = {}, [], []
    for a in _algorithms(rows):
        entry = {}
        for sweep in ("n", "d"):
            s = _series(rows, sweep, a, "algorithm_seconds")
            if len(s) >= 2:
                ok = s[-1][1] > s[0][1]
                grow.append(ok)
                entry[f"seconds_{sweep}_{s[0][0]}_to_{s[-1][0]}"] = [_r(s[0][1]), _r(s[-1][1])]
        if entry:
            evidence[a] = entry
    by = {(r["sweep"], r["setting"], r["algorithm"]): r["algorithm_seconds"] for r in rows}
    for b, m in MSLF.items():
        pairs = [(by[k], by[k[0], k[1], m]) for k in by if k[2] == b and (k[0], k[1], m) in by]
        if pairs:
            ratio = sum(y for _, y in pairs) / max(sum(x for x, _ in pairs), EPS)
            ratios.append(ratio)
            evidence[f"{m} / {b} seconds"] = _r(ratio)
    flags = grow + [r <= 1.5 for r in ratios]
    return _finding("h", "runtime grows with n and with d, and an MSLF variant costs only a little more "
                    "than its baseline", _verdict(flags), evidence,
                    "algorithm seconds (not the paper's C++ CPU time; noisy for small runs): larger at "
                    "the last setting than at the first, and MSLF's total over all settings within 1.5x "
                    "its baseline's")


CHECKS = (_a_no_suppression, _b_loss_vs_baseline, _c_baseline_with_d, _d_mslf_with_d, _e_low_d, _f_high_d,
          _g_stable_with_n, _h_runtime)


def findings(rows: list[dict]) -> list[dict]:
    """The paper's claims checked against ``rows``: each ``{id, claim, holds, evidence, note}``
    with ``holds`` one of "true", "false", "partly" or "n/a" (the rows lack what it needs)."""
    return [check(rows) for check in CHECKS]


def _evidence_lines(value, indent: str) -> list[str]:
    if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
        out = []
        for k, v in value.items():
            if isinstance(v, dict):
                out.append(f"{indent}{k}:")
                out += _evidence_lines(v, indent + "  ")
            else:
                out.append(f"{indent}{k}: {v}")
        return out
    if isinstance(value, dict):
        return [indent + ", ".join(f"{k}: {v}" for k, v in value.items())]
    return [f"{indent}{value}"]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, then the numbers behind it."""
    lines = ["paper 002's claims against these rows", "====================================="]
    for f in found:
        lines += ["", f"({f['id']}) {f['holds'].upper():<7} {f['claim']}", f"    rule: {f['note']}"]
        lines += _evidence_lines(f["evidence"], "    ")
    return "\n".join(lines)
