"""Benchmark of paper 004's identity-reserved algorithms on generated patient tables
(``anonymizer bench ir``): the whole release (Id_num, individuals, DAnonyIR or GeneIR,
the Table 4 table, verification, NLoss and vulnerable classes, publication) against one
plain ``GROUP BY`` over the same QIs and the sensitive attribute.

The table is section 5's shape (:mod:`anonymizer.datasets.patients`, Table 5's cardinalities, about
9.25 records per patient); ``--rows`` counts patients. Target (issue 6): 50,000 patients and
about 450,000 records within 10 minutes for DAnonyIR_El. Each run also reports where the
time went: the release's phases (individuals, algorithm, generalize, verify, metrics,
publish) and the algorithm's steps (argmin statements of Algorithm 1 lines 7-8), and for
DAnonyIR the rows its statements brought into Python (``to py``) and the rows its list
parameters sent back (``to db``: Id_num taken, classes stored; issue 40).

Example:
    >>> runs = list(run_ir_bench([300], ["danonyir"], repeat=1, l=3))
    >>> runs[0]["bench"], runs[0]["rows"], runs[0]["classes"] > 0
    ('ir', 300, True)
"""

from __future__ import annotations

from typing import Iterator

from anonymizer.bench.harness import COMMON_COLUMNS, PEAK_COLUMN, figure, format_table, release_runs
from anonymizer.datasets.patients import QIS, SENSITIVE, patients, patients_spec


def run_ir_bench(individuals_list, algorithms, repeat: int = 3, l: int = 6, qis: int = 6,
                 model: str = "eir-l-diversity") -> Iterator[dict]:
    """Yield one dict per run: rows (the individuals), records, algorithm, seconds (whole
    release), scan_seconds, ratio, the release's phase timings, steps, classes, NLoss, rows to
    Python (per statement too) and back, and the batches, rescans and plain steps (DAnonyIR;
    ``-`` for GeneIR), peak memory."""
    entry = {"type": model, "l": l, "sensitive": SENSITIVE, **({"k": l} if model == "ir-kl-anonymity" else {})}

    def source(engine, n):
        data = patients(engine.con, f"patients_{n}", individuals=n, seed=n)
        return data["table"], (f"patients_{n}", data["records"])

    def spec(context, algorithm):
        return patients_spec(context[0], qis=qis, model=entry, algorithm={"name": algorithm, "seed": 0},
                             suppression_limit=1.0, release=f"bench_{algorithm}")

    def figures(result, context) -> dict:
        return {"records": context[1], "model": model, "l": l, "qis": qis, "classes": result.classes,
                "steps_algorithm": result.algorithm.get("rounds"), "nloss": round(result.utility["nloss"], 4),
                "to_python": result.algorithm.get("fetched", "-"), "to_duckdb": result.algorithm.get("sent", "-"),
                "to_python_by": result.algorithm.get("fetched_by", "-"),
                **{f"{n}_algorithm": result.algorithm.get(n, "-") for n in ("batches", "rescans", "plain")}}

    return release_runs("ir", individuals_list, algorithms, repeat, source, spec, list(QIS[:qis]) + [SENSITIVE],
                        figures)


def format_ir_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    return format_table(runs, [("patients", 9, figure("rows")), ("records", 8, figure("records")),
                               ("algorithm", 9, figure("algorithm", "<9")), *COMMON_COLUMNS,
                               ("algo s", 7, lambda r: f"{r['steps'].get('algorithm', 0):.2f}"),
                               ("steps", 7, figure("steps_algorithm")), ("classes", 8, figure("classes")),
                               ("NLoss", 7, figure("nloss", ".4f")), ("to py", 8, figure("to_python")),
                               ("to db", 7, figure("to_duckdb")), PEAK_COLUMN])
