"""The optimal full-domain generalization: the lattice node of least information loss
among those satisfying every declared model (within the suppression limit), to compare
with PrivacyFrost2's choice (paper 003) over the same lattice and minimum levels.

Loss is ARX's (``metrics.loss``): per cell ``(values covered - 1) / (values - 1)``, a
suppressed cell costing 1. At a full-domain node, with nothing suppressed, it is the mean
over QIs of a per-(QI, level) constant ``L[i][level]``, read once from the frequency set
(``families/generalized/lattice/level_loss``), so every node's loss is known before any check. The search is
best-first:

1. list the nodes allowed by ``min_level`` in increasing order of that loss (a lower bound
   of the node's loss when rows are suppressed, since a suppressed cell costs 1);
2. walk the list; a node below (finer than, on every QI) a node known to be hopeless
   (below) fails too, by monotonicity (LeFevre et al. 2005, generalization property), and
   is not checked; every other node is checked on the frequency set. When a node is
   hopeless, a binary search along a chain from it to the top (cheapest generalization
   first) finds the coarsest hopeless node of the chain, whose whole down-set is then
   known to fail (the bisection of OLA, El Emam et al. 2009, on one chain); a chain node
   that a checked node answers for is not checked (:meth:`Lattice.hopeless`);
3. the first satisfying node is optimal when nothing may be suppressed; otherwise its
   true loss (one SQL aggregate) bounds the search, which goes on while the next lower
   bound is below the best loss found.

What prunes (:meth:`Lattice.hopeless`). With no suppression, a node where some class fails
a monotonic model: every finer node has a failing part of that class. With a suppression
budget, a node's *bound*: the rows that no finer node can keep, summed over its classes
(``check.sql.j2``'s ``bound_rows``). A class failing k-anonymity or distinct l-diversity
fails in every part of it (ARX's ``isMonotonicWithSuppression``), so all its rows count.
For t-closeness the finer node keeps, of a class, the union of its t-close parts, which is
t-close itself (EMD is convex), so no more than the largest t-close sub-multiset of the
class (``models/t_closeness_keep.sql.j2``: exact for the equal distance, through the total
variation for the ordered and hierarchical ones); what the class holds beyond it counts,
and all of it when fewer than k rows could stay. When the bound exceeds the budget, the
node and its whole down-set fail. On ARX's Adult with 0.2-closeness and 2 % suppression
this checks 65 of 4,320 nodes, where the search without the bound checked 4,302.
Pruning needs nested hierarchies (DBGH's may not be), otherwise every node up to the
answer is checked (still exact, only slower).

delta-presence (``DeltaPresence``) is not monotonic: a node failing it says nothing of the
nodes below, so with it nothing prunes without a suppression budget, and with one the
bound counts only the monotonic models' rows; a failing top node does not end the search.

t-closeness compares each class with the input's distribution
(:func:`~anonymizer.models.check.reference_sql`), which neither the node nor its
suppressed classes change: that is what makes a class's verdict its own (and the bound
above valid), and what the verification gate compares with, so the node found passes the gate.
"""

from __future__ import annotations

import itertools
import time
from typing import NoReturn

from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.plan import Plan
from anonymizer.engine.names import ident
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.lattice.frequency_set import FrequencySet, build_frequency_set
from anonymizer.families.generalized.lattice.lattice import (
    Lattice,
    Node,
    at_node,
    drop_failing,
    from_root,
    publish_levels,
    release_loss,
)
from anonymizer.families.generalized.full_domain import kept_loss
from anonymizer.families.generalized import options


def optimal(engine: Engine, plan: Plan) -> AlgorithmResult:
    """Find the least-loss node satisfying the models and write ``assign`` (module docstring)."""
    start = time.perf_counter()
    freq = build_frequency_set(engine, plan)
    with engine.small(freq.size):   # hundreds of statements over the frequency set
        lattice, nodes, best, best_loss = _search(engine, plan, freq)
    rows = at_node(engine, freq, best)
    drop_failing(engine, plan, freq, rows, best)
    assign, classes = publish_levels(engine, plan, rows)
    kept = engine.count(assign)
    notes = {"levels": lattice.levels(best), "loss": best_loss, "checks": lattice.checks,
             "check_seconds": round(lattice.check_seconds, 4), "lattice_nodes": len(nodes), "pruning": lattice.bounds,
             "frequency_set_rows": freq.size, "trace": lattice.trace}
    return AlgorithmResult(assign=assign, classes=classes, suppressed=plan.base_rows - int(kept), rounds=lattice.checks,
                           seconds=time.perf_counter() - start, notes=notes, labels="hier-rows")


def _search(engine: Engine, plan: Plan, freq: FrequencySet) -> tuple[Lattice, list[Node], Node, float]:
    """The search over the lattice (module docstring): the lattice, its nodes in the order
    visited, the least-loss node satisfying the models and its loss."""
    budget = plan.allowed - plan.null_suppressed
    prune = _can_prune(plan, budget)
    lattice = Lattice(engine, plan, freq, budget, bounds=prune)
    level_loss = _level_loss(engine, plan, freq)
    base_loss = plan.null_suppressed / plan.rows       # a NULL-suppressed row costs 1 per cell
    tops = from_root(plan, options.of(plan).min_level, "algorithm.min_level")
    d = len(plan.qis)
    nodes = sorted(itertools.product(*[range(t + 1) for t in tops]),
                   key=lambda n: (sum(level_loss[i][lv] for i, lv in enumerate(n)) / d, sum(n), n))
    failed: list[Node] = []
    best, best_loss = None, float("inf")
    top = tuple(tops)
    monotonic = all(m.monotonic for m in plan.models)
    if monotonic and not lattice.ok(top, "optimal (top)"):   # delta-presence may hold below a failing top
        _none_holds(plan, lattice, top)
    for node in nodes:
        bound = base_loss + sum(level_loss[i][lv] for i, lv in enumerate(node)) / d
        if bound >= best_loss:
            break
        if prune and any(all(a <= b for a, b in zip(node, f)) for f in failed):
            continue
        found = lattice.judge(node, "optimal", bound)
        if found.fits(budget):
            loss = bound if found.failing_rows == 0 else _node_loss(lattice, node)
            if loss < best_loss:
                best, best_loss = node, loss
        elif prune and lattice.hopeless(node, "optimal"):
            failed.append(_climb(lattice, node, top, level_loss))
    if best is None:          # only without a monotonic verdict at the top: every node was checked
        _none_holds(plan, lattice, top)
    engine.say(f"optimal: node {lattice.levels(best)} loss {best_loss:.4f} after {lattice.checks} checks "
               f"of {len(nodes)} nodes")
    return lattice, nodes, best, best_loss


def _none_holds(plan: Plan, lattice: Lattice, top: Node) -> NoReturn:
    found = lattice.judge(top, "optimal (top)")
    blocked = f" and {found.blocked} population class(es) without sample rows failing dmin" if found.blocked else ""
    raise PrivacyCheckFailed(", ".join(map(str, plan.models)), "no node of the lattice", found.failing_classes,
                             reason=f"the optimal full-domain search finds no node where they hold: even the "
                                    f"top node {dict(zip((q.name for q in plan.qis), top))} leaves "
                                    f"{found.failing_classes} equivalence class(es) failing beyond the suppression "
                                    f"limit{blocked}")


def _level_loss(engine: Engine, plan: Plan, freq: FrequencySet) -> list[list[float]]:
    """``L[i][level]``: QI ``i``'s loss summed over the rows at ``level``, per source row."""
    qis = [{"code": ident(q.code), "hier": q.hier} for q in plan.qis]
    out = [[0.0] * (q.height + 1) for q in plan.qis]
    for i, level, covered, _ in engine.rows("families/generalized/lattice/level_sums.sql.j2", freq=freq.table, qis=qis):
        m = plan.qis[i].m
        out[i][level] = float(covered) / (m - 1) / plan.rows if m > 1 else 0.0
    return out


def _node_loss(lattice: Lattice, node: Node) -> float:
    """The loss of a node whose failing classes are suppressed (their cells cost 1), in one
    statement (:func:`~anonymizer.families.generalized.full_domain.kept_loss`)."""
    kept, cells = kept_loss(lattice.engine, lattice.plan, lattice.levels(node), lattice.freq, lattice.models)
    return release_loss(lattice.plan, kept, cells)


def _can_prune(plan: Plan, budget: int) -> bool:
    """Whether a node's verdict can speak for every finer node (see module docstring):
    hierarchies nested, and, with no suppression budget, every model monotonic."""
    if not all(getattr(q, "nested", True) for q in plan.qis):
        return False
    return budget > 0 or all(m.monotonic for m in plan.models)


def _climb(lattice: Lattice, node: Node, top: Node, level_loss: list[list[float]]) -> Node:
    """The coarsest hopeless node (:meth:`Lattice.hopeless`) on a chain from the hopeless
    ``node`` to ``top`` (which satisfies), found by bisection: along a chain, hopeless nodes
    come first (a finer node keeps no more rows than a coarser one)."""
    chain, cur = [node], list(node)
    while tuple(cur) != top:
        i = min((i for i in range(len(cur)) if cur[i] < top[i]),
                key=lambda i: level_loss[i][cur[i] + 1] - level_loss[i][cur[i]])
        cur[i] += 1
        chain.append(tuple(cur))
    lo, hi = 0, len(chain) - 1                   # chain[lo] fails, chain[hi] satisfies
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if lattice.hopeless(chain[mid], "optimal (bisection)"):
            lo = mid
        else:
            hi = mid
    return chain[lo]
