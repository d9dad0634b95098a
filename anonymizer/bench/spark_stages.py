"""What a Spark release cost its executors, read from Spark's own status store (the figures
its UI and REST API show), per job group: the rows its tasks read from tables, the bytes it
shuffled and the time its tasks ran. ``anonymizer bench spark`` prints them beside the
targets a distributed engine is judged by (issue 58): Spark jobs per release at most the
rounds plus 20, at most 4 passes over the rows, a shuffle of at most 3 times the source's
bytes, executors busy at least half the release.

- **passes**: the records the release's stages read from tables and files, over the source's
  rows. A scan of the source or of any row-sized work table counts one; reading an aggregate
  (the cells, the classes) counts its share, so the figure is an upper bound on the passes
  over the rows themselves.
- **shuffle**: the bytes its stages wrote for shuffles, over the source's size on disk (the
  files of Spark's table, as its optimizer states them).
- **busy**: the executors' task time over the release's seconds times the cores Spark runs
  tasks on (``defaultParallelism``: a local master's threads, or the cluster's executor cores).
"""

from __future__ import annotations

#: the targets: figure -> (the bound, whether the figure must stay at most it)
TARGETS = {"jobs": (20, True), "passes": (4.0, True), "shuffle": (3.0, True), "busy": (0.5, False)}


def group_stages(spark, group: str) -> dict[str, float]:
    """Sums over the completed stages of the jobs of ``group``: ``records`` read from tables
    and files, ``input_bytes``, ``shuffle_bytes`` written, ``task_seconds`` (executor run
    time), ``stages``. Stages a job skipped (their output reused) count nothing."""
    context = spark.sparkContext
    store = context._jsc.sc().statusStore()
    seen: set[int] = set()
    found = {"records": 0, "input_bytes": 0, "shuffle_bytes": 0, "task_seconds": 0.0, "stages": 0}
    for job in context.statusTracker().getJobIdsForGroup(group):
        ids = store.job(job).stageIds()
        for i in range(ids.size()):
            stage = ids.apply(i)
            if stage in seen:
                continue
            seen.add(stage)
            data = store.lastStageAttempt(stage)
            if data.status().toString() != "COMPLETE":
                continue
            found["stages"] += 1
            found["records"] += data.inputRecords()
            found["input_bytes"] += data.inputBytes()
            found["shuffle_bytes"] += data.shuffleWriteBytes()
            found["task_seconds"] += data.executorRunTime() / 1000
    return found


def table_bytes(spark, name: str) -> int:
    """The size on disk of the table ``name`` (Spark's quoting) as Spark's optimizer states it."""
    return int(spark.table(name)._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())


def release_costs(stages: dict[str, float], rows: int, source_bytes: int, seconds: float, cores: int) -> dict:
    """The figures of one release (see the module docstring) from :func:`group_stages`."""
    return {"passes": round(stages["records"] / rows, 2) if rows else None,
            "shuffle": round(stages["shuffle_bytes"] / source_bytes, 2) if source_bytes else None,
            "busy": round(stages["task_seconds"] / (seconds * cores), 3) if seconds and cores else None,
            "shuffle_mb": round(stages["shuffle_bytes"] / 2**20, 1), "source_mb": round(source_bytes / 2**20, 1),
            "task_seconds": round(stages["task_seconds"], 1), "stages": stages["stages"], "cores": cores}


def targets(summary: dict) -> dict[str, dict]:
    """Each target of :data:`TARGETS` against a Spark summary of ``anonymizer bench spark``:
    ``{figure: {"value", "bound", "met"}}`` (the jobs' bound is the rounds plus 20); a figure
    not measured is left out."""
    met = {}
    for figure, (bound, at_most) in TARGETS.items():
        value = summary.get(figure)
        if value is None:
            continue
        if figure == "jobs":
            bound = (summary.get("rounds") or 0) + bound
        met[figure] = {"value": value, "bound": bound, "met": value <= bound if at_most else value >= bound}
    return met
