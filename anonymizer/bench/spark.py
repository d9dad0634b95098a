"""The same release on DuckDB and on Spark (``anonymizer bench spark``): the release of
``anonymizer bench release`` (:func:`anonymizer.bench.release.release_spec`: Mondrian, k = 10,
distinct l = 2 on ``salary``, the QIs age (numeric), workclass, education, marital_status,
occupation and sex (categorical, value sets)) on each engine, next to each engine's plain
``GROUP BY`` scan of the same six QIs of the same rows.

Per size the synthetic Adult-like source (:func:`anonymizer.datasets.synthetic.make_adult_like`)
is generated once into a DuckDB file; DuckDB writes it to Parquet and Spark reads that file
into a table of its catalog (``load_seconds``: the export and Spark's read and write, not
part of any release; no row passes through Python), and one untimed scan warms Spark's JVM
up. Then, per repeat, the engines take turns:

- **DuckDB**: a fresh process runs the scan and the release as ``bench release`` does; its
  peak memory is that process's peak resident memory (``ru_maxrss``);
- **Spark**: in this process, on one ``SparkSession`` (``master``, ``conf``): the scan (the
  same template, transpiled), then :func:`~anonymizer.release.run.run_release`. Its figures:
  the statements the engine ran, the Spark jobs they started (counted by job group), and the
  peak resident memory of the driver JVM, sampled every 0.2 s from ``/proc`` (on a local
  master the driver JVM runs the executors too, so that is all of Spark's memory; on a
  cluster the executors are not measured). Unavailable figures are ``None``.

The Spark source, the published views and the snapshots go to databases named for the run
(``anon_bench_<id>``, ``..._published``, ``..._releases``), dropped at the end, so a
warehouse passed with ``conf`` keeps everything else. Each release publishes (forced) and
what it published is dropped afterwards, on both engines. Figures per engine and size are the
medians of the repeats (``runs`` lists each release's seconds); memory is the largest peak.

Example (needs pyspark and Java):
    >>> rows = list(run_spark_bench([2000], repeat=1))          # doctest: +SKIP
    >>> [r["engine"] for r in rows], rows[0]["classes"] == rows[1]["classes"]   # doctest: +SKIP
    (['duckdb', 'spark'], True)
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

from anonymizer.bench.harness import Column, format_table, scan_time
from anonymizer.bench.release import PHASES, QIS, SENSITIVE, TABLE, bench_directory, in_child, release_spec, rss
from anonymizer.bench.spark_floor import OPS, essential_seconds, floor_seconds
from anonymizer.bench.spark_stages import group_stages, release_costs, table_bytes, targets
from anonymizer.engine.names import ident, table

Say = Callable[[str], None]


def run_spark_bench(rows_list, repeat: int = 3, master: str = "local[2]", conf: dict[str, str] | None = None,
                    k: int = 10, l: int = 2, say: Say | None = None, directory: str | Path | None = None,
                    floor: bool = False) -> Iterator[dict]:
    """Yield, per size, one dict for DuckDB then one for Spark (keys: :func:`_summary`).

    Args:
        rows_list: source sizes, e.g. ``[1_000_000, 10_000_000]``.
        repeat: releases per engine and size, the engines taking turns.
        master: Spark's master URL (``local[2]``: two cores, as DuckDB's default on a 2-core machine).
        conf: more Spark settings (``spark.driver.memory``, ``spark.sql.shuffle.partitions``, ...);
            without ``spark.sql.warehouse.dir`` the warehouse is in ``directory`` (on a cluster's
            master with a Derby metastore beside it, so that the executors share the catalog).
        say: where progress lines go (``None``: nowhere).
        directory: where the DuckDB file, the Parquet file and the default warehouse go
            (``None``: a temporary directory, removed at the end); on a cluster, a directory
            the driver and every executor see at the same path.
        floor: after the releases, time the release's essential operations on both engines
            and add the floor they sum to (:mod:`anonymizer.bench.spark_floor`): ``floor_ops``,
            ``floor_seconds`` and, on Spark, ``floor_duckdb`` (its floor over DuckDB's release).
    """
    from pyspark.sql import SparkSession

    from anonymizer.engine.spark_session import session
    if SparkSession.getActiveSession() is not None:
        raise RuntimeError("a SparkSession is already active: the benchmark starts its own (stop the other first)")
    say = say or (lambda message: None)
    with bench_directory(directory, prefix="anonymizer-spark-bench-") as where:
        say(f"starting Spark ({master})")
        if master.startswith("local") or "spark.sql.warehouse.dir" in (conf or {}):
            spark = session(master, {"spark.sql.warehouse.dir": str(where / "warehouse"), **(conf or {})})
        else:   # a cluster's master: a catalog the executors share (engine/spark_session.py, catalog_problem)
            spark = session(master, dict(conf or {}), warehouse=str(where))
        try:
            bench = _SparkSide(spark, f"anon_bench_{uuid.uuid4().hex[:8]}")
            for rows in rows_list:
                yield from _size(bench, where, int(rows), repeat, k, l, say, floor)
        finally:
            spark.stop()


class _SparkSide:
    """The benchmark's side of Spark: its databases, the source's load and one release."""

    def __init__(self, spark, name: str):
        self.spark, self.name = spark, name
        self.published, self.snapshots = f"{name}_published", f"{name}_releases"
        self.jvm = _jvm_pid(spark)

    def load(self, parquet: Path) -> None:
        """Spark reads the Parquet file into ``<name>.adult_like`` (replacing it)."""
        self.spark.sql(f"CREATE DATABASE IF NOT EXISTS `{self.name}`")
        self.spark.read.parquet(str(parquet)).write.mode("overwrite").saveAsTable(f"`{self.name}`.`{TABLE}`")

    def warm(self) -> None:
        """One untimed scan: the JVM compiles Spark's own code on its first queries."""
        from anonymizer.engine.spark import SparkEngine
        scan_time(SparkEngine(self.spark), table(self.name, TABLE), QIS)

    def release(self, rows: int, k: int, l: int, say: Say) -> dict:
        """The scan, then one forced release; its figures (as a DuckDB run's, see :func:`_run_figures`)."""
        from anonymizer.engine.spark import SparkEngine
        from anonymizer.release.run import run_release
        from anonymizer.spec.parse import load_spec
        spec = release_spec(k, l)
        spec["source"]["schema"] = self.name
        spec["output"].update(schema=self.published, snapshot_schema=self.snapshots)
        scan = scan_time(SparkEngine(self.spark), table(self.name, TABLE), QIS)
        context, group, log = self.spark.sparkContext, f"{self.name}-{uuid.uuid4().hex[:6]}", []
        context.setJobGroup(group, "anonymizer bench spark")
        try:
            with _Peak(self.jvm) as peak:
                start = time.perf_counter()
                result = run_release(load_spec(spec), self.spark, force=True, log=log,
                                     progress=lambda message: say(f"spark, {rows} rows: {message}"))
                seconds = time.perf_counter() - start
        finally:
            context.setLocalProperty("spark.jobGroup.id", None)
        jobs = len(context.statusTracker().getJobIdsForGroup(group))
        costs = release_costs(group_stages(self.spark, group), rows, table_bytes(self.spark, f"`{self.name}`.`{TABLE}`"),
                              seconds, context.defaultParallelism)
        self.drop(self.published, self.snapshots)
        return {**_run_figures(seconds, scan, result.timings, result.classes, result.algorithm.get("rounds")),
                **costs, "statements": len(log), "jobs": jobs, "peak_mb": peak.mb,
                "round_rows": result.algorithm.get("round_rows"), "rounds_engine": result.algorithm.get("rounds_engine")}

    def floor(self, repeat: int, k: int, l: int) -> dict[str, float]:
        """The essential operations (:mod:`anonymizer.bench.spark_floor`) on this session."""
        from anonymizer.engine.spark import SparkEngine
        engine = SparkEngine(self.spark)
        try:
            return essential_seconds(engine, table(self.name, TABLE), QIS, SENSITIVE, repeat, k, l)
        finally:
            engine.close_work()

    def drop(self, *databases: str) -> None:
        for name in databases:
            self.spark.sql(f"DROP DATABASE IF EXISTS `{name}` CASCADE")


def _size(spark: _SparkSide, where: Path, rows: int, repeat: int, k: int, l: int, say: Say,
          floor: bool = False) -> Iterator[dict]:
    """Both engines on one size: generate, load, then ``repeat`` turns (and with ``floor``
    the essential operations on each engine)."""
    db, parquet = where / f"{TABLE}_{rows}.duckdb", where / f"{TABLE}_{rows}.parquet"
    say(f"{rows} rows: generating the source in DuckDB")
    generated = in_child({"task": "generate", "db": str(db), "rows": rows})["seconds"]
    say(f"{rows} rows: DuckDB writes Parquet, Spark reads it into a table")
    start = time.perf_counter()
    _export(db, parquet)
    exported = time.perf_counter()
    spark.load(parquet)
    done = time.perf_counter()
    spark.warm()
    loaded = {"generate_seconds": generated, "load_seconds": round(done - start, 2),
              "export_seconds": round(exported - start, 2), "read_seconds": round(done - exported, 2)}
    runs: dict[str, list[dict]] = {"duckdb": [], "spark": []}
    try:
        for turn in range(1, repeat + 1):
            say(f"{rows} rows, run {turn}/{repeat}: DuckDB")
            child = in_child({"task": "release", "db": str(db), "rows": rows, "k": k, "l": l,
                              "memory_limit": None, "threads": None, "progress": False})
            runs["duckdb"].append({**_run_figures(child["seconds"], child["scan_seconds"], child["steps"],
                                                  child["classes"], child["rounds"]),
                                   "statements": None, "jobs": None, "peak_mb": child["peak_rss_mb"]})
            say(f"{rows} rows, run {turn}/{repeat}: DuckDB {child['seconds']:.2f}s; Spark")
            runs["spark"].append(spark.release(rows, k, l, say))
            say(f"{rows} rows, run {turn}/{repeat}: Spark {runs['spark'][-1]['seconds']:.2f}s")
        if floor:
            say(f"{rows} rows: the floor, each essential operation {repeat} times on each engine")
            ops = {"duckdb": _duckdb_floor(db, repeat, k, l), "spark": spark.floor(repeat, k, l)}
    finally:
        spark.drop(spark.published, spark.snapshots)
        spark.spark.sql(f"DROP TABLE IF EXISTS `{spark.name}`.`{TABLE}`")
        spark.drop(spark.name)
        db.unlink(missing_ok=True)
        parquet.unlink(missing_ok=True)
    duck = _summary("duckdb", rows, runs["duckdb"], None, {"generate_seconds": generated, "load_seconds": None},
                    "process peak RSS (ru_maxrss)")
    master = str(spark.spark.conf.get("spark.master"))
    memory = ("driver JVM RSS, sampled" + ("" if master.startswith("local") else "; executors not measured")
              if spark.jvm else "unavailable (no JVM process found)")
    codec = spark.spark.sparkContext.getConf().get("spark.io.compression.codec", "lz4")   # the shuffle's bytes depend on it
    spark_side = _summary("spark", rows, runs["spark"], duck, {"master": master, "codec": codec, **loaded}, memory)
    spark_side["targets"] = targets(spark_side)
    if floor:
        for summary in (duck, spark_side):
            summary["floor_ops"] = ops[summary["engine"]]
            summary["floor_seconds"] = floor_seconds(ops[summary["engine"]], rows, spark_side["round_rows"])
        spark_side["floor_duckdb"] = round(spark_side["floor_seconds"] / duck["seconds"], 2)
    yield duck
    yield spark_side


def _duckdb_floor(db: Path, repeat: int, k: int, l: int) -> dict[str, float]:
    """The essential operations on DuckDB, over the generated source (attached read-only)."""
    import duckdb

    from anonymizer.engine.session import Engine
    with duckdb.connect() as con:
        con.execute("SET enable_progress_bar = false")
        path = str(db).replace("'", "''")
        con.execute(f"ATTACH '{path}' AS src (READ_ONLY)")
        engine = Engine(con)
        try:
            return essential_seconds(engine, table("src", "main", TABLE), QIS, SENSITIVE, repeat, k, l)
        finally:
            engine.close_work()


def _export(db: Path, parquet: Path) -> None:
    """DuckDB writes the source to one Parquet file (row groups Spark splits among its tasks)."""
    import duckdb
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("SET enable_progress_bar = false")
        path = str(parquet).replace("'", "''")
        con.execute(f"COPY {ident(TABLE)} TO '{path}' (FORMAT parquet)")


def _run_figures(seconds: float, scan: float, steps: dict, classes: int, rounds: int | None) -> dict:
    return {"seconds": round(seconds, 2), "scan_seconds": round(scan, 3), "classes": classes, "rounds": rounds,
            "steps": {p: round(steps.get(p, 0.0), 2) for p in PHASES}}


def _summary(engine: str, rows: int, runs: list[dict], duckdb: dict | None, extra: dict, memory: str) -> dict:
    """One engine on one size: bench, rows, engine, seconds (median release), runs (each
    release's seconds), scan_seconds (median), ratio (release / scan), spark_duckdb (this
    engine's release over DuckDB's; ``scan_spark_duckdb`` the same for the scans), steps
    (median seconds per phase), rounds, round_seconds (the algorithm's seconds per round),
    classes, same_classes (all runs alike), statements, jobs and job_seconds (Spark), round_rows
    (Spark: the rows in the partitions of each Mondrian round of the first release, where the
    rounds ran as Spark statements), rounds_engine (Spark: ``duckdb`` where the rounds ran on the
    driver over the cells, engine/spark_driver.py), what the release cost the executors (Spark:
    passes, shuffle, busy, shuffle_mb, source_mb, task_seconds, cores; :mod:`.spark_stages`), peak_mb
    (largest over the runs; ``memory`` says what it is), and the load's seconds."""
    seconds = statistics.median(r["seconds"] for r in runs)
    scan = statistics.median(r["scan_seconds"] for r in runs)
    base = duckdb or {"seconds": seconds, "scan_seconds": scan}
    peaks = [r["peak_mb"] for r in runs if r["peak_mb"]]
    steps = {p: round(statistics.median(r["steps"][p] for r in runs), 2) for p in PHASES}
    rounds, jobs = runs[0]["rounds"], _median(r["jobs"] for r in runs)
    models = [r["model"] for r in runs if r.get("model")]
    return {"bench": "spark", "rows": rows, "engine": engine, "seconds": round(seconds, 2),
            "runs": [r["seconds"] for r in runs], "scan_seconds": round(scan, 3),
            "ratio": round(seconds / scan, 1) if scan else None,
            "spark_duckdb": round(seconds / base["seconds"], 1) if base["seconds"] else None,
            "scan_spark_duckdb": round(scan / base["scan_seconds"], 1) if base["scan_seconds"] else None,
            "steps": steps, "rounds": rounds, "classes": runs[0]["classes"],
            "round_seconds": round(steps["algorithm"] / rounds, 2) if rounds else None,
            "job_seconds": round(seconds / jobs, 3) if jobs else None,
            "same_classes": len({r["classes"] for r in runs}) == 1,
            "statements": runs[0]["statements"], "jobs": jobs, "round_rows": runs[0].get("round_rows"),
            "rounds_engine": runs[0].get("rounds_engine"),
            **{f: _median(r.get(f) for r in runs) for f in COSTS},
            "model": {kind: {e: _median(m[kind][e] for m in models) for e in models[0][kind]} for kind in models[0]}
            if models else None,
            "peak_mb": round(max(peaks)) if peaks else None, "memory": memory, **extra}


#: the executors' figures of a Spark release (:mod:`anonymizer.bench.spark_stages`), medians over the runs
COSTS = ("passes", "shuffle", "busy", "shuffle_mb", "source_mb", "task_seconds", "cores")


def _median(values) -> float | None:
    found = [v for v in values if v is not None]
    return statistics.median(found) if found else None


class _Peak:
    """Samples the resident memory of process ``pid`` every ``every`` seconds on a thread;
    ``mb``: the peak in MB, ``None`` without a process to sample."""

    def __init__(self, pid: int | None, every: float = 0.2):
        self.pid, self.every, self.peak = pid, every, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "_Peak":
        if self.pid is not None:
            self.peak = rss(self.pid)
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()

    def _loop(self) -> None:
        while not self.stop.wait(self.every):
            self.peak = max(self.peak, rss(self.pid))

    @property
    def mb(self) -> float | None:
        return round(self.peak / 2**20) if self.pid is not None and self.peak else None


def _jvm_pid(spark) -> int | None:
    """The process id of the driver JVM pyspark started (``None`` if it did not start one
    here, or it is not a ``java`` process)."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    pid = getattr(proc, "pid", None)
    try:
        with open(f"/proc/{pid}/comm") as f:
            return pid if pid is not None and f.read().strip() == "java" else None
    except OSError:
        return None


def _cell(key: str, spec: str = "") -> Callable[[dict], str]:
    """``run[key]`` formatted with ``spec``, or ``-`` for a figure not measured on that engine."""
    return lambda r: "-" if r.get(key) is None else format(r[key], spec)


#: the readable table's columns
COLUMNS: list[Column] = [
    ("rows", 10, _cell("rows")), ("engine", 7, _cell("engine")), ("release s", 10, _cell("seconds", ".2f")),
    ("scan s", 7, _cell("scan_seconds", ".3f")), ("rel/scan", 9, _cell("ratio")),
    ("vs DuckDB", 9, _cell("spark_duckdb")), ("scan vs", 8, _cell("scan_spark_duckdb")),
    ("rounds", 6, _cell("rounds")), ("s/round", 7, _cell("round_seconds", ".2f")),
    ("stmts", 6, _cell("statements")), ("jobs", 6, _cell("jobs", ".0f")), ("s/job", 6, _cell("job_seconds", ".2f")),
    ("classes", 8, _cell("classes")), ("peak MB", 8, _cell("peak_mb")), ("load s", 7, _cell("load_seconds", ".2f")),
]


def format_spark_bench(rows: list[dict]) -> str:
    """The readable table, then each engine's phases and what its memory figure is."""
    phases = [f"{r['rows']:>10} {r['engine']:>7}  " + "  ".join(f"{p} {r['steps'][p]:.2f}" for p in PHASES)
              for r in rows]
    memory = sorted({f"{r['engine']}: {r['memory']}" for r in rows})
    floors = [f"{r['rows']:>10} {r['engine']:>7}  " + "  ".join(f"{op} {r['floor_ops'][op]:.3f}" for op in OPS)
              + f"  floor {r['floor_seconds']:.2f}"
              + (f" = {r['floor_duckdb']:.2f} x DuckDB's release" if "floor_duckdb" in r else "")
              for r in rows if "floor_ops" in r]
    goals = [f"{r['rows']:>10} {r['engine']:>7}  " + "; ".join(
        f"{name} {t['value']:g}{f' ({codec})' if name == 'shuffle' and codec else ''} "
        f"{'<=' if name != 'busy' else '>='} {t['bound']:g}: {'met' if t['met'] else 'NOT met'}"
        for name, t in r["targets"].items() for codec in [r.get("codec")]) for r in rows if r.get("targets")]
    models = [f"{r['rows']:>10} {r['engine']:>7}  " + "  ".join(f"{e}: {s:.1f}" for e, s in r["model"]["seconds"].items())
              + "  (in stages: " + ", ".join(f"{s:.1f}" for s in r["model"]["stages"].values()) + ")"
              for r in rows if r.get("model")]
    return "\n".join([format_table(rows, COLUMNS), "phases (median s):", *phases, "peak MB: " + "; ".join(memory),
                      *(["targets (jobs <= rounds + 20; passes: rows read / source rows; shuffle: bytes / source "
                         "bytes, in Spark's codec; busy: executors' task time / (seconds x cores)):", *goals] if goals else []),
                      *(["model (release s on E executors of 1 core, from the stages' measured costs; "
                         "anonymizer.bench.spark_stages.scaling_model):", *models] if models else []),
                      *(["floor (median s of each essential operation; anonymizer.bench.spark_floor):", *floors]
                        if floors else [])])
