"""The MSB algorithms of paper 002: buckets, the greedy phases, rows to groups; the reading
guide is the package's (:mod:`anonymizer.families.anatomy`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from anonymizer.engine.session import Engine
from anonymizer.plan import Plan
from anonymizer.families.anatomy.buckets import build_buckets, build_levels
from anonymizer.families.anatomy.greedy import Buckets, Outcome, run_greedy, warm
from anonymizer.families.anatomy.runs import runs_of
from anonymizer.families.anatomy import options

if TYPE_CHECKING:
    from anonymizer.families.anatomy.models import LslDiversity, MultiLDiversity


@dataclass
class MsbResult:
    """The groups of an MSB run: ``assign(__rid, __cid)`` plus what the greedy did; under
    m-invariance (:mod:`.invariance`) ``assign`` also has the private group ``__gid``
    (``kept``), and ``rows`` the records with the ``counterfeits`` (negative ids)."""

    assign: str
    levels: str
    buckets: str
    groups: int
    suppressed: int
    seconds: float
    notes: dict = field(default_factory=dict)
    rows: str | None = None
    counterfeits: int = 0
    kept: bool = False


def split_name(name: str) -> tuple[str, bool]:
    """``"msdcf-mslf"`` -> ``("msdcf", True)``."""
    policy, _, variant = name.partition("-")
    return policy, variant == "mslf"


def msb(engine: Engine, plan: Plan) -> MsbResult:
    """Run the spec's MSB algorithm on ``plan.base`` (see the module docstring); its seconds
    leave out compiling the greedy (:func:`.greedy.warm`)."""
    engine.say(f"{plan.algorithm}: loading the compiled greedy phases (numba compiles them once per installation, "
               "about 20 s; later runs load them from its cache)")
    with engine.watch(f"{plan.algorithm}: compiling the greedy phases with numba (once per installation)"):
        warm()
    start = time.perf_counter()
    model = cast("LslDiversity | MultiLDiversity", plan.models[0])   # the release's one model (options.pair)
    policy, mslf = split_name(plan.algorithm)
    levels = build_levels(engine, plan, [model.l_of(s) for s in range(3)])
    table, buckets, _ = build_buckets(engine, plan, levels, plan.seed)
    engine.say(f"{plan.algorithm}: {len(buckets.size)} buckets over {buckets.d} sensitive attributes")
    if not mslf:
        buckets = uniform(buckets)
    t0 = time.perf_counter()
    batch = options.of(plan).batch
    with engine.watch(f"{plan.algorithm}: the greedy phases over {len(buckets.size)} buckets"):
        outcome = run_greedy(buckets, policy, mslf, batch)
    greedy_seconds = time.perf_counter() - t0
    engine.say(f"{plan.algorithm}: {outcome.groups} groups in {outcome.iterations} greedy steps, "
               f"{outcome.residual_added} records added, {outcome.suppressed} suppressed")
    assign = engine.work("assign")
    runs = engine.work("msb_runs")
    found = runs_of(outcome.takes)
    engine.load_frame(found, runs)   # columns of numpy arrays: no per-value Python objects
    engine.run("families/anatomy/assign.sql.j2", plan.key.params(), target=assign, base=plan.base,
               buckets=table, runs=runs, sens=[k.internal for k in plan.sensitive])
    return MsbResult(assign, levels, table, outcome.groups, outcome.suppressed, time.perf_counter() - start,
                     _notes(outcome, buckets, greedy_seconds, batch, len(found["bid"])))


def uniform(buckets: Buckets) -> Buckets:
    """The baselines' buckets: every value demands the ``l`` of the highest level present."""
    top = int(buckets.lval[buckets.size > 0].max())
    return Buckets(buckets.vals, np.full_like(buckets.lval, top), np.zeros_like(buckets.level), buckets.size,
                   buckets.tie, buckets.domain)


def _notes(o: Outcome, b: Buckets, seconds: float, batch, runs: int) -> dict:
    """What the run did; the rows it moved between the database and Python: the buckets and one
    domain size per dimension that :func:`.buckets.build_buckets` reads, the ``runs`` handed back
    (the greedy's ``takes`` before they were merged)."""
    return {"rows_to_python": int(len(b.size)) + b.d, "rows_from_python": runs,
            "buckets": int(len(b.size)), "dimensions": b.d, "groups": o.groups, "grouped": o.grouped,
            "residual_added": o.residual_added, "suppressed": o.suppressed, "greedy_steps": o.iterations,
            "failed_starts": o.failures, "residual_steps": o.residual_steps, "takes": len(o.takes),
            "scanned": o.scanned, "sorts": o.sorts,
            "greedy_seconds": round(seconds, 4), "batch": batch}


__all__ = ["msb", "MsbResult", "split_name", "uniform"]
