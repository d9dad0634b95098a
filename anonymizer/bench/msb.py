"""Benchmark of paper 002's MSB algorithms on synthetic Adult-like tables (``anonymizer bench
msb``): the whole anatomy release (buckets, greedy, rows to groups, both tables,
verification, publication) against one plain ``GROUP BY`` over the same sensitive columns.

The sensitive attributes are Table 4's for ``d`` with Table 3's security levels
(:mod:`anonymizer.reproduce.p002_msb.setting`); QIs are age, sex and native_country. Target (issue 4):
10M rows with d = 3 within 60 s.

Example:
    >>> runs = list(run_msb_bench([3000], ["mbf-mslf"], repeat=1))
    >>> runs[0]["bench"], runs[0]["rows"], runs[0]["suppressed"]
    ('msb', 3000, 0)
"""

from __future__ import annotations

from typing import Iterator

from anonymizer.bench.harness import COMMON_COLUMNS, PEAK_COLUMN, figure, format_table, release_runs
from anonymizer.datasets.synthetic import make_adult_like
from anonymizer.reproduce.p002_msb.experiment import present_values
from anonymizer.reproduce.p002_msb.setting import SYNTHETIC_COLUMNS, TABLE4, msb_spec

QIS = ("age", "sex", "native_country")


def run_msb_bench(rows_list, algorithms, d: int = 3, repeat: int = 3, batch: str | float = 0.2) -> Iterator[dict]:
    """Yield one dict per run: rows, algorithm, seconds (whole release), scan_seconds, ratio,
    the release's step timings, greedy figures, the rows MSB moves between the database and
    Python (``rows_to_python``: the buckets it reads; ``rows_from_python``: the runs it hands
    back, :mod:`anonymizer.families.anatomy.runs`, against the greedy's ``takes``) and peak
    memory. ``batch``: ``"exact"`` or a fraction."""

    def source(engine, rows):
        table = make_adult_like(engine, f"msb_{rows}", rows, seed=rows)
        return table, (f"msb_{rows}", present_values(engine.con, f"msb_{rows}", SYNTHETIC_COLUMNS))

    def spec(context, algorithm):
        table, present = context   # small tables lack rare values
        return msb_spec(table, algorithm, d, QIS, columns=SYNTHETIC_COLUMNS, batch=batch, present=present,
                        release=f"{table}_{algorithm.replace('-', '_')}")

    def figures(result, _context) -> dict:
        a = result.algorithm
        return {"d": d, "batch": batch, "buckets": a["buckets"], "groups": a["groups"],
                "greedy_steps": a["greedy_steps"], "greedy_seconds": a["greedy_seconds"],
                "residual_added": a["residual_added"], "takes": a["takes"],
                "rows_to_python": a["rows_to_python"], "rows_from_python": a["rows_from_python"],
                "additional_information_loss": round(result.utility["additional_information_loss"], 4)}

    return release_runs("msb", rows_list, algorithms, repeat, source, spec,
                        [SYNTHETIC_COLUMNS[a] for a in TABLE4[d]], figures)


def format_msb_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    return format_table(runs, [("rows", 10, figure("rows")), ("algorithm", 11, figure("algorithm", "<11")),
                               *COMMON_COLUMNS, ("greedy", 7, figure("greedy_seconds", ".2f")),
                               ("steps", 6, figure("greedy_steps")), ("groups", 9, figure("groups")),
                               ("takes", 8, figure("takes")),
                               ("to py", 6, figure("rows_to_python")), ("from py", 8, figure("rows_from_python")),
                               ("loss", 6, figure("additional_information_loss", ".3f")),
                               ("supp", 8, figure("suppressed")), PEAK_COLUMN])
