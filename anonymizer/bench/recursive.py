"""Benchmark of the loops that run either from Python or as one recursive CTE
(``anonymizer bench recursive``): each loop by both forms on the same data, the
bundled Adult table and synthetic Adult-like tables (:mod:`anonymizer.datasets.synthetic`)
of the given sizes.

- ``lgb-bucketization``: paper 000's Algorithm 2 lines 2-10 (:func:`~anonymizer.families.generalized.
  lgb.bucketize.local_bucketization`, ``loop``) on section 4's release (t-closeness on sex,
  l-unique on the others; Adult with the experiment's l caps); timed: the range splitting;
- ``lattice``: paper 001's lattice evaluation, every node's k, classes and DCP (step 2 of
  :func:`~anonymizer.families.generalized.lattice.evaluate.evaluate_lattice`) over age, education-num and
  hours-per-week with CBGH (nested levels) and DBGH (levels that do not nest) hierarchies;
- ``mondrian``: Mondrian's rounds (:func:`~anonymizer.families.generalized.mondrian.mondrian`, k=10,
  six QIs without hierarchies, as the Mondrian benchmark of :mod:`.harness`), the recursive
  form with every round in one statement; also on a ``distinct`` table of the given sizes,
  three numeric columns whose rows nearly all differ, so that the cells the rounds work on
  are as many as the rows.

Each figure is the median of ``repeat`` runs, the forms taking turns; ``runs`` lists them.
As in the other benchmarks, ``scan_seconds`` is one plain ``GROUP BY`` over the same columns
of the same table and ``ratio`` the loop's time over it; ``peak_mb`` is the process's peak
memory so far (it only grows: compare runs in separate processes, ``--loops``).

Example:
    >>> rows = run([2000], repeat=1, loops=["mondrian"])
    >>> sorted({r["data"] for r in rows}), sorted({r["form"] for r in rows})
    (['adult', 'distinct', 'synthetic'], ['python', 'recursive'])
"""

from __future__ import annotations

import statistics
from typing import Callable, Iterator

import duckdb

from anonymizer.families.lgb.bucketize import release_bucketization
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs
from anonymizer.bench.harness import BENCH_QIS, scan_time
from anonymizer.engine.footprint import memory
from anonymizer.datasets.flagged import SEMI_SENSITIVE, SYNTHETIC_QI, QI, experiment_spec, flagged_adult, \
    flagged_synthetic
from anonymizer.datasets.synthetic import make_adult_like
from anonymizer.demo import load_adult
from anonymizer.engine.session import Engine
from anonymizer.families.generalized.lattice.evaluate import evaluate_lattice
from anonymizer.plan import prepare
from anonymizer.reproduce.p000_lgb.experiment import l_caps
from anonymizer.spec.parse import load_spec
from anonymizer.engine.names import ident

FORMS = ("python", "recursive")
#: Adult's columns for Mondrian (no NULLs; age numeric), like the synthetic table's six QIs
ADULT_QIS = ("age", "education", "marital-status", "relationship", "race", "sex")
#: paper 001's QIs on Adult (the synthetic table names them with underscores)
LATTICE_QIS = {"age": 5, "education-num": 2, "hours-per-week": 10}

Timed = Callable[[Engine, str], tuple[float, dict]]


def run(rows: list[int], repeat: int = 3, loops: list[str] | None = None) -> list[dict]:
    """Time every loop (``loops``: names of :data:`LOOPS`, default all) by both forms on Adult
    and on the tables of each size in ``rows`` the loop reads (:data:`DATA`); one dict per
    loop, table and form (loop, form, data, rows, seconds: the median, runs, scan_seconds,
    ratio, peak_mb and the loop's own figures)."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    engine = Engine(con)
    out: list[dict] = []
    try:
        for name in loops or list(LOOPS):
            for data, size in [("adult", None)] + [(d, r) for d in DATA[name] for r in rows]:
                out += _measure(engine, name, data, size, repeat)
    finally:
        con.close()
    return out


def _measure(engine: Engine, name: str, data: str, size: int | None, repeat: int) -> list[dict]:
    """Both forms of loop ``name``, ``repeat`` times each in turns, on one table."""
    table, columns, timed = LOOPS[name](engine, data, size)
    scan = scan_time(engine, table, columns)
    runs: dict[str, list[tuple[float, dict]]] = {form: [] for form in FORMS}
    for _ in range(repeat):
        for form in FORMS:
            runs[form].append(timed(engine, form))
    engine.drop(table)
    out = []
    for form, found in runs.items():
        seconds = statistics.median(s for s, _ in found)
        peak, _ = memory(engine)
        out.append({"bench": "recursive", "loop": name, "form": form, "data": data, **found[0][1],
                    "seconds": round(seconds, 3), "runs": [round(s, 3) for s, _ in found],
                    "scan_seconds": round(scan, 3), "ratio": round(seconds / scan, 1) if scan else None, "peak_mb": peak})
    return out


def _lgb(engine: Engine, data: str, size: int | None) -> tuple[str, list[str], Timed]:
    con = engine.con
    if data == "adult":
        table = flagged_adult(con, "bench_lgb")
        caps = {a: c["cap"] for a, c in l_caps(con, "bench_lgb").items()}
        spec = load_spec(experiment_spec("bench_lgb", l_caps=caps))
        qis = QI
    else:
        table = flagged_synthetic(con, "bench_lgb", size, seed=size)
        spec = load_spec(experiment_spec("bench_lgb", qi=SYNTHETIC_QI))
        qis = SYNTHETIC_QI

    def timed(engine: Engine, form: str) -> tuple[float, dict]:
        with engine.workspace():
            plan = prepare(engine, spec)
            buckets = release_bucketization(engine, plan, form)
            return buckets.split_seconds, {"rows": plan.base_rows, "rounds": buckets.rounds,
                                           "leaves": sum(buckets.leaves.values())}
    return table, list(SEMI_SENSITIVE) + list(qis) + ["fnlwgt"], timed


def _lattice(engine: Engine, data: str, size: int | None) -> tuple[str, list[str], Timed]:
    if data == "adult":
        table, names = load_adult(engine.con, "bench_lattice"), list(LATTICE_QIS)
    else:
        table = make_adult_like(engine, "bench_lattice", size, seed=size)
        names = [n.replace("-", "_") for n in LATTICE_QIS]
    specs = [load_spec({"release": f"bench_{builder}", "source": {"table": "bench_lattice"},
                        "default_role": "identifier", "models": [{"type": "k-anonymity", "k": 2}],
                        "columns": {n: {"role": "quasi", "hierarchy": {builder: {"min_width": width}}}
                                    for n, width in zip(names, LATTICE_QIS.values())}})
             for builder in ("cbgh", "dbgh")]

    def timed(engine: Engine, form: str) -> tuple[float, dict]:
        seconds, nodes, rows = 0.0, 0, 0
        for spec in specs:
            with engine.workspace():
                lattice = evaluate_lattice(engine, prepare(engine, spec), ("_anon_bench", spec.release), form)
                seconds, nodes, rows = seconds + lattice.loop_seconds, nodes + len(lattice.nodes), lattice.records
        engine.execute("DROP SCHEMA IF EXISTS _anon_bench CASCADE")
        return seconds, {"rows": rows, "nodes": nodes}
    return table, names, timed


def _mondrian(engine: Engine, data: str, size: int | None) -> tuple[str, list[str], Timed]:
    if data == "adult":
        table, names = load_adult(engine.con, "bench_mondrian"), list(ADULT_QIS)
    elif data == "distinct":
        table, names = ident("bench_mondrian"), ["a", "b", "c"]
        engine.run("bench/distinct_cells.sql.j2", {"rows": size, "seed": size}, target=table)
    else:
        table, names = make_adult_like(engine, "bench_mondrian", size, seed=size), list(BENCH_QIS[:6])
    numeric = {"age", "hours_per_week", "a", "b", "c"}
    spec = load_spec({"release": "bench", "source": {"table": "bench_mondrian"}, "default_role": "insensitive",
                      "columns": {n: {"role": "quasi", "type": "numeric" if n in numeric else "categorical"}
                                  for n in names},
                      "models": [{"type": "k-anonymity", "k": 10}]})

    def timed(engine: Engine, form: str) -> tuple[float, dict]:
        with engine.workspace():
            plan = prepare(engine, spec)
            result = mondrian(engine, plan, mondrian_inputs(plan), loop=form)
            seconds = sum(result.notes["round_seconds" if form == "python" else "batch_seconds"])
            return seconds, {"rows": plan.base_rows, "rounds": result.rounds, "classes": result.classes,
                             "cells": result.notes["cells"], "algorithm_seconds": round(result.seconds, 3)}
    return table, names, timed


#: the loops measured: name -> (engine, data, size) -> (table, its columns, timed run)
LOOPS: dict[str, Callable[[Engine, str, int | None], tuple[str, list[str], Timed]]] = {
    "lgb-bucketization": _lgb, "lattice": _lattice, "mondrian": _mondrian}
#: the tables of the given sizes each loop is timed on, besides Adult
DATA = {"lgb-bucketization": ["synthetic"], "lattice": ["synthetic"], "mondrian": ["synthetic", "distinct"]}


def format_runs(runs: list[dict]) -> str:
    """One line per loop and table: both forms' medians and runs, and which is faster."""
    lines = [f"{'loop':<18} {'data':<10} {'rows':>9} {'python s':>9} {'recursive s':>11} {'faster':>9}  runs "
             "(python | recursive)"]
    for line in _pairs(runs):
        py, rec = line["python"], line["recursive"]
        faster = "recursive" if rec["seconds"] < py["seconds"] else "python"
        lines.append(f"{py['loop']:<18} {py['data']:<10} {py['rows']:>9} {py['seconds']:>9.3f} "
                     f"{rec['seconds']:>11.3f} {faster:>9}  {py['runs']} | {rec['runs']}")
    return "\n".join(lines)


def _pairs(runs: list[dict]) -> Iterator[dict]:
    found: dict[tuple, dict] = {}
    for r in runs:
        found.setdefault((r["loop"], r["data"], r["rows"]), {})[r["form"]] = r
    return iter(found.values())
