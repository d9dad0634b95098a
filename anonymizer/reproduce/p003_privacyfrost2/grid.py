"""Benchmark of the lattice searches: the grid of paper 003's Table 2 (k = 2 and 10 with
l = 2 and 10 or t = 0.1 and 0.9, each scoring function) for PrivacyFrost2, and the
optimal full-domain search on the same models, over ARX's Adult (30,162 rows, its 8 QIs
and hierarchies, occupation sensitive) or a synthetic Adult-like table of any size with
the same hierarchies.

Each run is timed from the prepared plan (QIs coded) to the ``assign`` table, so the
frequency set, the search and the row assignment are included; ``prepare_seconds`` is
reported apart, with one plain GROUP BY over the 8 QIs (``scan_seconds``) to compare with.
Each run is made ``repeat`` times, the runs of a grid cell taking turns (each starting the
turn in a different place), and the row is the median run by the process's CPU seconds
(``cpu_seconds``; ``seconds`` is that run's clock time, ``cpu_range`` where the median may
lie: :func:`anonymizer.reproduce.findings.median_range`): another process's load on the cores
stretches the clock, not the work.
PrivacyFrost2's priorities are age 10, education 5, sex 2, the rest 1; eta's d is 10.

Partial-domain de-generalization (section 5.4 step 4) runs in every PrivacyFrost2 run, as
in the paper's timings ("we measured transaction time including the partial-domain
de-generalization steps", section 7): ``seconds`` includes it, ``partial_seconds`` is its
share, ``full_domain_score`` and ``full_domain_loss`` the score and loss before it,
``score`` and ``loss`` after (``qi_loss``: each QI's share of it). ``partial=False`` times
the full-domain search alone. The optimal search releases a full-domain table, PrivacyFrost2
with the partial step a partial-domain one: their losses are of different release models
(:data:`MODELS_APART`, printed under the table).

Scorings: the paper's three (``basic``, ``log``, ``eta``) and, as ours, ``log+ties`` and
``eta+ties``: the same functions with ``tie_break: basic``
(:mod:`anonymizer.families.generalized.lattice.scoring`), which cross the flat steps where
the paper's strict search stops at the fully generalized table.

Example:
    >>> runs = list(run_lattice_bench(rows=3000, grid=[(2, "l", 2)], scorings=("basic",), repeat=1))
    >>> [r["algorithm"] for r in runs], runs[0]["rows"]
    (['privacyfrost2', 'optimal'], 3000)
"""

from __future__ import annotations

import statistics
import time
from typing import Iterator

import duckdb

from anonymizer.families.generalized.steps import run_algorithm
from anonymizer.engine.footprint import memory
from anonymizer.demo import data_path
from anonymizer.engine.session import Engine
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec
from anonymizer.engine.names import ident
from anonymizer.datasets.synthetic import make_adult_like
from anonymizer.reproduce.findings import median_range

#: paper 003, Table 2: (k, "l" or "t", value).
GRID = [(2, "l", 2), (2, "t", 0.1), (2, "t", 0.9), (10, "l", 10), (10, "t", 0.1), (10, "t", 0.9)]
SCORINGS = ("basic", "log", "eta", "log+ties", "eta+ties")
#: ARX's 8 Adult QIs: hierarchy file name -> column in ARX's table and in the synthetic one.
QIS = {"age": ("age", "age"), "sex": ("sex", "sex"), "race": ("race", "race"),
       "marital-status": ("marital-status", "marital_status"), "education": ("education", "education"),
       "native-country": ("native-country", "native_country"), "workclass": ("workclass", "workclass"),
       "salary-class": ("salary-class", "salary")}
PRIORITIES = {"age": 10, "education": 5, "sex": 2}


def load_adult(engine: Engine, rows: int | None) -> list[str]:
    """Table ``adult`` (replaced): ARX's Adult (``rows=None``) or a synthetic one of ``rows``
    rows (seeded by its size); returns the 8 QI columns in :data:`QIS` order."""
    if rows is not None:
        make_adult_like(engine, "adult", rows, seed=rows)
    else:
        engine.drop(ident('adult'))
        engine.run("prepare/load_file.sql.j2", {"path": str(data_path("arx_adult/adult.csv.gz")),
                                                "header": True, "delim": ";"},
                   target=ident("adult"), reader="csv", has_delim=True, has_nullstr=False)
    return [QIS[q][0 if rows is None else 1] for q in QIS]


def run_lattice_bench(rows: int | None = None, grid=GRID, scorings=SCORINGS, repeat: int = 3,
                      optimal: bool = True, partial: bool = True, threads: int | None = None) -> Iterator[dict]:
    """Yield one dict per run: PrivacyFrost2 for each grid cell and scoring (``partial``:
    with partial-domain de-generalization, as the paper times it), then the optimal search
    for the cell. ``rows=None`` is ARX's Adult, a number a synthetic table. ``threads``:
    DuckDB's threads (default: its own choice); ``anonymizer reproduce p003`` times on one,
    whose CPU seconds do not count threads waiting on each other (on Adult's k = 2 cells, a
    run's CPU seconds within 5 % from a quiet machine to one with a process busy on each
    core, where with DuckDB's two threads the slowest scoring over the fastest went from 1.35
    to 1.47)."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    try:
        engine = Engine(con)
        synthetic = rows is not None
        names = load_adult(engine, rows)
        scan = _median(lambda: engine.one("bench/scan.sql.j2", source=ident("adult"),
                                          qis=[ident(n) for n in names]), repeat)
        total = engine.execute("SELECT count(*) FROM adult").fetchone()[0]
        for k, kind, value in grid:
            runs = [("privacyfrost2", s) for s in scorings] + ([("optimal", None)] if optimal else [])
            timed: dict = {run: [] for run in runs}
            for rep in range(repeat):      # the runs of a cell take turns, each first once in a while
                for algorithm, scoring in runs[rep % len(runs):] + runs[:rep % len(runs)]:
                    with engine.workspace():
                        start = time.perf_counter()
                        plan = prepare(engine, grid_spec(names, k, kind, value, algorithm, scoring, partial))
                        prepared = time.perf_counter() - start
                        cpu = time.process_time()
                        result = run_algorithm(engine, plan)
                        timed[algorithm, scoring].append((time.process_time() - cpu, result.seconds,
                                                          result.notes.get("partial_seconds", 0.0), prepared,
                                                          result, plan))
            for algorithm, scoring in runs:
                # the median run by CPU seconds (the upper middle one for an even count) gives every figure
                cpu_seconds, seconds, partial_seconds, prepared, result, plan = sorted(
                    timed[algorithm, scoring], key=lambda x: x[0])[repeat // 2]
                cpus = median_range([x[0] for x in timed[algorithm, scoring]])
                notes = result.notes
                yield {"bench": "lattice", "data": "synthetic" if synthetic else "arx-adult", "rows": total,
                       "k": k, kind: value, "algorithm": algorithm, "scoring": scoring,
                       "seconds": round(seconds, 3), "cpu_seconds": round(cpu_seconds, 3),
                       "cpu_range": [round(cpus[0], 3), round(cpus[1], 3)],
                       "scan_seconds": round(scan, 4),
                       "ratio": round(seconds / scan, 1), "prepare_seconds": round(prepared, 3),
                       "checks": notes["checks"], "check_seconds": notes["check_seconds"],
                       "frequency_set_rows": notes["frequency_set_rows"], "levels": list(notes["levels"].values()),
                       "heights": [q.height for q in plan.qis],
                       "all_star": list(notes["levels"].values()) == [q.height for q in plan.qis],
                       "loss": round(notes["loss"], 4), "score": notes.get("score"),
                       "full_domain_loss": round(notes.get("full_domain_loss", notes["loss"]), 4),
                       "qi_loss": {q: round(x, 4) for q, x in notes.get("qi_loss", {}).items()},
                       "full_domain_score": notes.get("full_domain_score"),
                       "partial": partial and algorithm == "privacyfrost2",
                       "partial_seconds": round(partial_seconds, 3),
                       "suppressed": result.suppressed, "classes": result.classes,
                       "peak_mb": memory(engine)[0]}
    finally:
        con.close()


def release_model(run: dict) -> str:
    """What a run releases: PrivacyFrost2 with its partial step is a partial-domain
    (per-class) table (paper 003, section 5.4 step 4), the optimal search and PrivacyFrost2
    without it a full-domain one (one level per QI for every record)."""
    return "partial-domain" if run["partial"] else "full-domain"


#: said under every table that prints the optimal search's loss beside PrivacyFrost2's
MODELS_APART = ("release: optimal's loss and PrivacyFrost2's are of different release models. optimal = "
                "full-domain generalization, the least-loss node over the whole lattice (every record at one level "
                "per QI); PrivacyFrost2 with its partial step = partial-domain de-generalization (section 5.4 step 4: "
                "each class lowered on its own, so levels differ between classes), whose loss can end below "
                "optimal's without contradicting it. fd loss: each run's loss at its full-domain node, the figure "
                "comparable with optimal's (never below it: optimal is the least over the same nodes)")


def format_lattice_bench(runs: list[dict]) -> str:
    """A table of the runs, one line each, for people."""
    head = f"{'k':>3} {'model':<8} {'algorithm':<14} {'scoring':<8} {'release':<14} {'seconds':>8} {'partial':>8} " \
           f"{'ratio':>7} {'checks':>6} {'fd loss':>7} {'loss':>7} {'full sc.':>8} {'score':>8}  levels"
    lines = [head]
    for r in runs:
        model = f"l={r['l']}" if "l" in r else f"t={r['t']}"
        score, full = ("" if r[key] is None else f"{r[key]:.4g}" for key in ("score", "full_domain_score"))
        part = f"{r['partial_seconds']:>8.3f}" if r["partial"] else f"{'off':>8}"
        lines.append(f"{r['k']:>3} {model:<8} {r['algorithm']:<14} {r['scoring'] or '-':<8} {release_model(r):<14} "
                     f"{r['seconds']:>8.3f} {part} {r['ratio']:>7.1f} {r['checks']:>6} {r['full_domain_loss']:>7.4f} "
                     f"{r['loss']:>7.4f} {full:>8} {score:>8}  {r['levels']}")
    lines.append("seconds: the whole search, partial-domain de-generalization included (the paper's timing); "
                 "partial: that step's share; full sc./score: the score before and after it; "
                 "+ties: tie_break basic (ours)")
    if any(r["algorithm"] == "optimal" for r in runs) and any(r["partial"] for r in runs):
        lines.append(MODELS_APART)
    return "\n".join(lines)


def grid_spec(names: list[str], k: int, kind: str, value: float, algorithm: str, scoring: str | None,
          partial: bool = True):
    columns = {n: {"role": "quasi", "hierarchy": {"csv": str(data_path(f"arx_adult/adult_hierarchy_{h}.csv"))}}
               for h, n in zip(QIS, names)}
    columns["occupation"] = {"role": "sensitive"}
    second = ({"type": "distinct-l-diversity", "l": value, "sensitive": "occupation"} if kind == "l"
              else {"type": "t-closeness", "t": value, "sensitive": "occupation"})
    algo: dict = {"name": algorithm}
    if algorithm == "privacyfrost2":
        function, ties = scoring.split("+") if "+" in scoring else (scoring, None)
        algo.update(scoring=function, priorities={n: PRIORITIES.get(h, 1) for h, n in zip(QIS, names)},
                    partial=partial)
        if function == "eta":
            algo["d"] = 10
        if ties:
            algo["tie_break"] = "basic"
    return load_spec({"release": "bench", "source": {"table": "adult"}, "columns": columns,
                      "default_role": "identifier", "models": [{"type": "k-anonymity", "k": k}, second],
                      "algorithm": algo})


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
