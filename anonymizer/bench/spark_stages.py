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
- **model**: the release's seconds predicted on 1 to 64 executors from its measured stages
  (:func:`scaling_model`): what the tasks cost per partition scales, what each stage costs
  beside its tasks and the time outside the stages (the driver) does not.
"""

from __future__ import annotations

import math

#: the targets: figure -> (the bound, whether the figure must stay at most it)
TARGETS = {"jobs": (20, True), "passes": (4.0, True), "shuffle": (3.0, True), "busy": (0.5, False)}


def group_stages(spark, group: str) -> dict:
    """Sums over the completed stages of the jobs of ``group``: ``records`` read from tables
    and files, ``input_bytes``, ``shuffle_bytes`` written, ``task_seconds`` (executor run
    time), ``stages``; and ``each`` stage's (tasks, task seconds, wall seconds). Stages a job
    skipped (their output reused) count nothing."""
    context = spark.sparkContext
    store = context._jsc.sc().statusStore()
    seen: set[int] = set()
    found = {"records": 0, "input_bytes": 0, "shuffle_bytes": 0, "task_seconds": 0.0, "stages": 0, "each": []}
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
            began, ended = data.submissionTime(), data.completionTime()
            wall = (ended.get().getTime() - began.get().getTime()) / 1000 if began.isDefined() and ended.isDefined() else 0.0
            found["each"].append((data.numTasks(), data.executorRunTime() / 1000, wall))
    return found


#: the executor counts :func:`scaling_model` predicts a release's seconds for
EXECUTORS = (1, 2, 4, 8, 16, 32, 64)


def scaling_model(each: list[tuple[int, float, float]], seconds: float, cores: int,
                  executor_cores: int = 1) -> dict[str, dict[int, float]]:
    """A release's seconds on ``E`` executors of ``executor_cores`` cores, from its stages as
    measured on ``cores`` cores (``each``: (tasks n, task seconds T, wall w) per stage):

    - a stage's tasks cost T in all; on E executors they are max(n, E x executor_cores) tasks
      (its partitions raised to the cores, as file splits and ``spark.sql.shuffle.partitions``
      are set for a cluster) of T over that many each, run in waves of E x executor_cores;
    - what a stage cost beside its tasks, w - ceil(n / cores) x T / n (scheduling it, the
      driver's side of it), stays as measured;
    - the time outside the stages (the driver: DuckDB over the cells, Python, the catalog)
      stays, the release's seconds less the stages' walls.

    Returns ``{"seconds": {E: release s}, "stages": {E: s in the stages}}``. A model, not a
    measurement: it leaves out the network a cluster's shuffle crosses and skew between tasks.
    """
    fixed, outside = 0.0, seconds - sum(w for _, _, w in each)
    for n, total, wall in each:
        fixed += max(0.0, wall - math.ceil(n / cores) * total / n) if n else wall
    model: dict[str, dict[int, float]] = {"seconds": {}, "stages": {}}
    for executors in EXECUTORS:
        slots = executors * executor_cores
        staged = fixed + sum(total / max(n, slots) * math.ceil(max(n, slots) / slots) for n, total, _ in each if n)
        model["stages"][executors] = round(staged, 2)
        model["seconds"][executors] = round(max(outside, 0.0) + staged, 2)
    return model


def table_bytes(spark, name: str) -> int:
    """The size on disk of the table ``name`` (Spark's quoting) as Spark's optimizer states it."""
    return int(spark.table(name)._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())


def release_costs(stages: dict, rows: int, source_bytes: int, seconds: float, cores: int) -> dict:
    """The figures of one release (see the module docstring) from :func:`group_stages`."""
    return {"model": scaling_model(stages["each"], seconds, cores),
            "passes": round(stages["records"] / rows, 2) if rows else None,
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
