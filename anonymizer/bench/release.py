"""Benchmark of a whole release at scale (``anonymizer bench release``): Mondrian with
k-anonymity (k = 10) and distinct l-diversity (l = 2) on ``salary``, over the six QIs age,
workclass, education, marital_status, occupation and sex of the synthetic Adult-like table
(:func:`anonymizer.datasets.synthetic.make_adult_like`); the other columns are dropped (role
``identifier``). Targets (issue 16): 10M rows under 25 s and 4 GB peak memory; 100M rows
complete under ``--memory-limit 8GB``, spilling to disk, in under 10 minutes.

Each size's source is generated once into a DuckDB *file* (``adult_like_<rows>.duckdb`` in
``directory``: 100M rows and the run's work copy would not sit comfortably in memory), and
every run is a fresh Python process (``python -m anonymizer.bench.release``), so that its
peak resident memory (``ru_maxrss``, which never falls within a process) is that run's
alone. A run times one plain ``GROUP BY`` over the six QIs of the source (the yardstick),
then the whole release (load, prepare, algorithm, generalize, verify, metrics, publish into
the same file; its per-phase timings are ``steps``), while a thread samples DuckDB's own
memory and what it spilled to disk. What the release published is dropped afterwards.

Example:
    >>> runs = list(run_release_bench([2000], repeat=1))
    >>> r = runs[0]
    >>> r["bench"], r["rows"], r["rows_out"], r["k"] >= 10, r["l"] >= 2
    ('release', 2000, 2000, True, True)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from anonymizer.demo import data_path

#: the six QIs of the benchmark (the first six of :data:`anonymizer.bench.harness.BENCH_QIS`) and the sensitive column
QIS = ("age", "workclass", "education", "marital_status", "occupation", "sex")
SENSITIVE = "salary"
TABLE = "adult_like"


#: the algorithms ``bench release`` runs (``--algorithm``)
ALGORITHMS = ("mondrian", "safepub", "dp-aggregates")
#: dp-aggregates' two dimensions and its measured column (bounds 1 to 99 hours)
DP_DIMENSIONS, DP_MEASURED = ("education", "sex"), "hours_per_week"


def release_spec(k: int = 10, l: int = 2, memory_limit: str | None = None, threads: int | None = None,
                 algorithm: str = "mondrian") -> dict:
    """The benchmark's release spec (see the module docstring). ``safepub``: the same QIs with
    ARX's Adult hierarchy files, epsilon 1, delta 1e-5, its default score (the sensitive column
    dropped: SafePub publishes quasi-identifiers only); ``dp-aggregates``:
    counts and the mean of hours_per_week by education and sex, at most 2 cells and 2 rows a
    cell per ``person`` (each person holds about 3 rows of the table), epsilon 1, delta 1e-6."""
    columns: dict = {q: {"role": "quasi", "type": "numeric" if q == "age" else "categorical"} for q in QIS}
    columns[SENSITIVE] = "sensitive"
    spec: dict = {"release": "bench_release", "source": {"table": TABLE}, "columns": columns,
                  "default_role": "identifier",
                  "models": [{"type": "k-anonymity", "k": k},
                             {"type": "distinct-l-diversity", "l": l, "sensitive": SENSITIVE}],
                  "algorithm": {"name": "mondrian"}, "output": {"view": "bench_release"}}
    if algorithm == "safepub":   # every QI with ARX's Adult hierarchy file (SafePub's rule)
        del spec["models"]
        spec["columns"][SENSITIVE] = "identifier"
        for q in QIS:
            spec["columns"][q]["hierarchy"] = {"csv": str(data_path(f"arx_adult/adult_hierarchy_{q.replace('_', '-')}.csv"))}
        spec.update(algorithm={"name": "safepub", "epsilon": 1.0, "delta": 1e-5},
                    budget={"epsilon": 1e9, "delta": 0.5})
    elif algorithm == "dp-aggregates":
        del spec["models"]
        spec.update(columns={**{d: "quasi" for d in DP_DIMENSIONS}, "person": "individual",
                             DP_MEASURED: {"role": "sensitive", "type": "numeric"}},
                    algorithm={"name": "dp-aggregates", "epsilon": 1.0, "delta": 1e-6, "groups_per_person": 2,
                               "rows_per_group": 2, "measures": ["count", {"mean": DP_MEASURED, "bounds": [1, 99]}]},
                    budget={"epsilon": 1e9, "delta": 0.5})
    engine = {k: v for k, v in (("memory_limit", memory_limit), ("threads", threads)) if v is not None}
    if engine:
        spec["engine"] = engine
    return spec


def run_release_bench(rows_list, repeat: int = 1, memory_limit: str | None = None, threads: int | None = None,
                      directory: str | Path | None = None, k: int = 10, l: int = 2,
                      progress: bool = False, algorithm: str = "mondrian") -> Iterator[dict]:
    """Yield one dict per run (see :func:`_release_run` for its keys).

    Args:
        rows_list: source sizes, e.g. ``[1_000_000, 10_000_000, 100_000_000]``.
        repeat: runs per size, each in a fresh process.
        memory_limit: the spec's ``engine.memory_limit`` (e.g. ``"8GB"``); ``None``: DuckDB's default.
        threads: the spec's ``engine.threads``; ``None``: DuckDB's default (the machine's cores).
        directory: where the generated sources stay (reused when present); ``None``: a
            temporary directory removed at the end.
        progress: the runs' progress lines on stderr.
        algorithm: one of :data:`ALGORITHMS` (:func:`release_spec`).
    """
    with bench_directory(directory) as where:
        for rows in rows_list:
            db = where / f"{TABLE}_{int(rows)}.duckdb"
            if not db.exists():
                in_child({"task": "generate", "db": str(db), "rows": int(rows)})
            for _ in range(repeat):
                yield in_child({"task": "release", "db": str(db), "rows": int(rows), "k": k, "l": l,
                              "memory_limit": memory_limit, "threads": threads, "progress": progress,
                              "algorithm": algorithm})


@contextmanager
def bench_directory(directory: str | Path | None, prefix: str = "anonymizer-bench-") -> Iterator[Path]:
    """``directory`` (created if missing), or a temporary directory removed at the end."""
    if directory is not None:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def in_child(task: dict) -> dict:
    """Run ``task`` in a fresh Python process; its progress goes to our stderr, its result
    is the last line of its stdout."""
    done = subprocess.run([sys.executable, "-m", "anonymizer.bench.release", json.dumps(task)],
                          stdout=subprocess.PIPE, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"benchmark process for {task['task']} of {task['rows']} rows failed "
                           f"(exit status {done.returncode})")
    return json.loads(lines[-1])


# -- inside the child process ---------------------------------------------------------------
def _generate(db: str, rows: int) -> dict:
    from anonymizer.datasets.synthetic import make_adult_like
    start = time.perf_counter()
    with duckdb.connect(db) as con:
        con.execute("SET enable_progress_bar = false")
        make_adult_like(con, TABLE, rows, seed=rows)
        # a person key for dp-aggregates: about three rows a person, scattered over the table
        con.execute(f"ALTER TABLE {TABLE} ADD COLUMN person BIGINT")
        con.execute(f"UPDATE {TABLE} SET person = hash(rowid) % {max(rows // 3, 1)}")
        con.execute("CHECKPOINT")
    return {"task": "generate", "rows": rows, "seconds": round(time.perf_counter() - start, 2)}


class _Sampler:
    """Samples this process's resident memory and DuckDB's memory and spilled bytes every
    ``every`` seconds, on its own cursor, keeping the peaks."""

    def __init__(self, con: duckdb.DuckDBPyConnection, every: float = 0.2):
        self.cursor, self.every = con.cursor(), every
        self.duckdb_peak = self.spilled_peak = self.rss_peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "_Sampler":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        self.cursor.close()

    def _loop(self) -> None:
        while not self.stop.wait(self.every):
            try:
                used, spilled = self.cursor.execute(
                    "SELECT coalesce(sum(memory_usage_bytes), 0), coalesce(sum(temporary_storage_bytes), 0) "
                    "FROM duckdb_memory()").fetchone()
            except duckdb.Error:
                continue
            self.duckdb_peak, self.spilled_peak = max(self.duckdb_peak, used), max(self.spilled_peak, spilled)
            self.rss_peak = max(self.rss_peak, rss())


def rss(pid: int | str = "self") -> int:
    """The resident memory of process ``pid`` (default: this one) now, in bytes (0 where /proc
    is missing or the process is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _release_run(db: str, rows: int, k: int, l: int, memory_limit: str | None, threads: int | None,
                 progress: bool = False, algorithm: str = "mondrian") -> dict:
    """One run: the scan, then the whole release. Keys: bench, rows, seconds (the release),
    scan_seconds, ratio, peak_rss_mb (the process's peak), duckdb_peak_mb and spilled_peak_mb
    (sampled), steps (the release's per-phase seconds), rows_out, classes, rounds, k, l
    (achieved), memory_limit, threads."""
    from anonymizer.api import anonymize
    from anonymizer.bench.harness import scan_time
    from anonymizer.engine.session import Engine
    from anonymizer.engine.names import ident
    with duckdb.connect(db) as con:
        con.execute("SET enable_progress_bar = false")
        scan = scan_time(Engine(con), ident(TABLE), DP_DIMENSIONS if algorithm == "dp-aggregates" else QIS)
        say = (lambda m: print(f"· {rows} rows: {m}", file=sys.stderr, flush=True)) if progress else None
        with _Sampler(con) as sampler:
            start = time.perf_counter()
            result = anonymize(release_spec(k, l, memory_limit, threads, algorithm), con, force=True, progress=say)
            seconds = time.perf_counter() - start
        for schema in ("published", "_anon_releases"):   # the budget ledger too
            con.execute(f"DROP SCHEMA IF EXISTS {ident(schema)} CASCADE")
        con.execute("CHECKPOINT")
    measured = (result.measures.get("sensitive") or {}).get(SENSITIVE, {})
    return {"bench": "release", "algorithm": algorithm, "rows": rows, "seconds": round(seconds, 2), "scan_seconds": round(scan, 3),
            "ratio": round(seconds / scan, 1) if scan else None,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "duckdb_peak_mb": round(sampler.duckdb_peak / 2**20),
            "spilled_peak_mb": round(sampler.spilled_peak / 2**20),
            "steps": {key: round(v, 2) for key, v in result.timings.items()},
            "rows_out": result.rows_out, "suppressed": result.suppressed, "classes": result.classes,
            "rounds": result.algorithm.get("rounds"), "k": result.measures.get("k"),
            "l": measured.get("distinct_l"),
            "memory_limit": memory_limit, "threads": threads}


#: the phases of a release, in order, as the readable table shows them
PHASES = ("load", "prepare", "algorithm", "generalize", "verify", "metrics", "publish")


def median_runs(runs: list[dict]) -> list[dict]:
    """Per size, the median of every figure of its runs (:func:`anonymizer.bench.harness.summarize`),
    each phase's seconds included; ``runs``: how many."""
    from anonymizer.bench.harness import summarize
    out = summarize(runs)
    for row in out:
        group = [r for r in runs if r["rows"] == row["rows"]]
        row["rows"], row["runs"] = group[0]["rows"], len(group)
        row["steps"] = {p: statistics.median(g["steps"].get(p, 0) for g in group) for p in group[0]["steps"]}
    return out


def format_release_bench(runs: list[dict]) -> str:
    """A readable table: one line per run, seconds per phase, memory in MB; then the medians
    of sizes run more than once."""
    head = (f"{'rows':>11} {'seconds':>8} {'scan':>6} {'ratio':>6} "
            + " ".join(f"{p[:7]:>7}" for p in PHASES)
            + f" {'peak RSS':>9} {'duckdb':>7} {'spilled':>7} {'limit':>6}")

    def line(r: dict, label: str = "") -> str:
        steps = r["steps"]
        return (f"{r['rows']:>11} {r['seconds']:>8.2f} {r['scan_seconds']:>6.2f} {r['ratio']:>6.1f} "
                + " ".join(f"{steps.get(p, 0):>7.2f}" for p in PHASES)
                + f" {r['peak_rss_mb']:>9.0f} {r['duckdb_peak_mb']:>7.0f} {r['spilled_peak_mb']:>7.0f} "
                  f"{r['memory_limit'] or '-':>6}{label}")

    lines = [head] + [line(r) for r in runs]
    medians = [m for m in median_runs(runs) if m["runs"] > 1]
    if medians:
        lines += ["medians:"] + [line(m, f"  ({m['runs']} runs)") for m in medians]
    return "\n".join(lines)


def _main(argv: list[str]) -> None:
    task = json.loads(argv[0])
    if task["task"] == "generate":
        out = _generate(task["db"], task["rows"])
    else:
        out = _release_run(task["db"], task["rows"], task["k"], task["l"], task["memory_limit"], task["threads"],
                           task.get("progress", False), task.get("algorithm", "mondrian"))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
