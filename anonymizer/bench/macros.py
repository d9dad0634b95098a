"""Benchmark of the SQL macro library on synthetic Adult-like tables.

Each macro an analyst would run on a table (``anon_k``, ``anon_class_profile``,
``anon_prosecutor_risk``, ``anon_l_diversity``, ``anon_t_closeness`` with both distances) is
timed next to one plain ``GROUP BY`` over the same QIs (the yardstick of every benchmark
here), and next to the Python engine's :func:`~anonymizer.measure.measure_table`, which
computes the same figures through the engine's templates. Sensitive attributes:
``occupation`` and ``salary``; QIs: the first ``qis`` of the other benchmark QIs.

Example:
    >>> runs = list(run_macros_bench([2000], repeat=1, qis=2))
    >>> sorted({r["macro"] for r in runs})[:2], runs[0]["rows"]
    (['anon_class_profile', 'anon_k'], 2000)
"""

from __future__ import annotations

import statistics
import time
from typing import Iterator, Sequence

import duckdb

from anonymizer.bench.harness import BENCH_QIS, scan_time
from anonymizer.engine.footprint import memory
from anonymizer.engine.session import Engine
from anonymizer.macros import install
from anonymizer.measure import measure_table
from anonymizer.datasets.synthetic import make_adult_like

SENSITIVE = ("occupation", "salary")

#: macro -> the statement timed ($t table, $q QIs, $s sensitive attributes, bound)
MACROS = {
    "anon_k": "SELECT * FROM anon_k($t, $q)",
    "anon_class_profile": "SELECT * FROM anon_class_profile($t, $q)",
    "anon_prosecutor_risk": "SELECT * FROM anon_prosecutor_risk($t, $q)",
    "anon_l_diversity": "SELECT * FROM anon_l_diversity($t, $q, $s)",
    "anon_t_closeness equal": "SELECT * FROM anon_t_closeness($t, $q, $s)",
    "anon_t_closeness ordered": "SELECT * FROM anon_t_closeness($t, $q, $s, distance := 'ordered')",
}


def run_macros_bench(rows_list: Sequence[int], repeat: int = 3, qis: int = 6) -> Iterator[dict]:
    """Yield one dict per (size, macro): rows, qis, macro, seconds (median of ``repeat``),
    scan_seconds (median), ratio, peak_mb; and one ``measure_table`` row per size (the
    engine computing k, risk, the three l and t for both sensitive attributes)."""
    names = [q for q in BENCH_QIS if q not in SENSITIVE][:qis]
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        engine = Engine(con)
        install(con)
        for rows in rows_list:
            table = f"bench_{rows}"
            make_adult_like(engine, table, rows, seed=rows)
            scans = [scan_time(engine, table, names) for _ in range(repeat)]
            scan = statistics.median(scans)
            params = {"t": table, "q": names, "s": list(SENSITIVE)}
            for macro, sql in MACROS.items():
                used = {k: v for k, v in params.items() if f"${k}" in sql}
                times = [_timed(lambda: con.execute(sql, used).fetchall()) for _ in range(repeat)]
                yield _row(rows, names, macro, times, scan, engine)
            times = [_timed(lambda: measure_table(con, table, names, list(SENSITIVE), distance="equal"))
                     for _ in range(repeat)]
            yield _row(rows, names, "measure_table (engine)", times, scan, engine)
            engine.drop(table)
    finally:
        con.close()


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _row(rows: int, names, macro: str, times: list[float], scan: float, engine: Engine) -> dict:
    seconds = statistics.median(times)
    peak, _ = memory(engine)
    return {"bench": "macros", "rows": rows, "qis": len(names), "macro": macro, "seconds": round(seconds, 3),
            "scan_seconds": round(scan, 3), "ratio": round(seconds / scan, 2) if scan else None, "peak_mb": peak}


def format_macros_bench(runs: list[dict]) -> str:
    """A readable table of the results, one line each."""
    lines = [f"{'rows':>11}  {'what':<26} {'seconds':>8}  {'scan s':>7}  {'ratio':>6}  {'peak MB':>7}"]
    for r in runs:
        lines.append(f"{r['rows']:>11,}  {r['macro']:<26} {r['seconds']:>8.3f}  {r['scan_seconds']:>7.3f}  "
                     f"{r['ratio']:>6}  {r['peak_mb']:>7.0f}")
    return "\n".join(lines)
