"""Benchmark of paper 000's LGB algorithms on synthetic Adult-like tables (``anonymizer bench
--bench lgb``): the whole release (attribute classes, QI partition, local bucketization,
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

import duckdb

from anonymizer.bench.harness import scan_time, timed_release
from anonymizer.engine.session import Engine
from anonymizer.datasets.flagged import SEMI_SENSITIVE, SYNTHETIC_QI, experiment_spec, flagged_synthetic


def run_lgb_bench(rows_list, algorithms, repeat: int = 3, k: int = 5, l: int = 5,
                  density: float = 0.2) -> Iterator[dict]:
    """Yield one dict per run: rows, algorithm, seconds (whole release), scan_seconds, ratio,
    the release's step timings, bucketization and generalization seconds, peak memory."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    engine = Engine(con)
    names = list(SEMI_SENSITIVE) + list(SYNTHETIC_QI) + ["fnlwgt"]
    try:
        for rows in rows_list:
            source = flagged_synthetic(con, f"lgb_{rows}", rows, density=density, seed=rows)
            for algorithm in algorithms:
                for _ in range(repeat):
                    scan = scan_time(engine, source, names)
                    result, run = timed_release(engine, experiment_spec(f"lgb_{rows}", algorithm, k=k, l=l,
                                                                        qi=SYNTHETIC_QI), scan)
                    a = result.algorithm
                    yield {"bench": "lgb", "rows": rows, "algorithm": algorithm, "k": k, "l": l,
                           "density": density, **run,
                           "bucketization_seconds": a["bucketization_seconds"],
                           "generalization_seconds": a["generalization_seconds"],
                           "groups": a["groups"], "buckets": sum(a["buckets"].values()),
                           "suppressed": result.suppressed, "c_dm": result.utility["c_dm"],
                           "ncp_per_qi_cell": round(result.utility["ncp_per_qi_cell"], 4)}
            engine.execute(f"DROP TABLE {source}")
    finally:
        con.close()


def format_lgb_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    lines = [f"{'rows':>10} {'algorithm':<8} {'seconds':>8} {'scan':>6} {'ratio':>6} {'bucket':>7} "
             f"{'general':>8} {'groups':>8} {'buckets':>8} {'NCP/cell':>8} {'peak MB':>8}"]
    for r in runs:
        lines.append(f"{r['rows']:>10} {r['algorithm']:<8} {r['seconds']:>8.2f} {r['scan_seconds']:>6.2f} "
                     f"{r['ratio']:>6} {r['bucketization_seconds']:>7.2f} {r['generalization_seconds']:>8.2f} "
                     f"{r['groups']:>8} {r['buckets']:>8} {r['ncp_per_qi_cell']:>8.4f} {r['peak_mb']:>8.0f}")
    return "\n".join(lines)
