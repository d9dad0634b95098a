"""Paper 004's experiment (section 5) on generated multi-record patients.

Wang et al. (2018) compare, on 456,767 diagnosis records of 49,384 INFORMS 2008 patients
(Table 5's attributes, the front |QI| of them as QIs, Diagnosis sensitive, k = l):

- DAnonyIR_El, DAnonyIR_kl and GeneIR_kl against l (|QI| = 6) and against |QI| (l = 6);
- DAnonyIR_Eab, DAnonyIR_ab and GeneIR_ab against alpha (beta = 0.4, |QI| = 6), beta
  (alpha = 0.6, |QI| = 6) and |QI| (alpha = 0.6, beta = 0.4);

measuring the share v of vulnerable classes (satisfying the IR model but not its EIR version,
Figs. 2, 3), NLoss (Eq. 15, Figs. 4, 5), the relative error of COUNT queries (Eq. 19, with
lambda = 1 against l, alpha, beta and lambda = |QI| against |QI|, Figs. 6, 7) and the runtime
(Figs. 8, 9). Every run here is one release up to its verified candidate, not published
(:func:`evaluate`, through the release's own :func:`anonymizer.release.run.verified`); :func:`findings`
checks each claim of section 5 against the rows, nothing hard-coded.

Choices (the paper's data is not available, its grid values are only in its figures):

- Data: :func:`anonymizer.datasets.patients.patients` (Table 5's columns and cardinalities, 9.25
  records per patient on average), ``individuals`` patients (default 500, about 4,500
  records; the paper has 49,384 patients), one table for every run; ``seed`` draws the data, the algorithms' random choices
  (DAnonyIR's first individual of a class, GeneIR's attribute order) and the queries.
- Grid: l in 2, 4, 6, 8, 10; |QI| in 3..8; alpha in 0.4..0.8 (beta = 0.4); beta in
  0.3..0.7 (alpha = 0.6), each changeable. The fixed values are the paper's (l = 6,
  |QI| = 6, alpha = 0.6, beta = 0.4). A setting shared by two sweeps runs once and gives a
  row to both (``sweeps``).
- Repeats: the paper averages 50 runs; ``repeats`` (default 1) runs each setting with the
  algorithm seeds ``seed .. seed + repeats - 1`` and reports the means.
- Suppression: the runs allow any suppression (``suppression_limit: 1``), so every setting
  gives a row; suppressed records count 1 per QI in NLoss (section 4.1) and are reported.
- Vulnerable classes: counted for the IR models only (an EIR model's classes satisfy the
  EIR model, v = 0 by construction), as ``100 * Num_vec / Num_ec`` over all classes.
- Query error: ``queries`` (default 200) anchored random queries per run and lambda
  (:mod:`anonymizer.reproduce.p004_identity_reserved.query_error`); the query set depends on the data, the QIs
  and the seed only, so every algorithm of a setting answers the same queries
  (fingerprints ``query_set_1``, ``query_set_qi``).
- Size: the paper's DAnonyIR scans D and D* once per individual it adds (section 4.4.2),
  quadratic in the patients; ours finds the same classes with an exact, pruned search
  (:mod:`anonymizer.families.identity_reserved.danonyir`), so its cost is not the paper's
  and is measured, not assumed: every row reports its ``runtime``. ``individuals`` and the
  grid's lists are options.
- Runtime: ``runtime`` is the algorithm's seconds (DAnonyIR or GeneIR, without building,
  verifying and measuring the table); the phases are in ``seconds``. The paper's C++ on a
  3.2 GHz four-core machine is not comparable in absolute terms, only in trend.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Sequence

import duckdb


from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.datasets.patients import QIS as DATA_QIS
from anonymizer.datasets.patients import patients, patients_spec
from anonymizer.families.identity_reserved.metrics import nloss
from anonymizer.reproduce.p004_identity_reserved.query_error import ir_query_error
from anonymizer.plan import prepare
from anonymizer.release.run import verified
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec
from anonymizer.engine.names import ident

#: variant -> (label, algorithm, model type, family): family "kl" varies l, "ab" alpha and beta.
VARIANTS: dict[str, tuple[str, str, str, str]] = {
    "danonyir-el": ("DAnonyIR_El", "danonyir", "eir-l-diversity", "kl"),
    "danonyir-kl": ("DAnonyIR_kl", "danonyir", "ir-kl-anonymity", "kl"),
    "geneir-kl": ("GeneIR_kl", "geneir", "ir-kl-anonymity", "kl"),
    "danonyir-eab": ("DAnonyIR_Eab", "danonyir", "eir-alpha-beta-anonymity", "ab"),
    "danonyir-ab": ("DAnonyIR_ab", "danonyir", "ir-alpha-beta-anonymity", "ab"),
    "geneir-ab": ("GeneIR_ab", "geneir", "ir-alpha-beta-anonymity", "ab"),
}
#: the enhanced variant of each IR variant run by the same algorithm (DAnonyIR).
ENHANCED = {"danonyir-kl": "danonyir-el", "danonyir-ab": "danonyir-eab"}
#: the GeneIR variant and the DAnonyIR variants compared with it.
GENEIR = {"geneir-kl": ("danonyir-kl", "danonyir-el"), "geneir-ab": ("danonyir-ab", "danonyir-eab")}

LS: tuple[int, ...] = (2, 4, 6, 8, 10)
QI_SIZES: tuple[int, ...] = (3, 4, 5, 6, 7, 8)
ALPHAS: tuple[float, ...] = (0.4, 0.5, 0.6, 0.7, 0.8)
BETAS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7)
FIXED = {"l": 6, "qi": 6, "alpha": 0.6, "beta": 0.4}
INDIVIDUALS = 500
QUERIES = 200
TABLE = "ir_patients"

#: sweep -> (family, the varied parameter, its title)
SWEEPS: dict[str, tuple[str, str, str]] = {
    "l": ("kl", "l", f"against l (|QI| = {FIXED['qi']}, k = l)"),
    "qi-kl": ("kl", "qi", f"against |QI| (l = k = {FIXED['l']})"),
    "alpha": ("ab", "alpha", f"against alpha (beta = {FIXED['beta']}, |QI| = {FIXED['qi']})"),
    "beta": ("ab", "beta", f"against beta (alpha = {FIXED['alpha']}, |QI| = {FIXED['qi']})"),
    "qi-ab": ("ab", "qi", f"against |QI| (alpha = {FIXED['alpha']}, beta = {FIXED['beta']})"),
}
#: measures averaged over repeats.
MEAN_KEYS = ("classes", "individuals_per_class", "records_per_class", "suppressed_individuals", "suppressed_records",
             "vulnerable_percent", "vulnerable", "nloss", "query_error_1", "query_error_1_median",
             "query_error_qi", "query_error_qi_median", "runtime")


def model_entry(variant: str, *, l: int | None = None, alpha: float | None = None,
                beta: float | None = None) -> dict:
    """The spec's model of ``variant`` at a setting (k = l for IR (k, l), as the paper sets)."""
    _label, _algorithm, kind, family = VARIANTS[variant]
    if family == "kl":
        return {"type": kind, "k": l, "l": l} if kind == "ir-kl-anonymity" else {"type": kind, "l": l}
    return {"type": kind, "alpha": alpha, "beta": beta}


def evaluate(con: duckdb.DuckDBPyConnection, spec: dict | ReleaseSpec, *, queries: int = QUERIES,
             query_seed: int = 0) -> dict:
    """One identity-reserved release of ``spec`` in a private workspace, verified but not
    published: classes, suppression, vulnerable classes (IR models), NLoss, the query error
    at lambda = 1 and lambda = |QI|, and the seconds of each phase. Raises
    PrivacyCheckFailed if the candidate fails its model or the suppression limit."""
    spec = spec if isinstance(spec, ReleaseSpec) else load_spec(spec)
    engine, start = Engine(con), time.perf_counter()
    with engine.workspace():
        plan = prepare(engine, spec)   # loads the source and resolves the columns
        prepared = time.perf_counter() - start
        seconds: dict[str, float] = {}
        run = verified(engine, plan, spec.algorithm.family.steps(), seconds)
        candidate, result = run.built, run.rounds.result[1]
        t0 = time.perf_counter()
        original = engine.work("ir_original")
        sens = plan.sensitive[0].column.name
        engine.run("reproduce/p004/ir_original.sql.j2", target=original, base=plan.base, s=plan.sensitive[0].internal,
                   sens=ident(sens), qis=[{"i": q.index, "dom": q.dom, "out": ident(q.name)} for q in plan.qis])
        qis = [{"name": q.name, "numeric": q.numeric} for q in plan.qis]
        one = ir_query_error(engine, original, candidate.table, qis, sens, queries=queries, dims=1,
                             seed=query_seed)
        every = ir_query_error(engine, original, candidate.table, qis, sens, queries=queries, dims=len(qis),
                               seed=query_seed)
        measured = time.perf_counter() - t0
        utility = dict(run.ready.utility)
        if "nloss" not in utility:
            domains = [{"name": q.name, "numeric": True, "low": q.num_min, "high": q.num_max} if q.numeric
                       else {"name": q.name, "numeric": False, "size": q.m} for q in plan.qis]
            utility["nloss"] = nloss(engine, candidate.table, domains, plan.base_rows,
                                     result.suppressed_records)["nloss"]
    seconds = {"prepare": prepared, **seconds, "query_error": measured, "total": time.perf_counter() - start}
    vulnerable = utility.get("vulnerable")
    return {"classes": candidate.classes, "records": plan.base_rows, "released_records": candidate.rows,
            "individuals_per_class": utility.get("individuals_per_class"),
            "records_per_class": utility.get("records_per_class"),
            "suppressed_individuals": result.suppressed_individuals,
            "suppressed_records": result.suppressed_records,
            "vulnerable_percent": vulnerable["percent"] if vulnerable else None,
            "vulnerable": vulnerable["vulnerable"] if vulnerable else None,
            "nloss": utility["nloss"], "query_error_1": one["relative_error"], "query_error_1_median": one["median"],
            "query_error_qi": every["relative_error"], "query_error_qi_median": every["median"],
            "queries": one["queries"], "queries_discarded": one["discarded"] + every["discarded"],
            "query_set_1": one["query_set"], "query_set_qi": every["query_set"],
            "runtime": seconds.get("algorithm"), "rounds": result.rounds,
            "seconds": {k: round(v, 4) for k, v in seconds.items()}}


# -- the grid -------------------------------------------------------------------------------
def settings(ls: Sequence[int] = LS, qi_sizes: Sequence[int] = QI_SIZES, alphas: Sequence[float] = ALPHAS,
             betas: Sequence[float] = BETAS, families: Sequence[str] = ("kl", "ab")) -> list[tuple[dict, list[str]]]:
    """The distinct settings of the five sweeps, each with the sweeps it belongs to."""
    found: dict[tuple, tuple[dict, list[str]]] = {}

    def add(sweep: str, **setting: Any) -> None:
        key = tuple(sorted(setting.items()))
        found.setdefault(key, (setting, []))[1].append(sweep)

    if "kl" in families:
        for l in ls:
            add("l", family="kl", qi=FIXED["qi"], l=l)
        for d in qi_sizes:
            add("qi-kl", family="kl", qi=d, l=FIXED["l"])
    if "ab" in families:
        for a in alphas:
            add("alpha", family="ab", qi=FIXED["qi"], alpha=a, beta=FIXED["beta"])
        for b in betas:
            add("beta", family="ab", qi=FIXED["qi"], alpha=FIXED["alpha"], beta=b)
        for d in qi_sizes:
            add("qi-ab", family="ab", qi=d, alpha=FIXED["alpha"], beta=FIXED["beta"])
    return list(found.values())


def _check_arguments(individuals, ls, qi_sizes, alphas, betas, variants, queries, repeats) -> None:
    def whole(v, least):
        return isinstance(v, int) and not isinstance(v, bool) and v >= least

    if not whole(individuals, 2):
        raise SpecError("individuals", "must be a whole number >= 2", individuals)
    if not ls or not all(whole(l, 2) for l in ls):
        raise SpecError("ls", "must be a non-empty list of whole numbers >= 2", ls)
    if not qi_sizes or not all(whole(d, 1) and d <= len(DATA_QIS) for d in qi_sizes):
        raise SpecError("qi_sizes", f"must be a non-empty list of whole numbers from 1 to {len(DATA_QIS)}", qi_sizes)
    for name, values in (("alphas", alphas), ("betas", betas)):
        if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1
                                 for v in values):
            raise SpecError(name, "must be a non-empty list of fractions in (0, 1)", values)
    if not variants or set(variants) - set(VARIANTS):
        raise SpecError("variants", f"one or more of {', '.join(VARIANTS)}", variants)
    if not whole(queries, 1):
        raise SpecError("queries", "must be a whole number >= 1", queries)
    if not whole(repeats, 1):
        raise SpecError("repeats", "must be a whole number >= 1", repeats)


def run_experiment(con: duckdb.DuckDBPyConnection | None = None, *, individuals: int = INDIVIDUALS,
                   ls: Iterable[int] = LS, qi_sizes: Iterable[int] = QI_SIZES, alphas: Iterable[float] = ALPHAS,
                   betas: Iterable[float] = BETAS, variants: Iterable[str] = tuple(VARIANTS),
                   queries: int = QUERIES, repeats: int = 1, seed: int = 0,
                   progress: Callable[[str], None] | None = None) -> tuple[dict, list[dict]]:
    """Section 5 on a generated patient table in ``con`` (a new in-memory database if None).

    Returns ``(data, rows)``: the table's figures (:func:`anonymizer.datasets.patients.patients`) and a
    row per (setting, variant): ``sweeps``, ``variant``, ``label``, ``algorithm``, ``model``,
    ``family``, ``qi``, ``l``, ``alpha``, ``beta``, ``repeats`` and :func:`evaluate`'s figures
    (the means over the repeats for :data:`MEAN_KEYS`, the first repeat's otherwise).
    """
    ls, qi_sizes = [int(x) for x in ls], [int(x) for x in qi_sizes]
    alphas, betas, variants = [float(x) for x in alphas], [float(x) for x in betas], list(variants)
    _check_arguments(individuals, ls, qi_sizes, alphas, betas, variants, queries, repeats)
    con = con if con is not None else duckdb.connect()
    data = patients(con, TABLE, individuals=individuals, seed=seed)
    families = sorted({VARIANTS[v][3] for v in variants})
    grid = settings(ls, qi_sizes, alphas, betas, families)
    runs = [(s, sw, v) for s, sw in grid for v in variants if VARIANTS[v][3] == s["family"]]
    rows = []
    for i, (setting, sweeps, variant) in enumerate(runs, 1):
        label, algorithm, kind, family = VARIANTS[variant]
        model = model_entry(variant, l=setting.get("l"), alpha=setting.get("alpha"), beta=setting.get("beta"))
        measured = []
        for r in range(repeats):
            spec = patients_spec(TABLE, qis=setting["qi"], model=model, suppression_limit=1.0,
                                 algorithm={"name": algorithm, "seed": seed + r}, release=f"ir_exp_{variant.replace('-', '_')}")
            measured.append(evaluate(con, spec, queries=queries, query_seed=seed))
        row = {"sweeps": sweeps, "variant": variant, "label": label, "algorithm": algorithm, "model": model,
               "family": family, "qi": setting["qi"], "l": setting.get("l"), "alpha": setting.get("alpha"),
               "beta": setting.get("beta"), "repeats": repeats, **_mean(measured)}
        rows.append(row)
        if progress:
            what = f"l={row['l']}" if family == "kl" else f"alpha={row['alpha']} beta={row['beta']}"
            v = "-" if row["vulnerable_percent"] is None else f"{row['vulnerable_percent']:.1f} %"
            progress(f"[{i}/{len(runs)}] {label} |QI|={row['qi']} {what}: {row['classes']:.0f} classes, "
                     f"v {v}, NLoss {row['nloss']:.4f}, error {row['query_error_1']:.3f} / "
                     f"{row['query_error_qi']:.3f}, {row['runtime']:.2f} s")
    return data, rows


def _mean(measured: list[dict]) -> dict:
    out = dict(measured[0])
    if len(measured) > 1:
        for key in MEAN_KEYS:
            values = [m[key] for m in measured]
            out[key] = None if any(v is None for v in values) else sum(values) / len(values)
        out["seconds"] = {k: round(sum(m["seconds"][k] for m in measured) / len(measured), 4)
                          for k in measured[0]["seconds"]}
    return out


# -- tables ---------------------------------------------------------------------------------
MEASURES = (("vulnerable_percent", "vulnerable classes v, % of the classes (Figs. 2, 3)", "{:.1f}"),
            ("nloss", "NLoss (Eq. 15; Figs. 4, 5)", "{:.4f}"),
            ("query_error_1", "query error, lambda = 1: mean |est - prec| / prec (Eq. 19; Figs. 6a, 7a, 7b)",
             "{:.3f}"),
            ("query_error_qi", "query error, lambda = |QI| (Figs. 6b, 7c)", "{:.3f}"),
            ("runtime", "runtime: algorithm seconds (Figs. 8, 9)", "{:.2f}"),
            ("classes", "equivalence classes", "{:,.0f}"),
            ("suppressed_records", "suppressed records", "{:,.0f}"))
WIDTH = 9
PHASES = ("prepare", "individuals", "algorithm", "generalize", "verify", "metrics", "query_error", "total")


def sweep_value(row: dict, sweep: str) -> Any:
    return row[SWEEPS[sweep][1]]


def _fmt_x(sweep: str, x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def format_tables(data: dict, rows: list[dict]) -> str:
    """Per sweep and measure a table: a column per value of the swept parameter, a line per
    variant (Figs. 2-9 as text); then the seconds per phase."""
    title = (f"paper 004, section 5 on {data['individuals']:,} generated patients ({data['records']:,} records; "
             f"{len(rows)} runs, verified, not published)")
    lines = [title, "=" * len(title)]
    for sweep, (family, param, sweep_title) in SWEEPS.items():
        part = [r for r in rows if sweep in r["sweeps"]]
        if not part:
            continue
        xs = sorted({sweep_value(r, sweep) for r in part})
        variants = [v for v in VARIANTS if any(r["variant"] == v for r in part)]
        at = {(r["variant"], sweep_value(r, sweep)): r for r in part}
        name = "|QI|" if param == "qi" else param
        lines += ["", f"{'IR (k, l) / EIR l' if family == 'kl' else 'IR / EIR (alpha, beta)'} {sweep_title}"]
        for key, label, fmt in MEASURES:
            if key == "vulnerable_percent" and not any(r[key] is not None for r in part):
                continue
            lines += [f"  {label}", f"    {name:<14}" + "".join(f"{_fmt_x(sweep, x):>{WIDTH}}" for x in xs)]
            for v in variants:
                cells = [at.get((v, x), {}).get(key) for x in xs]
                if all(c is None for c in cells):
                    continue
                lines.append(f"    {VARIANTS[v][0]:<14}" + "".join(
                    f"{'-' if c is None else fmt.format(c):>{WIDTH}}" for c in cells))
    lines += ["", "seconds (all runs): " + ", ".join(f"{p} {sum(r['seconds'].get(p, 0.0) for r in rows):.1f}"
                                                     for p in PHASES)]
    return "\n".join(lines)


# -- the whole experiment -------------------------------------------------------------------
def main_experiment(con: duckdb.DuckDBPyConnection | None = None, **options: Any) -> dict:
    """Run section 5 (:func:`run_experiment`'s options: ``individuals``, ``ls``, ``qi_sizes``,
    ``alphas``, ``betas``, ``variants``, ``queries``, ``repeats``, ``seed``, ``progress``;
    plus ``plots``: a folder to write the PNG plots of :mod:`anonymizer.reproduce.p004_identity_reserved.plots` into) and
    return it as one JSON-ready dict: ``experiment``, ``data``, ``options``, ``rows``,
    ``findings``, ``plots``. :func:`format_experiment` prints it."""
    plots = options.pop("plots", None)
    known = {"individuals", "ls", "qi_sizes", "alphas", "betas", "variants", "queries", "repeats", "seed",
             "progress"}
    unknown = set(options) - known
    if unknown:
        raise SpecError(f"options.{sorted(unknown)[0]}", f"is not an option of the experiment ({', '.join(sorted(known))}"
                                                         ", plots)")
    start = time.perf_counter()
    from anonymizer.reproduce.p004_identity_reserved.findings import findings   # it reads this module's sweeps
    data, rows = run_experiment(con, **options)
    found = findings(rows)
    written = []
    if plots:
        from anonymizer.reproduce.p004_identity_reserved.plots import plot_experiment
        written = [str(p) for p in plot_experiment(rows, plots)]
    shown = {k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in options.items() if k != "progress"}
    return {"experiment": "004", "data": {k: v for k, v in data.items() if k != "options"},
            "options": shown, "fixed": dict(FIXED), "rows": rows, "findings": found, "plots": written,
            "seconds": round(time.perf_counter() - start, 3)}


def format_experiment(result: dict) -> str:
    """The tables, the findings and the plots written, as text."""
    from anonymizer.reproduce.p004_identity_reserved.findings import format_findings
    text = [format_tables(result["data"], result["rows"]), "", format_findings(result["findings"])]
    if result.get("plots"):
        text += ["", "plots: " + ", ".join(result["plots"])]
    return "\n".join(text)
