"""LGB_MDP: local generalization by multidimensional partition (paper 000, Algorithm 3).

Algorithm 3 is Mondrian (LeFevre et al. 2006) run inside each subset of the QI partition:
choose the attribute of widest normalized range among the subset's QI attributes (line
11), split at its median (lines 12-14), keep the split if both sides hold at least k rows
(line 15), else try the next attribute (line 21); a set no attribute can split is a local
equivalence group (lines 24-26). :func:`anonymizer.families.generalized.mondrian.mondrian` runs
exactly these rounds in SQL; here it starts from one partition per subset (``pat``), and
the subset's sensitive cells are coded -1, a single code that no split can use, so only
the subset's QI attributes are ever split or generalized (Definition 9).
"""

from __future__ import annotations

from dataclasses import replace

from anonymizer.engine.session import Engine
from anonymizer.models import KAnonymity
from anonymizer.plan import Plan
from anonymizer.spec.types import Algorithm
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.mondrian import mondrian


def lgb_mdp(engine: Engine, plan: Plan, base: str, k: int) -> AlgorithmResult:
    """Algorithm 3 on ``base(__rid, q0.., pat)``: the local equivalence groups as ``assign``
    ``(__rid, __cid, __lo<i>, __hi<i>)``, -1 bounds on a subset's sensitive cells."""
    rows = engine.execute(f"SELECT count(*) FROM {base}").fetchone()[0]
    spec = replace(plan.spec, models=(KAnonymity(k),), algorithm=Algorithm("mondrian"))
    inner = replace(plan, spec=spec, base=base, base_rows=rows, sensitive=[], passthrough=[])
    return mondrian(engine, inner, partition_by="pat")     # Alg. 3, lines 2-3: each subset T_set
