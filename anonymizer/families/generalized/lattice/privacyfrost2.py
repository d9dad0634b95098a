"""PrivacyFrost2 (Kiyomoto and Miyake, CD-ARES 2014; paper 003): a full-domain lattice
search steered by a scoring function of the user's priorities, then an optional
partial-domain de-generalization per equivalence class.

Reading guide (paper 003, Figure 3 in the appendix, and sections 5 and 6):

============================  ===========================================  ====================
paper                         here                                         SQL
============================  ===========================================  ====================
5.1 Pre-Sampling              :func:`privacyfrost2` (``presample``)        lattice/presample
4.3 Sort(T, v)                ``_Frost.order`` (lowest priority first)
5.2 Pre-computation, step 1   :meth:`_Frost.precompute` (k + p per QI)     lattice/attribute_minimums
5.2 Pre-computation, step 2   :meth:`_Frost.precompute` (whole table)      full_domain/check (freq)
5.3 Top-Down + skip rule      :meth:`_Frost.top_down`                      full_domain/check (freq)
5.4 steps 1-3 (2nd top-down,  :meth:`_Frost.optimize`,                     full_domain/check (freq)
    bottom-up)                :meth:`_Frost.bottom_up`
5.4 step 4 Partial-Domain     :func:`partial_domain`                       lattice/partial_judge,
    De-Generalization                                                      lattice/partial_apply
6 Score(T)                    :mod:`.scoring`
4.3 Check_{k,l,c,t}(T)        :class:`.lattice.Lattice` over the frequency set
============================  ===========================================  ====================

Levels. The paper counts levels from the root (the root table is level 0, de-generalizing
adds 1, ``w^L`` is the leaf level); this package counts generalization levels (0 = the
value, ``height`` = ``*``): paper level ``w`` is our level ``height - w``. The spec's
``min_level`` (the paper's ``w^M``: keep at least that much detail, never generalize above
it) and the pre-sampling thresholds ``u`` are given as the paper does, counted from the root.

Choices where the paper is silent or its listing garbled (each marked in the code):

- Pre-computation step 2 generalizes every QI still below its minimum level by one, and
  goes on while any can move (the listing's "all w > w^M" would stop as soon as one QI
  reaches its minimum, even if others could still move).
- ``Check`` uses the release's models and suppression limit: a node is OK when the rows of
  its failing classes fit what the limit leaves after NULLs (0 by default, the paper's
  setting: the paper's search never suppresses a class).
  t-closeness measures every class against the input's distribution (the rows the release
  takes in, before pre-sampling and suppression), the reference the verification gate uses.
- Pre-sampling (5.1) removes records before the search, as the paper does ("the algorithm
  uses the updated table T"). They are counted as suppressed (not published) but not
  against ``suppression_limit``, which bounds the search's own suppression: the user asks
  for them with ``u`` and ``k'``, and at the paper's own settings (u = 2, k' = 2 to 10) they
  are 2,583 to 7,168 of Adult's 30,162 rows. They are reported as ``presampled``.
- The log score's ``e^b`` (6.3, "the value of e before anonymization") is counted on the
  input, before pre-sampling; ``e`` after it (the table the search generalizes).
- Equal scores tie (Figure 3 moves on ``Score(T) > s`` only), so eta and log can stop on a
  flat step, even at the fully generalized table; ``tie_break: basic`` compares equal
  scores by the basic score (:mod:`.scoring`). The default is the paper's.
- Candidates whose exact score cannot beat the current best are not checked: the score
  needs no check (``e`` of a QI depends on its level only), so this saves checks without
  changing the result. The skip rule of 5.3 is applied first, as the paper states it, and
  both show in the trace.
- Bottom-up keeps generalizing the best-scoring table while its score still beats the
  current best table's score (the listing's running ``s'`` update would stop it after
  one step); it ends with the best-scoring generalization that satisfies the models.
- Partial-domain de-generalization lowers, for every class at once, the top-priority QI
  that can go one level down with all resulting sub-classes satisfying the models, then
  the next priority, until no class can change. Classes are independent (t-closeness
  compares with the input's fixed distribution, :func:`~anonymizer.models.check.reference_sql`,
  whatever was pre-sampled or suppressed), so doing all classes at once equals the paper's
  one group at a time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, PrivacyCheckFailed
from anonymizer.plan import Plan
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.lattice.frequency_set import (
    attribute_minimums,
    build_frequency_set,
    distinct_counts,
    presample,
)
from anonymizer.families.generalized.lattice.lattice import (
    Lattice,
    Node,
    apply_classes,
    at_node,
    drop_failing,
    from_root,
    level_qis,
    passing_classes,
    publish_levels,
    qi_losses,
)
from anonymizer.families.generalized.lattice.scoring import Scoring
from anonymizer.families.generalized import options


@dataclass
class _Frost:
    """One search: the lattice, the scoring function and the per-level counts it reads.

    Attributes:
        e: ``e[i][level]``, value types of QI ``i`` at each level (section 6).
        b: ``b[i][level]``, hierarchy nodes at each level (the skip rule's bound, 5.3).
        top: the highest level each QI may take (its minimum level ``w^M``).
        order: QI indexes sorted by priority, lowest first (``Sort``, section 4.3).
    """

    lattice: Lattice
    scoring: Scoring
    e: list[list[int]]
    b: list[list[int]]
    top: list[int]
    order: list[int]
    k: int
    p: int
    minimums: list[list[int]] = field(default_factory=list)

    def rank(self, node: Node) -> tuple[float, float]:
        """The node's comparison key, its score first (:meth:`.scoring.Scoring.rank`)."""
        return self.scoring.rank([self.e[i][lv] for i, lv in enumerate(node)])

    def precompute(self) -> Node:
        """Section 5.2: each QI alone to (k+p)-anonymity, then the whole table to the models."""
        node = [0] * len(self.top)
        for i in self.order:                                                  # step 1
            while self.minimums[i][node[i]] < self.k + self.p and node[i] < self.top[i]:
                node[i] += 1
        while not self.lattice.ok(tuple(node), "pre-computation", self.rank(tuple(node))[0]):   # step 2
            movable = [i for i in self.order if node[i] < self.top[i]]
            if not movable:
                failing = self.lattice.judge(tuple(node), "pre-computation").failing_classes
                models = ", ".join(map(str, self.lattice.plan.models))
                raise PrivacyCheckFailed(models, "no node of the lattice", failing,
                                         reason="PrivacyFrost2 finds no table where they hold: even the top node "
                                                f"leaves {failing} equivalence class(es) failing beyond the "
                                                "suppression limit")
            for i in movable:                       # choice: every QI that can still move
                node[i] += 1
        return tuple(node)

    def top_down(self, node: Node) -> tuple[Node, tuple[float, float]]:
        """Section 5.3: de-generalize one QI at a time, top priority first, keep the best OK
        table. Scores are compared as :meth:`rank` keys (the paper's score, with ``tie_break``)."""
        s = self.rank(node)
        while True:
            start, s_start, best = node, s, None          # T' and s' of Figure 3
            for i in reversed(self.order):               # a^n (top priority) down to a^1
                if start[i] == 0:
                    continue
                cand = _step(start, i, -1)
                bound = self.scoring.bound([self.e[j][lv] for j, lv in enumerate(start)], i, self.b[i][start[i] - 1])
                if s > bound:                            # skip rule: s > s' + delta_s
                    self.lattice.note(cand, "top-down skip (delta_s)", None, bound[0])
                    continue
                score = self.rank(cand)
                if score <= s:                           # choice: cannot win, no check needed
                    self.lattice.note(cand, "top-down skip (score)", None, score[0])
                    continue
                if self.lattice.ok(cand, "top-down", score[0]):
                    best, s = cand, score
            if best is None:
                return node, s_start
            node = best

    def optimize(self, node: Node, s: tuple[float, float]) -> tuple[Node, tuple[float, float]]:
        """Section 5.4 steps 1-3: a 2nd top-down step to the best-scoring (failing) table,
        then bottom-up back to a table satisfying the models; repeat while the score grows."""
        while True:
            cands = [(self.rank(c), c) for c in (_step(node, i, -1) for i in reversed(self.order) if node[i] > 0)]
            cands = [(sc, c) for sc, c in cands if sc > s]
            if not cands:
                return node, s
            s_t, t = max(cands, key=lambda x: x[0])       # T^T: first of the best, top priority first
            self.lattice.note(t, "2nd top-down", None, s_t[0])
            found = self.bottom_up(t, s)
            if found is None:
                return node, s
            node, s = found

    def bottom_up(self, t: Node, s: tuple[float, float]) -> tuple[Node, tuple[float, float]] | None:
        """Generalize from ``t`` until a table satisfies the models with a score above ``s``."""
        while True:
            gens = [(self.rank(c), c) for c in (_step(t, i, +1) for i in self.order if t[i] < self.top[i])]
            gens = [(sc, c) for sc, c in gens if sc > s]  # only tables that can still beat T^G
            if not gens:
                return None
            ok = [(sc, c) for sc, c in gens if self.lattice.ok(c, "bottom-up", sc[0])]
            if ok:
                return max(ok, key=lambda x: x[0])[::-1]
            t = max(gens, key=lambda x: x[0])[1]


def _step(node: Node, i: int, delta: int) -> Node:
    out = list(node)
    out[i] += delta
    return tuple(out)


def privacyfrost2(engine: Engine, plan: Plan) -> AlgorithmResult:
    """Run PrivacyFrost2 with the spec's options and write ``assign`` (see module docstring)."""
    start = time.perf_counter()
    opts = options.of(plan)
    names = [q.name for q in plan.qis]
    freq = build_frequency_set(engine, plan)
    nodes_per_level = distinct_counts(engine, freq)         # b: the data's hierarchy nodes per level
    presampled = 0
    if opts.presample:                                       # section 5.1
        u = from_root(plan, opts.presample["levels"], "algorithm.presample.levels", presampling=True)
        freq, presampled = presample(engine, freq, u, opts.presample["k"])
        if freq.rows == 0:
            raise DataError(plan.source, f"pre-sampling (algorithm.presample: levels "
                                                    f"{dict(opts.presample['levels'])}, k {opts.presample['k']}) removed "
                                                    f"all {presampled} rows: lower k or raise the levels")
        engine.say(f"privacyfrost2: pre-sampling removed {presampled} isolated records (section 5.1; not counted "
                   "against suppression_limit)")
    budget = plan.allowed - plan.null_suppressed   # the search's own suppression
    e = distinct_counts(engine, freq) if presampled else nodes_per_level
    scoring = Scoring(opts.scoring, tuple(float(opts.priorities.get(n, 1)) for n in names), float(opts.d),
                      tuple(x[0] for x in nodes_per_level), opts.tie_break)   # log's e^b: before pre-sampling
    frost = _Frost(Lattice(engine, plan, freq, budget), scoring, e, nodes_per_level,
                   from_root(plan, opts.min_level, "algorithm.min_level"),
                   sorted(range(len(names)), key=lambda i: (scoring.priorities[i], -i)), plan.k, opts.p,
                   attribute_minimums(engine, freq))
    node = frost.precompute()
    node, ranked = frost.optimize(*frost.top_down(node))
    s = ranked[0]
    engine.say(f"privacyfrost2: best full-domain node {frost.lattice.levels(node)} score {s:g} "
               f"after {frost.lattice.checks} checks")
    rows = at_node(engine, freq, node)
    drop_failing(engine, plan, freq, rows, node)
    full_domain_loss = qi_losses(engine, plan, rows)
    partial_start = time.perf_counter()
    partial = partial_domain(engine, plan, frost, rows) if opts.partial else []
    score = _partial_score(engine, plan, frost, rows) if opts.partial else s
    partial_seconds = time.perf_counter() - partial_start if opts.partial else 0.0
    qi_loss = qi_losses(engine, plan, rows) if opts.partial else full_domain_loss
    assign, classes = publish_levels(engine, plan, rows)
    kept = engine.count(assign)
    notes = {"levels": frost.lattice.levels(node), "score": score, "full_domain_score": s, "scoring": opts.scoring,
             "loss": sum(qi_loss.values()) / len(qi_loss), "qi_loss": qi_loss,
             "full_domain_loss": sum(full_domain_loss.values()) / len(full_domain_loss),
             "checks": frost.lattice.checks, "check_seconds": round(frost.lattice.check_seconds, 4),
             "frequency_set_rows": freq.size, "presampled": presampled, "partial_rounds": partial,
             "partial_seconds": round(partial_seconds, 4), "tie_break": opts.tie_break,
             "trace": frost.lattice.trace}
    return AlgorithmResult(assign=assign, classes=classes, suppressed=plan.base_rows - int(kept),
                           rounds=frost.lattice.checks, seconds=time.perf_counter() - start, notes=notes,
                           labels="hier-rows", presampled=presampled)


def partial_domain(engine: Engine, plan: Plan, frost: _Frost, rows: str) -> list[dict]:
    """Section 5.4 step 4: per class of ``rows`` (the best full-domain node's classes, those
    failing already dropped), lower QIs (top priority first) while every sub-class still
    satisfies the models. Lowers ``rows`` in place; returns one entry per change made."""
    freq = frost.lattice.freq
    changes, changed = [], True
    while changed:
        changed = False
        for i in reversed(frost.order):
            accepted, n = passing_classes(engine, plan, freq, rows, a=i, finer=True)
            if n:
                apply_classes(engine, plan, freq, rows, accepted, a=i, mode="lower")
                changes.append({"qi": plan.qis[i].name, "classes": int(n)})
                changed = True
    return changes


def _partial_score(engine: Engine, plan: Plan, frost: _Frost, rows: str) -> float:
    """The score of the partially de-generalized table: ``e_i`` counts distinct (level, node) values."""
    row = engine.one("families/generalized/lattice/partial_counts.sql.j2", rows=rows, qis=level_qis(plan, frost.lattice.freq))
    return frost.scoring.score([int(x) for x in row])
