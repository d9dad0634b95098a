"""Mondrian multidimensional partitioning, run as SQL rounds inside DuckDB.

Papers: LeFevre, DeWitt and Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE
2006 (strict and relaxed median partitioning, section 3), as Algorithm 3
(``local_generalization``) of paper 000 (section 3.2.1) states it. Algorithm 3 runs
Mondrian inside each subset of a "QI partition" (personalized privacy): LGB_MDP passes
``partition_by`` and codes a subset's sensitive cells -1, so no split ever uses them; a
plain release has one subset, the whole table, so lines 2-3 loop once.

How the pseudocode maps to SQL. Algorithm 3 takes one partition at a time (``pick_set``);
we take *all* partitions of ``partition_set`` in each round, which gives the same result
because partitions are independent. Rows are first collapsed to *cells* (one per distinct
vector of QI codes and of the sensitive values the models read, with a row count; on Spark
from the source's vectors, :mod:`.vectors`): a strict split never separates equal QI vectors,
so rounds run over cells. Each round is six statements over the working set:

1. ``histogram``: rows per (partition, QI, code), one aggregate per QI over the cells; in
   strict mode with models that read a sensitive attribute, per (partition, QI, code,
   sensitive value);
2. ``candidates``: per partition and QI the normalized width, the median cut, |S_l|, |S_r|
   and the partition's bounds (``algorithm.split: loss``: instead the cuts whose sides lose
   least, :mod:`.loss_split`);
3. ``sides`` + ``model_ok`` (only with l-diversity, t-closeness, ...): the models on both
   sides of every candidate, all candidates of the round in one statement per attribute
   (strict: sums over the histogram, never a join of the cells with the candidates);
4. ``decide``: the widest valid QI per partition wins, or the partition is finished;
5. ``finish``: finished partitions' cells leave with their class id and bounds;
6. ``split``: the other cells move to their child partition.

The rounds run by one of two loops (``loop``), which make the same classes (class ids
included; tests/families/generalized/test_mondrian_loops.py):

- ``"recursive"`` (the default): a batch of rounds (:data:`HELD`) in one statement,
  ``families/generalized/mondrian/rounds.sql.j2``, a ``WITH RECURSIVE`` whose iteration is one round made of
  the same six templates rendered over CTEs; between batches Python moves the finished
  cells out. It is plain ``UNION ALL`` recursion, each iteration reading the cells the last
  one made (``USING KEY``, one row per cell replaced round after round, took twice the
  time). The statement holds every round's active cells until it ends, where the Python
  loop drops each round's table: the batch bounds that;
- ``"python"``: the six statements above, round by round from Python.

``anonymizer bench recursive`` times both: the recursive loop is the faster where cells are
fewer than rows; where nearly every row is its own cell it is the slower and holds more (the
statement keeps every round's active cells), and ``loop="python"`` is the choice there.

Choices the paper leaves open:

- normalized width of QI i: numeric ``(num(hi) - num(lo)) / (num_max - num_min)``;
  categorical ``(hi - lo) / (m - 1)`` on codes, which are in hierarchy (or declared) order,
  so a range of codes is a contiguous run of that order;
- strict cut: the median code (smallest code whose cumulative count reaches half); when it
  is the partition's largest code, the largest code below it, so S_r is never empty
  (``split: loss`` takes any cut instead, the QI and code whose sides lose least: on ARX's
  Adult it loses 30-45 % less than the median cut, see :mod:`.loss_split`);
- relaxed: S_l is every row below the median code plus as many rows *at* it as make
  |S_l| = floor(n / 2). Which tied rows go left is free in the paper; we take the tied
  cells in lexicographic order of their codes on the partition's QIs by decreasing width
  (then a hash of the cell), i.e. the tie is cut along the next widest QI. An arbitrary
  (hash) order left both halves with the partition's full range on every other QI: on
  Adult at k=5 that tripled the loss (0.067 against 0.030 now; strict: 0.020). Relaxed
  halves every partition exactly, so all partitions of a round hold floor or ceil of
  N / 2^r rows and the classes hold k..2k-1 rows but not necessarily k (Adult, k=5: 7
  or 8). A QI with a single value in the partition is never split (the two halves would
  carry the same generalized values); a partition whose rows all share one QI vector is
  a class even with >= 2k rows;
- every declared model must hold on both sides (not only k); the root (the whole table)
  must satisfy them all, else :class:`~anonymizer.errors.PrivacyCheckFailed`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from anonymizer.engine.session import Engine
from anonymizer.models import PrivacyModel, check
from anonymizer.plan import Plan
from anonymizer.engine.names import ident
from anonymizer.families.generalized import loss_split
from anonymizer.families.generalized.options import Inputs
from anonymizer.families.generalized.mondrian_snap import snap_context, snap_dims, snap_to_hierarchy
from anonymizer.families.generalized.vectors import usable_vectors, vectors_to_cells
from anonymizer.base_rows import written
from anonymizer.families.generalized.partitions import check_whole_table, packing, with_assign
from anonymizer.families.generalized.result import AlgorithmResult


#: How the rounds run (:func:`mondrian`'s ``loop``), and the rounds a recursive statement runs
#: by default (``batch="auto"``): as many as hold at most :data:`HELD` cells (rounds x cells:
#: the statement holds every round's active cells until it ends), at least :data:`BATCH`. On
#: 1M rows (215k cells) that is about 8 rounds, as fast as all of them in one, for bounded
#: memory; on ARX's Adult (19.5k cells, 19 rounds) every round in one statement, which saves
#: each further statement's parsing and planning (~40 ms) and its start (~0.1 s a batch,
#: local_k10_l3: 7 % of the release's instructions).
LOOPS = ("recursive", "python")
BATCH = 8
HELD = 2_000_000


@dataclass
class _Run:
    """Names and settings of one Mondrian run (all small)."""

    engine: Engine
    plan: Plan
    inputs: Inputs
    qis: list[str]                      # quoted q0..q{d-1}
    keys: list[str]                     # quoted qis + sensitive columns the models read
    checked: list[tuple[int, PrivacyModel, str]]  # (index, model, quoted s column) with a sensitive attribute
    globs: dict[int, str] = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    cells: str = ""                     # the current working set (pid, <keys>, n)
    cell_count: int = 0
    done_created: bool = False
    done: str = ""                      # the finished cells once the rounds end (default: t("done"))
    ladders: str | None = None          # the hierarchy ladders of the strict cuts along nodes
    codes: dict[str, str] = field(default_factory=dict)   # strict: sensitive column -> its (code, value) table
    packing: tuple | None = None        # split: loss: the packed counts' fields (loss_split.packing)

    @property
    def relaxed(self) -> bool:
        return self.inputs.relaxed

    def t(self, name: str) -> str:
        """A transient table of the run (see :meth:`Engine.transient`); only ``assign``, the
        result, is a work table."""
        return self.engine.transient(name)


def mondrian(engine: Engine, plan: Plan, inputs: Inputs, partition_by: str | None = None, loop: str = "recursive",
             batch: int | str | None = "auto", write_assign: bool = True) -> AlgorithmResult:
    """Partition ``plan.base`` by Mondrian under ``inputs`` and write ``engine.work("assign")``
    (``write_assign=False``: strict classes leave it to the candidate, :attr:`AlgorithmResult.packing`).

    ``partition_by``: a column of ``plan.base`` whose values are the first partitions
    (paper 000's QI partition, Algorithm 3 lines 2-3: Mondrian runs inside each subset);
    by default the whole table is one.

    ``loop``: how the rounds run, ``"recursive"`` (``batch`` rounds a statement, a recursive
    CTE whose iteration is a round; ``None``: every round in one statement; ``"auto"``: see
    :data:`HELD`) or ``"python"``
    (each round six statements, see the module docstring). Both make the same partitions,
    classes and class ids. A model under the ordered distance makes
    ``"recursive"`` run the Python loop (:func:`~anonymizer.models.check.uses_asof_join`), as
    do releases on Spark whose cells are too many for its driver (Spark refuses a recursive
    step that aggregates over itself; below that bound the rounds run on the driver's DuckDB,
    :meth:`~anonymizer.engine.session.Engine.for_aggregate`); ``notes["loop"]`` says which loop
    ran, ``notes["rounds_engine"]`` on which engine.

    Returns an :class:`AlgorithmResult` whose ``notes`` hold per-round (per-batch) timings.
    """
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {LOOPS}, got {loop!r}")
    if batch is not None and batch != "auto" and (not isinstance(batch, int) or batch < 1):
        raise ValueError(f"batch must be a positive number of rounds, 'auto' or None, got {batch!r}")
    start = time.perf_counter()
    run = _setup(engine, plan, inputs)
    raw, vectors = _collapse_to_cells(run, partition_by)   # Alg. 3, lines 1-4: T_anony = {}, partition_set = {T_set}
    with engine.for_aggregate(vectors or raw, *plan.aggregates, *run.globs.values()) as on_cells:   # Spark: its driver
        if vectors:   # the cells of the source's vectors, where the driver read them for the hierarchies
            vectors_to_cells(on_cells, plan, run.keys[len(run.qis):], raw)
        run.engine, run.cell_count = on_cells, on_cells.count(raw)
        check_whole_table(on_cells, plan, inputs.k, inputs.models, raw)   # Alg. 3, line 15 for T itself
        _code_cells(run, raw)
        loss_split.reorder(run)                # split: loss cuts categorical values most frequent first
        _positions(run)
        if loop == "recursive" and not on_cells.capabilities.one_statement(any(check.uses_asof_join(m)
                                                                               for _, m, _ in run.checked)):
            loop = "python"
        if isinstance(batch, str):             # "auto", the only string the check above lets through
            batch = max(BATCH, HELD // max(run.cell_count, 1))
        rounds, next_cid, timings, profile = _rounds(run) if loop == "python" else (*_batches(run, batch), None)
        loss_split.restore(run)
        cells = _class_cells(run)
        if run.relaxed:   # read with the rows (_assign); a strict class is found among the class cells: no copy
            run.done = engine.adopt(on_cells, run.done or run.t("done"), "done_cells")
        run.engine, rounds_engine = engine, on_cells.name
    assign = _assign(run)                      # line 30: return T_anony (strict: with_assign)
    engine.drop_transient()                    # the cells and the rounds' tables: their memory is free
    result = AlgorithmResult(assign=assign, cells=cells, classes=next_cid, suppressed=0, rounds=rounds,
                           seconds=time.perf_counter() - start,
                           notes={"round_seconds" if loop == "python" else "batch_seconds": timings,
                                  **({"round_rows": profile} if profile else {}),
                                  "loop": loop, "relaxed": run.relaxed, "cells": run.cell_count,
                                  "rounds_engine": rounds_engine},
                             packing=None if run.relaxed else packing(plan, run.qis))
    return with_assign(engine, plan, result) if write_assign else result


def _rounds(run: _Run) -> tuple[int, int, list[float], list[int]]:
    """Alg. 3, lines 5-29: split every partition until none can be split; returns the rounds,
    the classes made, each round's seconds and the rows its partitions held."""
    engine = run.engine
    rounds, next_cid, timings, profile = 0, 0, [], []
    while True:                                # Alg. 3, line 5: while partition_set is not empty
        t0 = time.perf_counter()
        _histogram(run)                        # lines 6-8: every partition is an oper_set
        _candidates(run)                       # lines 11-14: choose_dimension, cal_median, S_l, S_r
        snap_to_hierarchy(run)                 # line 12 for a QI with a hierarchy: cut between its nodes
        ok = _check_models(run)                # line 15: |S_l|, |S_r| >= k, and every other model
        counts = _decide(run, ok, next_cid)    # lines 10-22: the first valid QI by width wins
        if counts["partitions"] == 0:
            break
        rounds += 1
        profile.append(int(counts["rows"]))
        engine.say(f"round {rounds}: {counts['rows']} rows in {counts['partitions']} partitions")
        if counts["finished"]:
            _finish(run)                       # lines 24-26: T_anony += generalize(oper_set)
        next_cid += counts["finished"]
        if counts["splitting"] == 0:
            timings.append(round(time.perf_counter() - t0, 4))
            break
        _split(run, rounds)                    # lines 16-17: partition_set += S_l, S_r
        timings.append(round(time.perf_counter() - t0, 4))
    return rounds, next_cid, timings, profile


def _batches(run: _Run, batch: int | None) -> tuple[int, int, list[float]]:
    """Alg. 3, lines 5-29 with ``batch`` rounds a statement (families/generalized/mondrian/rounds.sql.j2, whose
    iteration is one round of :func:`_rounds`, made of the same templates); between two
    batches the finished cells go to ``done`` and the active ones are the next batch's
    working set. Returns the rounds, the classes made and each batch's seconds."""
    engine = run.engine
    rounds, next_cid, cells, numbered = 0, 0, run.cells, False
    timings: list[float] = []
    snap_to_hierarchy(run, prepare_only=True)
    engine.say(f"rounds: {run.cell_count} cells to split")   # the work the batches' messages count down
    while True:
        t0 = time.perf_counter()
        out = run.t(f"batch_{len(timings)}")
        text = engine.sql("families/generalized/mondrian/rounds.sql.j2", target=out, cells=cells, numbered=numbered, keys=run.keys,
                          stop=None if batch is None else rounds + batch, steps=_round_steps(run))
        engine.execute(text, check.used_params(text, run.params), template="families/generalized/mondrian/rounds.sql.j2")
        engine.drop(cells)
        finished, active, rounds, next_cid = engine.one("families/generalized/mondrian/batch_counts.sql.j2", batch=out)
        if finished:
            _finish_batch(run, out)            # lines 24-26, for the cells the batch finished
        timings.append(round(time.perf_counter() - t0, 4))
        engine.say(f"rounds 1-{rounds}: {active} cells active")
        if not active:
            return int(rounds), int(next_cid), timings
        cells, numbered = out, True


def _setup(engine: Engine, plan: Plan, inputs: Inputs) -> _Run:
    column = {k.column.name: ident(k.internal) for k in plan.sensitive}
    checked = [(i, m, column[m.sensitive]) for i, m in enumerate(inputs.models) if m.sensitive is not None]
    qis = [ident(q.code) for q in plan.qis]
    sens = sorted({c for _, _, c in checked})
    run = _Run(engine, plan, inputs, qis, qis + sens, checked)
    run.params = {"k": inputs.k, **loss_split.params(run)}
    for i, model, _ in checked:
        run.params.update(model.params(f"m{i}"))
    return run


def _collapse_to_cells(run: _Run, partition_by: str | None) -> tuple[str, str | None]:
    """The one pass over the rows (or none: the vectors it is to be summed from, :mod:`.vectors`): ``plan.base``
    collapsed to its cells, sensitive values raw (and the global distributions the models compare with)."""
    raw = run.t("cells_raw") if _by_sensitive(run) else run.t("cells_0")
    if (vectors := usable_vectors(run.engine, run.plan, run.keys[len(run.qis):], partition_by)) is None:
        run.engine.run("families/generalized/mondrian/cells.sql.j2", target=raw, base=written(run.engine, run.plan),
                       keys=run.keys, pid=ident(partition_by) if partition_by else None)
    for i, model, s in run.checked:
        if getattr(model, "needs_global", False):
            run.globs[i] = run.engine.work(f"glob{i}")
            run.engine.execute(f"CREATE TABLE {run.globs[i]} AS " + check.global_sql(written(run.engine, run.plan), s),
                               template="models/global_distribution.sql.j2")
    return raw, vectors


def _code_cells(run: _Run, raw: str) -> None:
    """The cells the rounds start from: strict, with small integer codes of the sensitive values."""
    sens = _by_sensitive(run)
    run.cells = run.t("cells_0") if sens else raw
    for j, s in enumerate(sens):
        run.codes[s] = run.t(f"scodes{j}")
        run.engine.run("families/generalized/mondrian/sensitive_codes.sql.j2", target=run.codes[s], cells=raw, s=s)
    if sens:
        run.engine.run("families/generalized/mondrian/coded_cells.sql.j2", target=run.cells, cells=raw, qis=run.qis,
                       sens=[{"col": s, "codes": run.codes[s]} for s in sens])
        run.engine.drop(raw)


def _positions(run: _Run) -> None:
    params, dims = {}, []
    for i, q in enumerate(run.plan.qis):
        if q.numeric:
            assert q.num_min is not None and q.num_max is not None   # a numeric QI has its domain
            params[f"min{i}"] = q.num_min
            params[f"span{i}"] = (q.num_max - q.num_min) or 1.0
        else:
            params[f"span{i}"] = float(max(q.m - 1, 1))
        dims.append({"dom": q.dom, "numeric": q.numeric})
    run.engine.run("families/generalized/mondrian/positions.sql.j2", params, target=run.t("positions"), dims=dims)


# -- one round ------------------------------------------------------------------------
def _by_sensitive(run: _Run) -> list[str]:
    """The sensitive columns the round's histogram keeps: those the models read, when the
    split is strict (a relaxed split's sides depend on the cells, see sides.sql.j2)."""
    return [] if run.relaxed else run.keys[len(run.qis):]


def _round_steps(run: _Run) -> dict:
    """The SQL of one round's steps over the CTEs of families/generalized/mondrian/rounds.sql.j2 (``live``, the
    active cells, then ``hist``, ``cand0``, ``cand``, ``ok``, ``decide``), as the Python
    loop's statements run them over its tables."""
    engine, snap = run.engine, snap_dims(run)
    sides, checks = _model_steps(run, "live", "hist", "cand", lambda j: f"sides{j}")
    return {
        "histogram": engine.sql("families/generalized/mondrian/histogram.sql.j2", target=None, **_histogram_context(run, "live")),
        "candidates": engine.sql(target=None, **_candidates_context(run, "live", "hist")),
        "snap": snap and engine.sql("families/generalized/mondrian/snap.sql.j2", select=True, **snap_context(run, "cand0", "hist", snap)),
        "sides": [{"name": name, "sql": engine.sql("families/generalized/mondrian/sides.sql.j2", target=None, **ctx)}
                  for name, ctx in sides],
        "model_ok": checks and engine.sql("families/generalized/mondrian/model_ok.sql.j2", target=None, checks=checks),
        "decide": engine.sql("families/generalized/mondrian/decide.sql.j2", target=None, next_cid="(SELECT base FROM state)",
                             **_decide_context(run, "cand", "ok" if checks else None)),
        "finish": engine.sql("families/generalized/mondrian/finish.sql.j2", target=None, create=False, cells="live", decide="decide",
                             keys=run.keys, qis=run.qis),
        "split": engine.sql("families/generalized/mondrian/split.sql.j2", target=None, cells="live", decide="decide", qis=run.qis,
                            keys=run.keys, relaxed=run.relaxed),
    }


def _histogram_context(run: _Run, cells: str) -> dict:
    return {"cells": cells, "qis": run.qis, "sens": _by_sensitive(run)}


def _histogram(run: _Run) -> None:
    run.engine.run("families/generalized/mondrian/histogram.sql.j2", target=run.t("hist"), **_histogram_context(run, run.cells))


def _candidates_context(run: _Run, cells: str, hist: str) -> dict:
    """The round's candidates template (``template``) and its context: the median cuts, or
    with ``split: loss`` the least-loss cuts (:mod:`.loss_split`)."""
    return loss_split.context(run, cells, hist) or {
        "template": "families/generalized/mondrian/candidates.sql.j2", "hist": hist, "positions": run.t("positions"),
        "dims": len(run.qis), "by_sensitive": bool(_by_sensitive(run)), "relaxed": run.relaxed}


def _candidates(run: _Run) -> None:
    text = run.engine.sql(target=run.t("cand"), **_candidates_context(run, run.cells, run.t("hist")))
    run.engine.execute(text, check.used_params(text, run.params), template="families/generalized/mondrian/candidates")


def _model_steps(run: _Run, cells: str, hist: str, cand: str, side_name) -> tuple[list[tuple[str, dict]], list[str]]:
    """The sides of every candidate, one relation ``side_name(j)`` per sensitive column (its
    sides.sql.j2 context), and each model's check over its column's sides."""
    sides: dict[str, str] = {}
    contexts, checks = [], []
    for i, model, s in run.checked:
        if s not in sides:
            sides[s] = side_name(len(sides))
            contexts.append((sides[s], {"cells": cells, "hist": hist, "cand": cand, "qis": run.qis,
                                        "keys": run.keys, "s": s, "codes": run.codes.get(s),
                                        "relaxed": run.relaxed}))
        checks.append(check.model_sql(model, sides[s], f"m{i}", run.globs.get(i), run.plan.hier_of(model), run.engine))
    return contexts, checks


def _check_models(run: _Run) -> str | None:
    """Evaluate the models with a sensitive attribute on both sides of every k-valid
    candidate; return the table of per-candidate verdicts (None without such models)."""
    if not run.checked:
        return None
    sides, checks = _model_steps(run, run.cells, run.t("hist"), run.t("cand"), lambda j: run.t(f"sides{j}"))
    for name, ctx in sides:
        run.engine.run("families/generalized/mondrian/sides.sql.j2", {"k": run.params["k"]}, target=name, **ctx)
    ok = run.t("ok")
    text = run.engine.sql("families/generalized/mondrian/model_ok.sql.j2", target=ok, checks=checks)
    run.engine.execute(text, check.used_params(text, run.params), template="families/generalized/mondrian/model_ok.sql.j2")
    return ok


def _decide_context(run: _Run, cand: str, ok: str | None) -> dict:
    return {"cand": cand, "ok": ok, "qis": run.qis, "relaxed": run.relaxed}


def _decide(run: _Run, ok: str | None, next_cid: int) -> dict:
    decide = run.t("decide")
    run.engine.run("families/generalized/mondrian/decide.sql.j2", {"k": run.params["k"], "next_cid": next_cid}, target=decide,
                   next_cid="$next_cid", **_decide_context(run, run.t("cand"), ok))
    names = ("partitions", "rows", "splitting", "finished", "finished_rows")
    return dict(zip(names, run.engine.one("families/generalized/mondrian/round_counts.sql.j2", decide=decide)))


def _finish(run: _Run) -> None:
    run.engine.run("families/generalized/mondrian/finish.sql.j2", target=run.t("done"), create=not run.done_created,
                   cells=run.cells, decide=run.t("decide"), keys=run.keys, qis=run.qis)
    run.done_created = True


def _finish_batch(run: _Run, batch: str) -> None:
    run.engine.run("families/generalized/mondrian/batch_done.sql.j2", target=run.t("done"), create=not run.done_created,
                   batch=batch, keys=run.keys, qis=run.qis)
    run.done_created = True


def _split(run: _Run, r: int) -> None:
    run.engine.run("families/generalized/mondrian/split.sql.j2", target=run.t(f"cells_{r}"), cells=run.cells,
                   decide=run.t("decide"), qis=run.qis, keys=run.keys, relaxed=run.relaxed)
    run.engine.drop(run.cells)
    run.cells = run.t(f"cells_{r}")


def _class_cells(run: _Run) -> str:
    """The finished cells by class and QI codes, sensitive codes summed away: what labelling reads (not rows)."""
    cells = run.engine.work("class_cells")
    run.engine.run("families/generalized/mondrian/class_cells.sql.j2", target=cells, done=run.done or run.t("done"), qis=run.qis)
    return cells


def _assign(run: _Run) -> str:
    assign = run.engine.work("assign")
    if run.relaxed:   # strict classes are their QI codes' cells: partitions.with_assign
        run.engine.run("families/generalized/mondrian/assign.sql.j2", run.plan.key.params(), target=assign,
                       base=written(run.engine, run.plan), done=run.done or run.t("done"), qis=run.qis, keys=run.keys)
    return assign
