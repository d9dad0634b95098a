"""Algorithm 1 of paper 000 (LGB): the QI partition, local bucketization, then LGB_MDP or
LGB_NCP; the reading guide is the package's (:mod:`anonymizer.families.lgb`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError
from anonymizer.plan import Plan
from anonymizer.randomness import ReleaseKey
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.lgb.bucketize import Buckets, local_bucketization
from anonymizer.families.lgb.mdp import lgb_mdp
from anonymizer.families.lgb.ncp import lgb_ncp
from anonymizer.families.lgb.subsets import Attribute, Subsets, attributes, qi_partition, value_pairs
from anonymizer.families.lgb import options


@dataclass
class LgbResult:
    """What an LGB run produced: attributes, subsets, buckets and local equivalence groups.
    A version of an m-invariant release (:mod:`.invariance`) also has the rows it ``held``
    back, its ``signed`` rows ``(__rid, p0, __v)`` with the counterfeits, their buckets as
    ``assign`` ``(__rid, __cid, __gid)`` and its count of ``counterfeits``."""

    attrs: list[Attribute]
    subsets: Subsets
    buckets: Buckets
    groups: AlgorithmResult
    seconds: float
    notes: dict = field(default_factory=dict)
    held: int = 0
    signed: str | None = None
    assign: str | None = None
    counterfeits: int = 0

    @property
    def suppressed(self) -> int:
        return self.subsets.suppressed + self.held


def local_generalization(engine: Engine, plan: Plan, base: str, k: int, key: ReleaseKey) -> AlgorithmResult:
    """Algorithm 1 line 7 by the spec's algorithm: LGB_MDP (Alg. 3) or LGB_NCP (Alg. 4)."""
    if plan.algorithm == "lgb-ncp":
        chosen = options.of(plan)
        return lgb_ncp(engine, plan, base, k, key, balance=chosen.balance, objective=chosen.objective)
    return lgb_mdp(engine, plan, base, k)


def lgb(engine: Engine, plan: Plan) -> LgbResult:
    """Algorithm 1: LGB of ``plan.base`` with the spec's k and bucket principles."""
    start = time.perf_counter()
    k = plan.k
    subsets = qi_partition(engine, plan, k)                              # Def. 8
    if not subsets.kept:
        raise DataError(plan.source, f"no subset of rows with the same QI attributes has k={k} rows, so no "
                                     "local equivalence group can be formed")
    attrs = attributes(engine, plan, subsets)                            # Defs. 1-3
    t0 = time.perf_counter()
    pairs = value_pairs(engine, plan, attrs, subsets)                    # Alg. 1, line 4
    buckets = local_bucketization(engine, attrs, pairs, plan.key)           # Alg. 1, lines 3-6
    t1 = time.perf_counter()
    groups = local_generalization(engine, plan, subsets.base, k, plan.key)  # Alg. 1, line 7
    t2 = time.perf_counter()
    notes = {"subsets": len(subsets.kept), "subsets_suppressed": len(subsets.dropped),
             "attribute_classes": {x.name: x.kind for x in attrs},
             "bucketization_rounds": buckets.rounds, "buckets": buckets.buckets, "bucket_leaves": buckets.leaves,
             "generalization_rounds": groups.rounds, "groups": groups.classes,
             "bucketization_seconds": round(t1 - t0, 4), "generalization_seconds": round(t2 - t1, 4)}
    return LgbResult(attrs, subsets, buckets, groups, time.perf_counter() - start, notes)
