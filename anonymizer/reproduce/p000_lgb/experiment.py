"""Paper 000's experiment (section 4) on the bundled UCI Adult data.

Section 4.1 compares C_DM (sum of |LEG|^2) and NCP of LGB_MDP and LGB_NCP for k = 5, 8, 10,
l = 5, 8, 10, 12, 15, 18, 20, t = 0.2 and about 20 % of each semi-sensitive attribute's values
sensitive (Figs. 5, 6); section 4.2 the mean relative error of 1,000 random SUM(salary) queries
(Fig. 7); section 4.3 LGB_MDP's query error at densities 10 to 40 % (Fig. 8). Every run is one
LGB release, verified (Corollary 3) but not published (:func:`evaluate`), measured with
both NCPs (ours and paper 000's convention, :mod:`anonymizer.metrics.ncp`) and R_error with
and without its per-bucket rounding; :func:`findings` checks the paper's claims against the
rows (:mod:`.claims`, findings a-f), nothing hard-coded, each verdict following from its
printed checks. Findings (g) and (h) say why Figs. 5, 6 and 8 do not reproduce, from group
sizes and cell costs measured beside every run and from Algorithm 4 as printed
(``balance: false``) run at each k (:mod:`.explain`); (i) and (j) what each of two
contributors explains of Fig. 7, from LGB_NCP minimizing the reported NCP (``objective:
set``) at every k and l and from the unrounded R_error (:mod:`.fig7`). The tables are
:mod:`.tables`.

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
from anonymizer.metrics.ncp import ncp
from anonymizer.reproduce.p000_lgb import explain, fig7
from anonymizer.reproduce.p000_lgb.claims import CLAIMS, k_evenly
from anonymizer.reproduce.p000_lgb.query_error import draw_queries, query_error
from anonymizer.reproduce.p000_lgb.series import DENSITY_ALGORITHM, GRID_DENSITY, LITERAL, SET_OBJECTIVE, VARIANTS
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
CAPPED = ("occupation", "age", SALARY)
DIMS = 4                        # attributes per query (section 4.2)


def evaluate(con: duckdb.DuckDBPyConnection, spec: dict | ReleaseSpec, *, queries: int = 1000,
             query_seed: int = 0) -> dict:
    """One LGB release of ``spec`` in a private workspace, verified but not published: C_DM,
    NCP (ours, and ``ncp_paper`` by paper 000's convention), groups, buckets, suppressed rows,
    the query error (and ``query_error_unrounded``, without the per-bucket rounding) and the
    seconds of each phase. Raises PrivacyCheckFailed if the table fails Corollary 3 or the
    suppression limit."""
    spec = spec if isinstance(spec, ReleaseSpec) else load_spec(spec)
    engine, start = Engine(con), time.perf_counter()
    with engine.workspace():
        candidate, utility, clock = _candidate(engine, spec)
        paper_ncp, _ = ncp(engine, lgb_table.real_rows(candidate), lgb_table.ncp_qis(candidate), candidate.rows,
                           convention="paper")
        salary = next(x["a"] for x in candidate.attrs if x["name"] == spec.sensitive[0].name)
        t0 = time.perf_counter()
        qe = query_error(engine, candidate.table, candidate.attrs, salary, queries=queries, dims=DIMS,
                         seed=query_seed)
        clock["query_error"] = time.perf_counter() - t0
        drawn = draw_queries(candidate.attrs, salary, queries, DIMS, query_seed)
        measured = explain.measure(engine, candidate, spec.k)
    clock["total"] = time.perf_counter() - start
    keep = ("c_dm", "ncp", "ncp_per_qi_cell", "groups", "smallest_group", "buckets", "rows", "suppressed")
    return {**{k: utility[k] for k in keep}, "ncp_paper": paper_ncp, "query_error": qe["relative_error"],
            "query_error_median": qe["median"], "query_error_unrounded": qe["unrounded"],
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
    with LGB_NCP the paper-literal Algorithm 4 at each k and the smallest l (:mod:`.explain`)
    and LGB_NCP minimizing the reported NCP at every k and l (:mod:`.fig7`)."""
    grid = [(GRID_DENSITY, a, k, l) for a in algorithms for k in ks for l in ls]
    variants = [(GRID_DENSITY, LITERAL, k, min(ls)) for k in ks] + \
        [(GRID_DENSITY, SET_OBJECTIVE, k, l) for k in ks for l in ls] if "lgb-ncp" in algorithms else []
    return list(dict.fromkeys(grid + [(d, DENSITY_ALGORITHM, k, l) for d in densities for k in ks for l in ls]
                              + variants))


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
    algorithms over k x l at 20 %, LGB_MDP over k x l at each density (and with LGB_NCP its
    variants, :data:`~.series.VARIANTS`). ``seed`` draws the flags
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
        base, options = VARIANTS.get(algorithm, (algorithm, {}))
        spec = experiment_spec(name, base, k, l, t, l_caps={a: c["cap"] for a, c in caps.items()}, seed=seed)
        spec["algorithm"].update(options)
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


# -- findings -------------------------------------------------------------------------------
def findings(rows: list[dict]) -> list[dict]:
    """Section 4's claims checked against ``rows``: each ``{id, claim, holds, note, checks,
    context}`` (:func:`anonymizer.reproduce.findings.finding`), ``holds`` the verdict word that
    follows from the share of its checks met, or "n/a" (no check: the rows lack what it
    needs). (a)-(f) are the paper's claims (:mod:`.claims`); (g) and (h) say, with measured
    figures, why (a), (c) and (f) do not hold (:mod:`.explain`); (i) and (j) what each of two
    contributors explains of Fig. 7 (:mod:`.fig7`); (k) is section 4.1's reason for Fig. 5
    (:func:`.claims.k_evenly`)."""
    return [f(rows) for f in (*CLAIMS, explain.g_groups_and_ncp, explain.h_density, *fig7.FINDINGS, k_evenly)]


def format_findings(found: list[dict]) -> str:
    """The findings, one block each: verdict and claim, rule, each check, the context."""
    return shared_format(found, "000")


def to_json(rows: list[dict], found: list[dict] | None = None, plots: Sequence = ()) -> dict:
    """The experiment as one object for ``json.dumps``."""
    found = findings(rows) if found is None else found
    caps = {f"{r['density']:.0%}": r["l_caps"] for r in rows}
    return {"experiment": "000", "grid_density": GRID_DENSITY, "l_caps": caps, "rows": rows, "findings": found,
            "plots": [str(p) for p in plots]}
