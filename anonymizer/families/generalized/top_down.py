"""Top-down specialization along the declared hierarchies (``algorithm: top-down``): local
recoding whose classes are labelled by nodes of the user's hierarchies, as ARX publishes its
local recoding.

Papers: Fung, Wang and Yu, "Top-down specialization for information and privacy
preservation", ICDE 2005 (section 4: start from the most general label, specialize the
candidate that gains most while the table stays anonymous), run per partition as the
multidimensional local recoding of LeFevre, DeWitt and Ramakrishnan (ICDE 2006) runs its
cuts; rows that no specialization can keep are anonymized again from the root, as ARX's
local recoding (Prasser et al., ARX 3.x, ``ARXResult.optimizeIterative``) anonymizes its
suppressed records again.

1. ``cells``: the rows collapsed to cells (Mondrian's ``cells.sql.j2``), each with the nodes
   above its codes per QI (``rungs.sql.j2``: the declared hierarchy's nodes; for a QI without
   one, halves of its codes, so that it is cut as Mondrian cuts; ``cells.sql.j2``);
2. a *pass* starts with one partition labelled by every QI's root (``start.sql.j2``).
   Each round (``round.sql.j2``) a partition's label on each QI is first lowered to the
   lowest node covering its codes (the label it would publish; a step down to a node's one
   child gains nothing), then every partition picks the QI whose specialization gains most
   ARX loss over the children it can keep: a child node with >= k rows that passes every
   model becomes a partition one level lower; the rows of the other children leave for the
   *remainder*. A partition where no QI keeps a child and lowers the loss is a class;
3. the next pass takes the remainder, if it passes k and every model as a whole
   (``whole.sql.j2``); passes repeat until none is left. Every pass runs in one recursive
   statement (``passes.sql.j2``, its iteration a round); where the engine cannot, a round
   is a statement (``step.sql.j2``) and a pass a loop in Python;
4. a last remainder that fails is suppressed when ``suppression_limit`` allows its rows,
   else it joins the class whose loss grows least (``merge.sql.j2``).

Every QI vector is in one class (a node split never separates equal codes), so the classes
are Mondrian's strict kind: ``assign`` and ``cells`` are made by Mondrian's templates. A
class is labelled by the lowest node covering its codes (:mod:`.form`), so two classes may
carry the same labels (their boxes overlap, as in ARX's local recoding); each alone passes
the models, and so does their union for k and distinct l-diversity. On ARX's Adult this
loses less than ARX's local recoding at k = 2 to 50 (README, "Compared with ARX";
``anonymizer bench arx-grid``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.families.generalized.partitions import check_whole_table, packing, with_assign
from anonymizer.families.generalized.options import mondrian_inputs
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.models import PrivacyModel, check
from anonymizer.plan import QI, Plan

T = "families/generalized/top_down/"
#: what a specialization is charged per row it sends to the remainder, in ARX loss of one cell
#: (the rows leave their partition's context and cost more in a later pass). On ARX's Adult
#: (k = 2, 5, 10, 50) 0.3 takes 0.2-closeness on occupation from 0.532-0.482 to 0.456-0.440
#: (ARX's local recoding: 0.460-0.481) and distinct 2-diversity at k=2 from 0.022 to 0.018;
#: k alone moves by 1 % either way (README, "Measurements behind the constants").
REMAINDER_COST = 0.3


@dataclass
class _Run:
    """Names and settings of one top-down run (all small)."""

    engine: Engine
    plan: Plan
    models: tuple[PrivacyModel, ...]
    qis: list[str]                                   # quoted q0..q{d-1}
    keys: list[str]                                  # quoted QIs + the sensitive columns the models read
    checked: list[tuple[int, PrivacyModel, str]]     # (index, model, quoted s column)
    params: dict = field(default_factory=dict)
    globs: dict[int, str] = field(default_factory=dict)
    nodes: list[dict] = field(default_factory=list)    # each QI's ladder (_ladder)
    info: str = ""
    rungs: str = ""
    ladders: str = ""
    done: str = ""
    classes: int = 0
    rounds: int = 0
    passes: int = 0

    def t(self, name: str) -> str:
        return self.engine.transient(name)

    def models_sql(self, gid_named: str = "sides") -> tuple[list[dict], list[str]]:
        """One side histogram per sensitive column (``{name, s}``) and each model's check over
        its column's (:func:`anonymizer.models.check.model_sql`)."""
        sides: dict[str, str] = {}
        checks = []
        for i, model, s in self.checked:
            sides.setdefault(s, f"{gid_named}{len(sides)}")
            checks.append(check.model_sql(model, sides[s], f"m{i}", self.globs.get(i), self.plan.hier_of(model),
                                          self.engine))
        return [{"name": n, "s": s} for s, n in sides.items()], checks


def top_down(engine: Engine, plan: Plan, loop: str = "recursive", write_assign: bool = True) -> AlgorithmResult:
    """Partition ``plan.base`` by top-down specialization and write ``engine.work("assign")``
    (``write_assign=False``: left to the candidate, :attr:`AlgorithmResult.packing`).

    ``loop``: ``"recursive"`` (a pass a statement) or ``"python"`` (a round a statement);
    both make the same classes. Models whose check is an ASOF join run the Python loop, as
    does Spark when the cells are too many for its driver (below that bound the passes run on
    the driver's DuckDB, :meth:`~anonymizer.engine.session.Engine.for_aggregate`);
    ``notes["loop"]`` says which loop ran, ``notes["rounds_engine"]`` on which engine.
    """
    start = time.perf_counter()
    inputs = mondrian_inputs(plan)
    run = _setup(engine, plan, inputs.models)
    check_whole_table(engine, plan, inputs.k, inputs.models)
    raw = _collapse(run)
    with engine.for_aggregate(raw, *plan.aggregates) as on_cells:   # Spark: the passes on its driver, over the cells
        run.engine = on_cells
        if loop == "recursive" and not on_cells.capabilities.one_statement(any(check.uses_asof_join(m)
                                                                                for _, m, _ in run.checked)):
            loop = "python"
        _cells(run, raw)
        rest = _passes(run) if loop == "recursive" else _python_passes(run)   # steps 2-3
        suppressed = 0
        budget = plan.allowed - plan.null_suppressed
        while rest is not None:             # step 4: a remainder that fails as a whole
            rows, _ = _whole(run, rest)
            if rows == 0:
                break
            if rows <= budget:              # suppressed, within the limit
                suppressed = rows
                break
            rest = _merge(run, rest)        # into the class whose loss grows least
        finished = run.t("finished")
        on_cells.run(T + "finished.sql.j2", target=finished, done=run.done, info=run.info, keys=run.keys, qis=run.qis)
        finished = engine.adopt(on_cells, finished, "finished_cells")
        run.engine, rounds_engine = engine, on_cells.name
    cells = engine.work("class_cells")
    engine.run("families/generalized/mondrian/class_cells.sql.j2", target=cells, done=finished, qis=run.qis)
    engine.drop_transient()
    classes = int(engine.execute(f"SELECT count(DISTINCT __cid) FROM {cells}").fetchone()[0])
    result = AlgorithmResult(assign=engine.work("assign"), cells=cells, classes=classes, suppressed=suppressed,
                           rounds=run.rounds, seconds=time.perf_counter() - start,
                           notes={"loop": loop, "passes": run.passes, "cells": engine.count(cells),
                                  "rounds_engine": rounds_engine},
                             packing=packing(plan, run.qis))
    return with_assign(engine, plan, result) if write_assign else result


def _setup(engine: Engine, plan: Plan, models: tuple[PrivacyModel, ...]) -> _Run:
    column = {k.column.name: ident(k.internal) for k in plan.sensitive}
    checked = [(i, m, column[m.sensitive]) for i, m in enumerate(models) if m.sensitive is not None]
    qis = [ident(q.code) for q in plan.qis]
    run = _Run(engine, plan, models, qis, qis + sorted({c for _, _, c in checked}), checked)
    run.nodes = [_ladder(q) for q in plan.qis]
    run.params = {"k": plan.k, "pen": REMAINDER_COST,
                  **{f"lw{q.index}": 1.0 / (q.m - 1) if q.m > 1 else 0.0 for q in plan.qis}}
    for i, model, _ in checked:
        run.params.update(model.params(f"m{i}"))
    return run


def _collapse(run: _Run) -> str:
    """Step 1 over the rows: the cells (returned, a transient table) and the table-wide
    distributions t-closeness compares with."""
    engine = run.engine
    raw = run.t("cells_raw")
    engine.run("families/generalized/mondrian/cells.sql.j2", target=raw, base=run.plan.base, keys=run.keys, pid=None)
    for i, model, s in run.checked:
        if getattr(model, "needs_global", False):
            run.globs[i] = engine.work(f"glob{i}")
            engine.execute(f"CREATE TABLE {run.globs[i]} AS " + check.global_sql(run.plan.base, s),
                           template="models/global_distribution.sql.j2")
    return raw


def _cells(run: _Run, raw: str) -> None:
    """Step 1 over the cells ``raw``: numbered, with their ladders."""
    engine = run.engine
    run.rungs, run.ladders, run.info = run.t("rungs"), run.t("ladders"), run.t("info")
    engine.run(T + "rungs.sql.j2", target=run.rungs, dims=run.nodes)
    engine.run(T + "ladders.sql.j2", target=run.ladders, rungs=run.rungs)
    engine.run(T + "cells.sql.j2", target=run.info, cells=raw, ladders=run.ladders, keys=run.keys, qis=run.qis,
               dims=run.nodes)
    engine.drop(raw)


def _ladder(q: QI) -> dict:
    """How QI ``q``'s codes climb (rungs.sql.j2): its declared hierarchy's nodes, or halves
    of its codes when it has none (or one whose nodes do not nest), up to :func:`_height`."""
    node = {"dim": q.index, "code": ident(q.code), "m": q.m, "height": _height(q)}
    if q.column.hierarchy is not None and q.nested:
        return {**node, "hier": q.hier}
    return {**node, "hier": None, "dom": q.dom}


def _height(q: QI) -> int:
    """The level of QI ``q``'s root in its ladder: its hierarchy's top, or ceil(log2 m)."""
    if q.column.hierarchy is not None and q.nested:
        return q.height
    return max(q.m - 1, 0).bit_length()


def _execute(run: _Run, template: str, text: str) -> None:
    run.engine.execute(text, check.used_params(text, run.params), template=template)


def _one(run: _Run, template: str, **context) -> tuple:
    text = run.engine.sql(template, **context)
    return run.engine.execute(text, check.used_params(text, run.params), template=template).fetchone()


def _round(run: _Run, live: str) -> str:
    sides, checks = run.models_sql()
    return run.engine.sql(T + "round.sql.j2", live=live, info=run.info, ladders=run.ladders,
                          dims=list(range(len(run.qis))), nodes=run.nodes,
                          sens=run.keys[len(run.qis):], sides=sides, checks=checks)


def _start(run: _Run, rest: str | None, number: int) -> str:
    """A pass's first state: ``rest`` (None: every cell) as one partition at the roots."""
    first = run.t(f"start_{number}")
    run.engine.run(T + "start.sql.j2", {"pass": number}, target=first, info=run.info, rest=rest,
                   heights=[_height(q) for q in run.plan.qis])
    if rest is not None:
        run.engine.drop(rest)
    return first


def _passes(run: _Run) -> str:
    """Steps 2-3 in one statement (passes.sql.j2): every pass; the finished classes join
    ``run.done``; returns the table of the last remainder (which fails as a whole, or is empty)."""
    engine, dims = run.engine, list(range(len(run.qis)))
    first, out = _start(run, None, 1), run.t("passes")
    sides, checks = run.models_sql()
    whole = engine.sql(T + "whole.sql.j2", rest="idle", info=run.info, sides=sides, checks=checks)
    _execute(run, T + "passes.sql.j2", engine.sql(T + "passes.sql.j2", target=out, start=first, dims=dims,
                                                   round=_round(run, "SELECT * FROM live"), whole=whole,
                                                   heights=[_height(q) for q in run.plan.qis]))
    engine.drop(first)
    last_round, passes = engine.execute(f"SELECT coalesce(max(round), 0), coalesce(max(pass), 1) FROM {out}").fetchone()
    run.passes = int(passes)
    run.rounds = int(last_round) - (run.passes - 1)   # each new pass took an iteration to start
    return _settle(run, out)


def _python_passes(run: _Run) -> str | None:
    """Steps 2-3 a round a statement (step.sql.j2): a pass, then the next on its remainder
    while that passes as a whole; returns the last remainder (None: nothing left)."""
    rest: str | None = None
    while True:
        run.passes += 1
        out, rounds = _steps(run, _start(run, rest, run.passes))
        run.rounds += rounds
        rest = _settle(run, out)
        rows, ok = _whole(run, rest)
        if rows == 0:
            return None
        if not ok:
            return rest


def _settle(run: _Run, out: str) -> str:
    """The classes in ``out`` (cells with st 1) join ``run.done``, numbered on by round and
    partition; returns the table of its remainder (st 2)."""
    engine = run.engine
    create = not run.done
    run.done = run.done or run.t("done")
    engine.run(T + "classes.sql.j2", {"base": run.classes}, target=run.done, create=create, out=out)
    run.classes = int(engine.execute(f"SELECT coalesce(max(cls), 0) FROM {run.done}").fetchone()[0])
    remainder = run.t(f"rest_{run.passes}")
    engine.run(T + "take.sql.j2", target=remainder, source=out, what="remainder")
    engine.drop(out)
    engine.say(f"{run.passes} passes: {run.classes} classes, {engine.count(remainder)} cells left over")
    return remainder


def _steps(run: _Run, first: str) -> tuple[str, int]:
    """A pass round by round (the Python loop): returns the table of its finished and
    remainder cells and the rounds run."""
    engine, state, rounds = run.engine, first, 0
    made: list[str] = []
    while True:
        nxt = run.t(f"step_{run.passes}_{rounds}")
        _execute(run, T + "step.sql.j2", engine.sql(T + "step.sql.j2", target=nxt,
                                                     round=_round(run, f"SELECT * FROM {state} WHERE st = 0")))
        if state != first:
            made.append(state)
        else:
            engine.drop(first)
        rounds += 1
        if engine.count(nxt, "st = 0") == 0:
            made.append(nxt)
            kept = run.t(f"kept_{run.passes}")
            engine.run(T + "settled.sql.j2", target=kept, rounds=made)
            engine.drop(*made)
            return kept, rounds
        state = nxt


def _whole(run: _Run, rest: str) -> tuple[int, bool]:
    sides, checks = run.models_sql()
    rows, ok = _one(run, T + "whole.sql.j2", rest=rest, info=run.info, sides=sides, checks=checks)
    return int(rows), bool(ok)


def _merge(run: _Run, rest: str) -> str | None:
    """Step 4: ``rest`` joins the class whose loss grows least (among those with which it
    passes every model, if any). Returns None when the merged class passes, else the merged
    class's cells, taken out of ``run.done`` for the next try."""
    engine = run.engine
    if not run.done:   # no class yet: cannot happen, the whole table passes (check_whole_table)
        raise AssertionError("top-down: a remainder fails before any class was made")
    sides, checks = run.models_sql()
    cls, ok = _one(run, T + "merge.sql.j2", done=run.done, rest=rest, info=run.info, rungs=run.rungs,
                   qis=run.qis, sides=sides, checks=checks)
    engine.run(T + "join.sql.j2", {"cls": int(cls)}, target=run.done, source=rest)
    engine.drop(rest)
    if ok:
        return None
    merged = run.t(f"merged_{cls}")
    engine.run(T + "take.sql.j2", {"cls": int(cls)}, target=merged, source=run.done, what="class")
    return merged
