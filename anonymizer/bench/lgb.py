"""Benchmark of paper 000's LGB algorithms on synthetic Adult-like tables (``anonymizer bench
lgb``): the whole release (attribute classes, QI partition, local bucketization,
local generalization, the LGB table, verification, publication) against one plain
``GROUP BY`` over the same attributes.

The table is section 4's shape (:mod:`anonymizer.datasets.flagged`): sex, age and occupation
semi-sensitive with flags at ``density``, five QI attributes, a numeric ``fnlwgt`` sensitive;
t = 0.2 on sex, l-unique on the others. Target (issue 5): 1M rows within 60 s for LGB_MDP.

Example:
    >>> runs = list(run_lgb_bench([3000], ["lgb-mdp"], repeat=1))
    >>> runs[0]["bench"], runs[0]["rows"], runs[0]["groups"] > 0
    ('lgb', 3000, True)
"""

from __future__ import annotations

from typing import Iterator

from anonymizer.bench.harness import COMMON_COLUMNS, PEAK_COLUMN, figure, format_table, release_runs
from anonymizer.datasets.flagged import SEMI_SENSITIVE, SYNTHETIC_QI, experiment_spec, flagged_synthetic


def run_lgb_bench(rows_list, algorithms, repeat: int = 3, k: int = 5, l: int = 5,
                  density: float = 0.2) -> Iterator[dict]:
    """Yield one dict per run: rows, algorithm, seconds (whole release), scan_seconds, ratio,
    the release's step timings, bucketization and generalization seconds, peak memory."""

    def source(engine, rows):
        return flagged_synthetic(engine.con, f"lgb_{rows}", rows, density=density, seed=rows), f"lgb_{rows}"

    def figures(result, _context) -> dict:
        a = result.algorithm
        return {"k": k, "l": l, "density": density, "bucketization_seconds": a["bucketization_seconds"],
                "generalization_seconds": a["generalization_seconds"], "groups": a["groups"],
                "buckets": sum(a["buckets"].values()), "c_dm": result.utility["c_dm"],
                "ncp_per_qi_cell": round(result.utility["ncp_per_qi_cell"], 4)}

    return release_runs("lgb", rows_list, algorithms, repeat, source,
                        lambda table, algorithm: experiment_spec(table, algorithm, k=k, l=l, qi=SYNTHETIC_QI),
                        list(SEMI_SENSITIVE) + list(SYNTHETIC_QI) + ["fnlwgt"], figures)


def format_lgb_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    return format_table(runs, [("rows", 10, figure("rows")), ("algorithm", 8, figure("algorithm", "<8")),
                               *COMMON_COLUMNS, ("bucket", 7, figure("bucketization_seconds", ".2f")),
                               ("general", 8, figure("generalization_seconds", ".2f")),
                               ("groups", 8, figure("groups")), ("buckets", 8, figure("buckets")),
                               ("NCP/cell", 8, figure("ncp_per_qi_cell", ".4f")), PEAK_COLUMN])
