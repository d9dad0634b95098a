"""Benchmarks: Mondrian and a k-anonymity check on synthetic Adult-like tables.

Each run reports its time next to the time of one plain ``GROUP BY`` count over the same
QI columns of the same table (``scan_seconds``); the ratio is what compares across
machines (DESIGN.md, "Tests, oracles and benchmarks"). Targets: Mondrian k=10 over 6 QIs
on 10M rows within 30 s and 25 scans; the k-check within 2 s on 10M rows.

Example:
    >>> runs = list(run_bench([2000], repeat=1, check_only=True))
    >>> runs[0]["bench"], runs[0]["rows"]
    ('k-check', 2000)
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

import duckdb

from anonymizer.families.generalized.full_domain import full_domain
from anonymizer.families.generalized.steps import run_algorithm
from anonymizer.engine.footprint import memory
from anonymizer.engine.session import Engine
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec
from anonymizer.engine.names import ident
from anonymizer.datasets.synthetic import make_adult_like

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult

#: QIs in the order benchmarks take them (the first ``qis`` of these).
BENCH_QIS = ("age", "workclass", "education", "marital_status", "occupation", "sex",
             "race", "hours_per_week", "native_country", "relationship")
_NUMERIC = {"age", "hours_per_week"}
#: ``bench top-down``: the widths of the numeric QIs' interval hierarchy (then '*'); the
#: categorical QIs have none (top-down specializes them through halves of their codes)
TOP_DOWN_INTERVALS = (5, 10, 20)


def run_bench(rows_list, algorithm: str = "mondrian", k: int = 10, qis: int = 6, repeat: int = 3,
              check_only: bool = False, db: str | None = None) -> Iterator[dict]:
    """Yield one result dict per run (see the module docstring).

    Args:
        rows_list: table sizes to generate, e.g. ``[1_000_000, 10_000_000]``.
        algorithm: ``mondrian``, ``top-down`` (numeric QIs with a hierarchy of intervals,
            :data:`TOP_DOWN_INTERVALS`) or ``full-domain`` (at the top level but one, for timing).
        k: the k of k-anonymity.
        qis: how many quasi-identifiers (1 to 10).
        repeat: runs per size.
        check_only: only time the k-anonymity check, not the algorithm.
        db: a DuckDB file to hold the data (default: in memory).

    Yields:
        dicts with bench, rows, qis, k, seconds, scan_seconds, ratio, peak_mb, duckdb_mb,
        classes, rounds; for algorithm runs ``seconds`` is the whole anonymization (prepare:
        coding the QIs and copying the rows, plus the algorithm), split in
        ``prepare_seconds`` and ``algorithm_seconds``.
    """
    if not 1 <= qis <= len(BENCH_QIS):
        raise ValueError(f"qis must be between 1 and {len(BENCH_QIS)}, got {qis}")
    con = duckdb.connect(db or ":memory:")
    con.execute("SET enable_progress_bar = false")
    try:
        engine = Engine(con)
        names = BENCH_QIS[:qis]
        for rows in rows_list:
            source = make_adult_like(engine, f"bench_{rows}", rows, seed=rows)
            for _ in range(repeat):
                scan = scan_time(engine, source, names)
                if check_only:
                    yield _k_check(engine, source, names, rows, k, scan)
                else:
                    yield _algorithm_run(engine, f"bench_{rows}", names, rows, k, algorithm, scan)
            engine.drop(source)
    finally:
        con.close()


def summarize(runs: list[dict]) -> list[dict]:
    """Medians of the numeric figures per (bench, rows)."""
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["bench"], r["rows"]), []).append(r)
    out = []
    for group in groups.values():
        row = dict(group[0])
        for key, value in row.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                row[key] = statistics.median(g[key] for g in group)
        out.append(row)
    return out


def scan_time(engine: Engine, source: str, names) -> float:
    """Seconds of one plain GROUP BY count over ``names`` of ``source`` (the benchmarks' yardstick)."""
    start = time.perf_counter()
    engine.one("bench/scan.sql.j2", source=source, qis=[ident(n) for n in names])
    return time.perf_counter() - start


def timed_release(engine: Engine, spec: dict, scan: float) -> tuple["ReleaseResult", dict]:
    """Run one whole release (forced) and return its result with the figures every release
    benchmark prints: seconds, the plain scan's seconds (``scan``, timed by the caller) and the
    ratio to it, the release's step timings, peak memory; then drop what it published, so runs
    do not pile up snapshots."""
    from anonymizer.api import anonymize
    start = time.perf_counter()
    result = anonymize(spec, con=engine.con, force=True)
    seconds = time.perf_counter() - start
    peak, duck = memory(engine)
    for schema in ("published", "_anon_releases"):
        engine.execute(f"DROP SCHEMA IF EXISTS {ident(schema)} CASCADE")
    return result, {"seconds": round(seconds, 3), "scan_seconds": round(scan, 3),
                    "ratio": round(seconds / scan, 1) if scan else None, "peak_mb": peak, "duckdb_mb": duck,
                    "steps": {key: round(v, 3) for key, v in result.timings.items()}}


def release_runs(bench: str, sizes, algorithms, repeat: int, make_source: Callable[[Engine, int], tuple[str, Any]],
                 spec: Callable[[Any, str], dict], scanned: list[str],
                 figures: Callable[["ReleaseResult", Any], dict]) -> Iterator[dict]:
    """The loop of every whole-release benchmark (``bench msb``, ``lgb``, ``ir``): per size,
    ``make_source(engine, size)`` generates the table (its name and whatever ``spec`` needs);
    per algorithm and repeat, one plain scan over ``scanned`` and one forced release of
    ``spec(context, algorithm)``; each run yields bench, size, algorithm, :func:`timed_release`'s
    figures and ``figures(result, context)``, the family's own."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    engine = Engine(con)
    try:
        for size in sizes:
            source, context = make_source(engine, size)
            for algorithm in algorithms:
                for _ in range(repeat):
                    scan = scan_time(engine, source, scanned)
                    result, run = timed_release(engine, spec(context, algorithm), scan)
                    yield {"bench": bench, "rows": size, "algorithm": algorithm, **run,
                           "suppressed": result.suppressed, **figures(result, context)}
            engine.drop(source)
    finally:
        con.close()


#: a column of :func:`format_table`: header, width, and the cell's text from a run
Column = tuple[str, int, Callable[[dict], str]]


def format_table(runs: list[dict], columns: list[Column]) -> str:
    """A readable table, one line per run; the first column left-aligned if it is text."""
    lines = [" ".join(f"{head:>{width}}" for head, width, _ in columns)]
    for r in runs:
        lines.append(" ".join(f"{cell(r):>{width}}" for _, width, cell in columns))
    return "\n".join(lines)


def figure(key: str, spec: str = "") -> Callable[[dict], str]:
    """A cell showing ``run[key]`` with format ``spec`` (e.g. ``.2f``)."""
    return lambda r: format(r[key], spec)


COMMON_COLUMNS: list[Column] = [("seconds", 8, figure("seconds", ".2f")), ("scan", 6, figure("scan_seconds", ".2f")),
                                ("ratio", 6, figure("ratio"))]
PEAK_COLUMN: Column = ("peak MB", 8, figure("peak_mb", ".0f"))


def _record(bench, rows, names, k, seconds, scan, engine, **extra) -> dict:
    peak, duck = memory(engine)
    return {"bench": bench, "rows": rows, "qis": len(names), "k": k, "seconds": round(seconds, 3),
            "scan_seconds": round(scan, 3), "ratio": round(seconds / scan, 2) if scan else None,
            "peak_mb": peak, "duckdb_mb": duck, **extra}


def _k_check(engine: Engine, source: str, names, rows: int, k: int, scan: float) -> dict:
    start = time.perf_counter()
    failing, failing_rows, classes = engine.one("bench/k_check.sql.j2", {"k": k}, source=source,
                                                qis=[ident(n) for n in names])
    return _record("k-check", rows, names, k, time.perf_counter() - start, scan, engine,
                   classes=classes, rounds=1, failing_classes=failing, failing_rows=int(failing_rows))


def _algorithm_run(engine: Engine, table: str, names, rows: int, k: int, algorithm: str, scan: float) -> dict:
    columns = {n: {"role": "quasi", "type": "numeric" if n in _NUMERIC else "categorical"} for n in names}
    if algorithm == "top-down":   # it specializes along hierarchies: the numeric QIs get intervals
        for n in names:
            if n in _NUMERIC:
                columns[n]["hierarchy"] = {"intervals": list(TOP_DOWN_INTERVALS)}
    spec_dict = {"release": "bench", "source": {"table": table}, "columns": columns,
                 "default_role": "insensitive", "models": [{"type": "k-anonymity", "k": k}],
                 "algorithm": {"name": algorithm}}
    if algorithm == "full-domain":
        spec_dict["algorithm"]["levels"] = {n: 0 for n in names}
        spec_dict["suppression_limit"] = 1.0
    with engine.workspace():
        start = time.perf_counter()
        plan = prepare(engine, load_spec(spec_dict))
        prepared = time.perf_counter()
        if algorithm == "full-domain":
            result = full_domain(engine, plan, {q.name: max(q.height - 1, 0) for q in plan.qis})
        else:
            result = run_algorithm(engine, plan)
        done = time.perf_counter()
        return _record(algorithm, rows, names, k, done - start, scan, engine, classes=result.classes,
                       rounds=result.rounds, prepare_seconds=round(prepared - start, 3),
                       algorithm_seconds=round(done - prepared, 3),
                       round_seconds=result.notes.get("round_seconds"),
                       batch_seconds=result.notes.get("batch_seconds"), loop=result.notes.get("loop"))
