"""SafePub (Bild, Kuhn and Prasser, "SafePub: A Truthful Data Anonymization Algorithm With
Strong Privacy Guarantees", PoPETs 2018(1)): an (ε, δ)-differentially private release of
truthful, generalized rows, as ARX 3.9.2 implements it (``EDDifferentialPrivacy`` with
``DataDependentEDDPAlgorithm``).

Algorithm 1 (SafePub), as here:

1. **random sampling** (line 1): every row is kept with probability β, by a draw keyed with the
   release's fresh secret (``safepub/sample.sql.j2``); the key is never stored;
2. **search** (line 2, Algorithm 2): a walk down the full-domain lattice from its top node.
   Each step adds the predecessors (one level finer on one QI) of the pivot to the
   candidates, removes the pivot, and draws the next pivot from the candidates (below: how);
   scores (:mod:`.safepub_scores`) are computed on the sampled rows
   (``safepub/scores.sql.j2``, one statement for a batch of nodes). The search's budget
   ε_search (default a twentieth of ε; ARX's default is 0.1 whatever ε) is subtracted from ε
   first, as ARX does; β and k come from the rest, ε_anon
   (:mod:`anonymizer.dp.safepub_parameters`);
3. **generalization and suppression** (lines 3-4): the sampled rows at the chosen node, every
   class under k suppressed; the release's verification re-checks k-anonymity in SQL.

**Which pivot is published.** ARX keeps the pivot with the best score
(``AbstractAlgorithm.trackOptimum``): a choice made on the data without noise, which ε does
not cover (one person can tip which of two pivots scores best). Here, by default
(``selection: private``), the whole of ε_search pays for that choice instead: the walk draws
each pivot uniformly among the candidates (the exponential mechanism at ε = 0: at ARX's
budget, ``ε_search / steps`` a step, the weights of any two nodes of Adult's lattice differ by
a factor of at most 1.27 at 37 steps and 1.03 at 300, the scores spanning 178 at ε = 1, so the
walk was nearly uniform already), and the published node is drawn among the
walk's distinct pivots by permute-and-flip (:func:`anonymizer.dp.exponential.permute_and_flip`)
at ε_search. Only the pivots are scored, a batch of nodes a statement. Its score is
``smooth_loss`` (the default: ARX's loss with the suppression at k phased in over k to
2 (k - 1) rows, so that its sensitivity is one row's worth, not k's: :mod:`.safepub_scores`),
``loss``, ``precision``, ``aecs`` or ``classification``
(:func:`~anonymizer.families.generalized.options.pair`): ARX's ``entropy`` reads the counts of
each QI's values and ``discernibility`` the row count, so one person moves every node's score
beyond the sensitivity the mechanism is scaled to. Against ARX 3.9.2 run live on Adult, see
the benchmarks page.
``selection: best`` is ARX's procedure, for
comparison with ARX: the walk draws each pivot by the exponential mechanism at ``ε_search /
steps``, the best pivot is published, and the release warns that ε does not cover that choice.

``steps`` counts the walk's expansions (the paper's steps). ARX's
``setHeuristicSearchStepLimit(n)`` counts checked transformations, ``n / d`` expansions for
``d`` QIs: its 300 are 37 steps here on Adult's 8 QIs.

Nothing of the draws is kept: the audit records ε, δ, ε_search, β, k, the score, the number of
steps and the node published, never the sample, its size, the pivots or their scores
(:func:`anonymizer.release.run._record` keeps no count of the input for a DP release).
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field, replace

from anonymizer.dp import exponential
from anonymizer.dp.safepub_parameters import SafePubParameters, derive, threshold
from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.families.generalized import options
from anonymizer.families.generalized.lattice.frequency_set import FrequencySet, build_frequency_set
from anonymizer.families.generalized.lattice.lattice import Node, at_node, drop_failing, publish_levels
from anonymizer.families.generalized.lattice.safepub_scores import Classes, score
from anonymizer.hierarchy.csv_file import load_leaves
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.plan import Plan

#: nodes scored a statement when the pivots are scored after the walk
BATCH = 64


def safepub_target(engine: Engine, plan: Plan) -> None:
    """Refuse, before the run spends, a classification target that is not one of the plan's
    quasi-identifiers (the spec's rule, checked again on the columns resolved)."""
    target = options.of(plan).target if plan.algorithm == "safepub" else None
    if target is not None and target not in {q.name for q in plan.qis}:
        raise SpecError("algorithm.target", options.TARGET_ROLE, target)


def parameters(a: options.Options) -> SafePubParameters:
    """β and k of a SafePub release: derived from ε_anon = ε - ε_search (ARX's
    ``EDDifferentialPrivacy.initialize``)."""
    return derive(a.epsilon - a.search_epsilon, a.delta)


def safepub(engine: Engine, plan: Plan) -> AlgorithmResult:
    """Sample, search, generalize and suppress (module docstring); writes ``assign``."""
    start = time.perf_counter()
    a = options.of(plan)
    p = parameters(a)
    sample = engine.work("safepub_sample")
    engine.run("families/generalized/safepub/sample.sql.j2", plan.key.params(threshold=threshold(p.beta)),
               target=sample, base=plan.base)                                          # Alg. 1, line 1
    sampled = replace(plan, base=sample)
    freq = build_frequency_set(engine, sampled)
    with engine.small(freq.size):
        walk = Walk(engine, sampled, freq, p.k, a)
        node = walk.search()                                                           # Alg. 1, line 2
    rows = at_node(engine, freq, node)                                                 # Alg. 1, lines 3-4
    drop_failing(engine, sampled, freq, rows, node)
    assign, classes = publish_levels(engine, sampled, rows)
    kept = engine.count(assign)
    if not kept:   # the mechanism's output is empty (post-processing: nothing outside epsilon); the run has spent
        raise DataError(plan.shown or plan.source, f"safepub (epsilon {a.epsilon}, delta {a.delta:g}): every row is suppressed: each class of "
                        f"the sample (a share beta = {p.beta:.4f} of the rows) holds fewer than k = {p.k} rows at the "
                        "node drawn; SafePub needs far more rows than k, or coarser hierarchies, or a larger delta. "
                        "This run has spent its epsilon and delta all the same (anonymizer budget show)")
    engine.say(f"safepub: node {walk.levels(node)} after {walk.steps} steps ({walk.evaluated} nodes scored)")
    notes = {"levels": walk.levels(node), "epsilon": a.epsilon, "delta": a.delta, "search_epsilon": a.search_epsilon,
             "anonymization_epsilon": p.epsilon, "beta": p.beta, "k": p.k, "score": a.score, "steps": walk.steps,
             "selection": a.selection}
    covers = ("the sample and the search's steps" if a.score in options.PRIVATE_SCORES else
              f"the sample only: {a.score} reads the data's value counts or size, so its sensitivity does not hold "
              "and the search's steps are not private either")
    warnings = [] if a.selection != "best" else [
        f"selection: best publishes the pivot with the best {a.score} score, a choice made on the data without "
        f"noise (ARX's): epsilon = {a.epsilon} covers {covers}, not that choice"]
    return AlgorithmResult(assign=assign, classes=classes, suppressed=plan.base_rows - int(kept),
                           presampled=plan.base_rows - freq.rows, rounds=walk.steps,
                           seconds=time.perf_counter() - start, notes={"safepub": notes, "warnings": warnings},
                           labels="hier-rows")


@dataclass
class Walk:
    """SafePub's search (Algorithm 2) over one frequency set of sampled rows."""

    engine: Engine
    plan: Plan
    freq: FrequencySet
    k: int
    options: options.Options
    scores: dict[Node, float] = field(default_factory=dict)
    steps: int = 0
    evaluated: int = 0

    def levels(self, node: Node) -> dict[str, int]:
        return {q.name: lv for q, lv in zip(self.plan.qis, node)}

    def search(self) -> Node:
        """The walk, then the published pivot (module docstring)."""
        a = self.options
        best = a.selection == "best"
        per_step = a.search_epsilon / a.steps
        pivot: Node = tuple(self.freq.heights)                       # Alg. 2: the top node first
        if best:
            self._score([pivot])
        pivots, ordered = [pivot], [pivot]        # the candidates, sorted: the draw's order is the nodes', not the data's
        for _ in range(a.steps):
            finer = [pivot[:i] + (lv - 1,) + pivot[i + 1:] for i, lv in enumerate(pivot) if lv > 0]
            if best:
                self._score([n for n in finer if n not in self.scores])
            del ordered[bisect.bisect_left(ordered, pivot)]
            for n in finer:
                at = bisect.bisect_left(ordered, n)
                if at == len(ordered) or ordered[at] != n:
                    ordered.insert(at, n)
            if not ordered:                                          # the bottom reached, every node taken
                break
            pivot = (exponential.choose(ordered, [self.scores[n] for n in ordered], per_step) if best
                     else exponential.SYSTEM.choice(ordered))        # uniform: ε 0 (module docstring)
            pivots.append(pivot)
            self.steps += 1
        seen = sorted(set(pivots))
        if best:                                                     # ARX's trackOptimum: best score, then lowest level
            return max(seen, key=lambda n: (self.scores[n], -sum(n)))
        for at in range(0, len(seen), BATCH):
            self._score(seen[at:at + BATCH])
        return exponential.permute_and_flip(seen, [self.scores[n] for n in seen], a.search_epsilon)

    def __post_init__(self) -> None:
        """The frequency set with each node's cell loss beside it (``safepub/cell_losses.sql.j2``)."""
        self._qis = []
        for q in self.plan.qis:   # each QI's hierarchy file (SafePub requires one), read again for its leaves
            h = q.column.hierarchy
            assert h is not None and h.location is not None   # the spec's rule (options._safepub_pairs)
            leaves, height = load_leaves(self.engine, f"sp{q.index}", h.location, h.delimiter)
            self._qis.append({"code": ident(q.code), "hier": q.hier, "leaves": leaves, "file_levels": height,
                              "nodes": [ident(self.freq.node(q.index, j)) for j in range(q.height + 1)],
                              "losses": [ident(f"c{q.index}_{j}") for j in range(q.height + 1)]})
        freq = self.freq.table
        if self.options.target is not None:   # classification: the frequency set split by the target QI's values
            freq = self.engine.work("safepub_target")
            code = next(q.code for q in self.plan.qis if q.name == self.options.target)
            self.engine.run("families/generalized/safepub/target_freq.sql.j2", target=freq, freq=self.freq.table,
                            sample=self.plan.base, codes=[ident(q.code) for q in self.plan.qis], column=ident(code))
        self._cells = self.engine.work("safepub_cells")
        self.engine.run("families/generalized/safepub/cell_losses.sql.j2", target=self._cells, freq=freq,
                        qis=self._qis)

    def _score(self, nodes: list[Node]) -> None:
        """Score ``nodes`` in one statement (``safepub/scores.sql.j2``)."""
        if not nodes:
            return
        name = self.options.score
        meet = [min(levels) for levels in zip(*nodes)]
        for row in self.engine.rows("families/generalized/safepub/scores.sql.j2", {"k": self.k}, freq=self._cells,
                                    nodes=nodes, meet=meet, qis=self._qis, squares=name == "entropy",
                                    target=self.options.target is not None):
            at, kept, classes, squares, loss, majority, smooth, *per_qi = row
            found = Classes(int(kept), int(classes), int(squares), float(loss), tuple(int(s) for s in per_qi),
                            int(majority), float(smooth))
            node = nodes[int(at)]
            self.scores[node] = score(name, node, self.freq.heights, found, self.plan.rows, self.k)
        self.evaluated += len(nodes)
