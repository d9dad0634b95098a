"""Benchmark of paper 002's MSB algorithms on synthetic Adult-like tables (``anonymizer bench
--bench msb``): the whole anatomy release (buckets, greedy, rows to groups, both tables,
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

import duckdb

from anonymizer.bench.harness import scan_time, timed_release
from anonymizer.engine.session import Engine
from anonymizer.reproduce.p002_msb.experiment import present_values
from anonymizer.reproduce.p002_msb.setting import SYNTHETIC_COLUMNS, TABLE4, msb_spec
from anonymizer.datasets.synthetic import make_adult_like

QIS = ("age", "sex", "native_country")


def run_msb_bench(rows_list, algorithms, d: int = 3, repeat: int = 3, batch: str | float = 0.2) -> Iterator[dict]:
    """Yield one dict per run: rows, algorithm, seconds (whole release), scan_seconds, ratio,
    the release's step timings, greedy figures and peak memory. ``batch``: ``"exact"`` or a fraction."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    engine = Engine(con)
    sens_names = [SYNTHETIC_COLUMNS[a] for a in TABLE4[d]]
    try:
        for rows in rows_list:
            source = make_adult_like(engine, f"msb_{rows}", rows, seed=rows)
            present = present_values(con, f"msb_{rows}", SYNTHETIC_COLUMNS)   # small tables lack rare values
            for algorithm in algorithms:
                for i in range(repeat):
                    scan = scan_time(engine, source, sens_names)
                    spec = msb_spec(f"msb_{rows}", algorithm, d, QIS, columns=SYNTHETIC_COLUMNS, batch=batch,
                                    present=present, release=f"msb_{rows}_{algorithm.replace('-', '_')}")
                    result, run = timed_release(engine, spec, scan)
                    a = result.algorithm
                    yield {"bench": "msb", "rows": rows, "d": d, "algorithm": algorithm, "batch": batch,
                           **run,
                           "buckets": a["buckets"], "groups": a["groups"], "greedy_steps": a["greedy_steps"],
                           "greedy_seconds": a["greedy_seconds"], "residual_added": a["residual_added"],
                           "suppressed": result.suppressed,
                           "additional_information_loss": round(result.utility["additional_information_loss"], 4)}
            engine.execute(f"DROP TABLE {source}")
    finally:
        con.close()


def format_msb_bench(runs: list[dict]) -> str:
    """A readable table: one line per run."""
    lines = [f"{'rows':>10} {'algorithm':<11} {'seconds':>8} {'scan':>6} {'ratio':>6} {'greedy':>7} "
             f"{'steps':>6} {'groups':>9} {'loss':>6} {'supp':>8} {'peak MB':>8}"]
    for r in runs:
        lines.append(f"{r['rows']:>10} {r['algorithm']:<11} {r['seconds']:>8.2f} {r['scan_seconds']:>6.2f} "
                     f"{r['ratio']:>6} {r['greedy_seconds']:>7.2f} {r['greedy_steps']:>6} {r['groups']:>9} "
                     f"{r['additional_information_loss']:>6.3f} {r['suppressed']:>8} {r['peak_mb']:>8.0f}")
    return "\n".join(lines)
