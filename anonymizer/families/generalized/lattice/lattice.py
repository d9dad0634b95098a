"""The generalization lattice that full-domain searches walk (PrivacyFrost2, paper 003;
the optimal search of :mod:`.optimal`).

A node is a level vector, one hierarchy level per QI (0 = the value, ``height`` = ``*``).
:class:`Lattice` judges nodes on the frequency set (one GROUP BY each, cached, so a node
is checked once per search) and keeps the search trace: every node asked about, in order,
with its verdict and score. t-closeness compares every class, at every node and after any
suppression or pre-sampling, with the input's distribution
(:func:`~anonymizer.models.check.reference_sql`), as the verification gate does: a node is
accepted only if the classes it keeps pass the gate. :func:`publish_levels` turns the chosen node (and, after
partial-domain de-generalization, per-class levels) into the ``assign`` table every
algorithm hands to the publisher.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Mapping

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.models import KAnonymity
from anonymizer.models.check import used_params
from anonymizer.plan import Plan
from anonymizer.engine.names import ident
from anonymizer.families.generalized.lattice.frequency_set import FrequencySet
from anonymizer.families.generalized.full_domain import LevelCheck, check_levels, model_context

Node = tuple[int, ...]


@dataclass
class Lattice:
    """Node checks over one frequency set, with a cache and the search trace.

    Attributes:
        budget: failing rows a node may leave (suppressed) and still count as satisfying:
            ``suppression_limit * rows`` minus the NULL-suppressed rows (pre-sampled rows do
            not count against it; paper 003, :mod:`.privacyfrost2`).
        trace: dicts ``{step, phase, levels, ok, score, cached}`` in the order asked.
    """

    engine: Engine
    plan: Plan
    freq: FrequencySet
    budget: int
    trace: list[dict] = field(default_factory=list)
    checks: int = 0
    check_seconds: float = 0.0
    bounds: bool = False
    _seen: dict[Node, LevelCheck] = field(default_factory=dict)
    _k_plan: Plan | None = None
    _models: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        models = self.plan.models
        k_models = tuple(m for m in models if isinstance(m, KAnonymity))
        if k_models and len(k_models) < len(models):
            self._k_plan = replace(self.plan, models=k_models)
        for plan in filter(None, (self.plan, self._k_plan)):      # the models' SQL, rendered once per search
            self._models[id(plan)] = model_context(self.engine, plan, self.bounds)

    @property
    def names(self) -> list[str]:
        return [q.name for q in self.plan.qis]

    @property
    def heights(self) -> tuple[int, ...]:
        return self.freq.heights

    def levels(self, node: Node) -> dict[str, int]:
        """The node as a ``{qi name: level}`` mapping (the spec's ``levels`` form)."""
        return dict(zip(self.names, node))

    def ok(self, node: Node, phase: str, score: float | None = None) -> bool:
        """Whether every declared model holds at ``node`` (failing rows within the budget)."""
        return self.judge(node, phase, score).fits(self.budget)

    def judge(self, node: Node, phase: str, score: float | None = None) -> LevelCheck:
        """The node's :class:`LevelCheck` (computed once; later calls are cached).

        k-anonymity, the cheapest model, is checked alone first when there are others: a
        node whose small classes alone exceed the budget fails whatever the others say
        (its check then lists k-anonymity only)."""
        cached = node in self._seen
        if not cached:
            start = time.perf_counter()
            found = None
            if self._k_plan is not None:
                found = self._check(self._k_plan, node)
                found = found if found.failing_rows > self.budget else None
            self._seen[node] = found or self._check(self.plan, node)
            self.checks += 1
            self.check_seconds += time.perf_counter() - start
        found = self._seen[node]
        self.note(node, phase, found.fits(self.budget), score, cached=cached)
        return found

    @property
    def models(self) -> tuple[dict, dict]:
        """The declared models' SQL and parameters, rendered once (:func:`model_context`)."""
        return self._models[id(self.plan)]

    def _check(self, plan: Plan, node: Node) -> LevelCheck:
        return check_levels(self.engine, plan, self.levels(node), self.freq, self._models[id(plan)])

    def hopeless(self, node: Node, phase: str) -> bool:
        """Whether ``node`` and every finer node fail (with ``bounds`` and nested
        hierarchies; see :mod:`.optimal`): the rows no finer node can keep exceed the budget,
        or, with no budget, some class fails (only valid when every model is monotonic).

        A node not checked yet is not checked when a checked node answers for it: the rule
        read both ways (ARX's predictive tagging), a node finer than a hopeless one is
        hopeless, and one coarser than a node that is not is not (were it hopeless, so would
        be that finer node). Such a node is traced with ``ok`` ``None``."""
        known = self._answered(node)
        if known is not None:
            self.note(node, phase, None)
            return known
        return self._hopeless(self.judge(node, phase))

    def _answered(self, node: Node) -> bool | None:
        """:meth:`hopeless` for a node not checked yet that a checked node answers for, else
        ``None`` (nothing is checked or traced)."""
        if node in self._seen:
            return None
        for seen, found in self._seen.items():
            finer = all(a <= b for a, b in zip(node, seen))
            if (finer or all(a >= b for a, b in zip(node, seen))) and self._hopeless(found) == finer:
                return finer
        return None

    def _hopeless(self, found: LevelCheck) -> bool:
        return found.failing_rows > 0 if self.budget <= 0 else found.bound_rows > self.budget

    def note(self, node: Node, phase: str, ok: bool | None, score: float | None = None, cached: bool = False) -> None:
        """Add a trace entry (``ok`` is ``None`` for nodes skipped without a check)."""
        self.trace.append({"step": len(self.trace) + 1, "phase": phase, "levels": list(node), "ok": ok,
                           "score": score, "cached": cached})


def from_root(plan: Plan, depths: Mapping[str, int], field: str, presampling: bool = False) -> list[int]:
    """Levels counted from the root as paper 003 counts them (``'*'`` = 0) turned into
    generalization levels per QI (0 = the value).

    ``min_level`` (default): an unlisted QI has no minimum (depth 0); a depth below the
    hierarchy's leaves is refused. Pre-sampling thresholds (``presampling``): an unlisted QI
    keeps its values, and a depth below the leaves is the leaves (one threshold is often
    given for every QI, such as ``presample: {levels: 2}``).
    """
    out = []
    for q in plan.qis:
        depth = depths.get(q.name, q.height if presampling else 0)
        if presampling:
            depth = min(depth, q.height)
        elif depth > q.height:
            raise SpecError(f"{field}.{q.name}", f"must be at most {q.height}, the height of its hierarchy "
                                                 "(levels count from the root '*' = 0)", depth)
        out.append(q.height - depth)
    return out


def level_qis(plan: Plan, freq: FrequencySet) -> list[dict]:
    """The QIs as ``families/generalized/lattice/_levels.sql.j2`` takes them (level column and node columns)."""
    return [{"level": ident(f"lv{q.index}"),
             "nodes": [ident(freq.node(q.index, j)) for j in range(q.height + 1)]} for q in plan.qis]


def at_node(engine: Engine, freq: FrequencySet, node: Node) -> str:
    """A work copy of the frequency set with every class at ``node`` (columns ``lv<i>``)."""
    rows = engine.work("freq_levels")
    engine.run("families/generalized/lattice/with_levels.sql.j2", {f"lv{i}": lv for i, lv in enumerate(node)}, target=rows,
               freq=freq.table, levels=[ident(f"lv{i}") for i in range(len(node))])
    return rows


def passing_classes(engine: Engine, plan: Plan, freq: FrequencySet, rows: str, a: int = 0,
                    finer: bool = False) -> tuple[str, int]:
    """Judge the classes of ``rows`` (levels per class) against the models: as they are, or
    with QI ``a`` one level finer (``finer``; every sub-class must pass). Writes and returns
    the table of passing classes and their number."""
    accepted = engine.work("accepted")
    ctx, params = model_context(engine, plan)      # t-closeness: the input's distribution, not rows'
    ctx.update(target=accepted, rows=rows, qis=level_qis(plan, freq), a=a, finer=finer)
    text = engine.sql("families/generalized/lattice/partial_judge.sql.j2", **ctx)
    engine.execute(text, used_params(text, params), template="families/generalized/lattice/partial_judge.sql.j2")
    return accepted, engine.count(accepted)


def apply_classes(engine: Engine, plan: Plan, freq: FrequencySet, rows: str, accepted: str, a: int = 0,
                  mode: str = "keep") -> None:
    """Lower QI ``a`` in the ``accepted`` classes (``mode='lower'``) or keep only them (``'keep'``)."""
    engine.run("families/generalized/lattice/partial_apply.sql.j2", rows=rows, qis=level_qis(plan, freq), a=a, accepted=accepted,
               mode=mode)


def drop_failing(engine: Engine, plan: Plan, freq: FrequencySet, rows: str, node: Node) -> None:
    """Remove from ``rows`` (every class at ``node``) the classes failing a model (the rows
    suppression removes). With k-map or delta-presence, whose population classes are the
    node's, the classes are judged as the node check judges them
    (``families/generalized/lattice/node_accepted.sql.j2``)."""
    if not plan.populations:
        accepted, _ = passing_classes(engine, plan, freq, rows)
    else:
        accepted = engine.work("accepted")
        ctx, params = model_context(engine, plan)
        ctx.update(target=accepted, base=freq.table,
                   qis=[{"node": ident(freq.node(q.index, lv))} for q, lv in zip(plan.qis, node)])
        params.update({f"level{i}": lv for i, lv in enumerate(node)})
        text = engine.sql("families/generalized/lattice/node_accepted.sql.j2", **ctx)
        engine.execute(text, used_params(text, params), template="families/generalized/lattice/node_accepted.sql.j2")
    apply_classes(engine, plan, freq, rows, accepted, mode="keep")


def rows_loss(engine: Engine, plan: Plan, rows: str) -> float:
    """ARX's loss (``metrics.loss``) of the table ``rows`` stands for: per cell ``(values
    covered - 1) / (values - 1)`` at its class's level, every source row missing from
    ``rows`` (suppressed) costing 1 per cell; the mean over all cells of the source (the
    mean of :func:`qi_losses`)."""
    return sum(qi_losses(engine, plan, rows).values()) / len(plan.qis)


def qi_losses(engine: Engine, plan: Plan, rows: str) -> dict[str, float]:
    """Each QI's share of :func:`rows_loss`: its cells' loss over the source's rows (a
    suppressed row costing 1), by QI name; paper 003's reproduction reads where the loss is."""
    qis = [{"code": ident(q.code), "level": ident(f"lv{q.index}"), "hier": q.hier} for q in plan.qis]
    kept, *cells = engine.one("families/generalized/lattice/rows_loss.sql.j2", {f"m{i}": q.m for i, q in enumerate(plan.qis)},
                              rows=rows, qis=qis)
    missing = plan.rows - int(kept or 0)
    return {q.name: (float(c or 0.0) + missing) / plan.rows for q, c in zip(plan.qis, cells)}


def release_loss(plan: Plan, kept: int, cells: float) -> float:
    """ARX's loss of a release keeping ``kept`` source rows whose cells lose ``cells`` in all
    (:func:`rows_loss`): every suppressed row costs 1 per cell; the mean over the source's cells."""
    d = len(plan.qis)
    return (cells + (plan.rows - kept) * d) / (plan.rows * d)


def publish_levels(engine: Engine, plan: Plan, rows: str) -> tuple[str, int]:
    """Write ``assign`` from per-class levels: ``rows`` is a work table with the QI codes
    ``q<i>`` and a level ``lv<i>`` per QI (constant for a full-domain node, per class after
    partial-domain de-generalization). Base rows with no match (pre-sampled away, or in a
    suppressed class) are left out. Returns the table and its number of classes."""
    assign = engine.work("assign")
    qis = [{"code": ident(q.code), "level": ident(f"lv{q.index}"), "hier": q.hier} for q in plan.qis]
    engine.run("families/generalized/lattice/assign.sql.j2", target=assign, base=plan.base, rows=rows, qis=qis)
    (classes,) = engine.execute(f"SELECT count(DISTINCT __cid) FROM {assign}").fetchone()
    return assign, int(classes)
