"""Benchmark of paper 004's identity-reserved algorithms on generated patient tables
(``anonymizer bench --bench ir``): the whole release (Id_num, individuals, DAnonyIR or GeneIR,
the Table 4 table, verification, NLoss and vulnerable classes, publication) against one
plain ``GROUP BY`` over the same QIs and the sensitive attribute.

The table is section 5's shape (:mod:`anonymizer.datasets.patients`, Table 5's cardinalities, about
9.25 records per patient); ``--rows`` counts patients. Target (issue 6): 50,000 patients and
about 450,000 records within 10 minutes for DAnonyIR_El. Each run also reports where the
time went: the release's phases (individuals, algorithm, generalize, verify, metrics,
publish) and the algorithm's steps (argmin statements of Algorithm 1 lines 7-8).

Example:
    >>> runs = list(run_ir_bench([300], ["danonyir"], repeat=1, l=3))
    >>> runs[0]["bench"], runs[0]["individuals"], runs[0]["classes"] > 0
    ('ir', 300, True)
"""

from __future__ import annotations

from typing import Iterator

import duckdb

from anonymizer.bench.harness import scan_time, timed_release
from anonymizer.engine.session import Engine
from anonymizer.datasets.patients import QIS, SENSITIVE, patients, patients_spec


def run_ir_bench(individuals_list, algorithms, repeat: int = 3, l: int = 6, qis: int = 6,
                 model: str = "eir-l-diversity") -> Iterator[dict]:
    """Yield one dict per run: individuals, records, algorithm, seconds (whole release),
    scan_seconds, ratio, the release's phase timings, steps, classes, NLoss, peak memory."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    engine = Engine(con)
    try:
        for n in individuals_list:
            data = patients(con, f"patients_{n}", individuals=n, seed=n)
            table = f"patients_{n}"
            for algorithm in algorithms:
                for _ in range(repeat):
                    scan = scan_time(engine, data["table"], list(QIS[:qis]) + [SENSITIVE])
                    entry = {"type": model, "l": l, "sensitive": SENSITIVE}
                    if model == "ir-kl-anonymity":
                        entry["k"] = l
                    spec = patients_spec(table, qis=qis, model=entry, algorithm={"name": algorithm, "seed": 0},
                                         suppression_limit=1.0, release=f"bench_{algorithm}")
                    result, run = timed_release(engine, spec, scan)
                    yield {"bench": "ir", "individuals": n, "records": data["records"], "algorithm": algorithm,
                           "model": model, "l": l, "qis": qis, **run,
                           "classes": result.classes, "suppressed": result.suppressed,
                           "steps_algorithm": result.algorithm.get("rounds"),
                           "nloss": round(result.utility["nloss"], 4)}
            engine.execute(f"DROP TABLE {data['table']}")
    finally:
        con.close()


def format_ir_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    lines = [f"{'patients':>9} {'records':>8} {'algorithm':<9} {'seconds':>8} {'scan':>6} {'ratio':>7} "
             f"{'algo s':>7} {'steps':>7} {'classes':>8} {'NLoss':>7} {'peak MB':>8}"]
    for r in runs:
        lines.append(f"{r['individuals']:>9} {r['records']:>8} {r['algorithm']:<9} {r['seconds']:>8.2f} "
                     f"{r['scan_seconds']:>6.2f} {r['ratio']:>7} {r['steps'].get('algorithm', 0):>7.2f} "
                     f"{r['steps_algorithm']:>7} {r['classes']:>8} {r['nloss']:>7.4f} {r['peak_mb']:>8.0f}")
    return "\n".join(lines)
