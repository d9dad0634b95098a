"""LGB_MDP: local generalization by multidimensional partition (paper 000, Algorithm 3).

Algorithm 3 is Mondrian (LeFevre et al. 2006) run inside each subset of the QI partition:
choose the attribute of widest normalized range among the subset's QI attributes (line
11), split at its median (lines 12-14), keep the split if both sides hold at least k rows
(line 15), else try the next attribute (line 21); a set no attribute can split is a local
equivalence group (lines 24-26). :func:`anonymizer.families.generalized.mondrian.mondrian` runs
these rounds in SQL, with one departure in the cut (below); here it starts from one
partition per subset (``pat``), and the subset's sensitive cells are coded -1, a single code
that no split can use, so only the subset's QI attributes are ever split or generalized
(Definition 9).

Where ours differs from Algorithm 3, the median cut (lines 12-14). Algorithm 3 splits at
``split_value = cal_median(oper_set, attri)``: ``S_l = {t[attri] <= median}``,
``S_r = {t[attri] > median}``. When the median is the set's largest value (ties at the
top), ``S_r`` is empty, line 15 fails and the attribute is dropped (line 21). Mondrian's
strict cut, which we run, then cuts at the largest value *below* the median instead, so
``S_r`` holds the rows of the top value and the split may pass line 15. Elsewhere (the
median below the largest value) the two cuts are the same. Example (the test
tests/families/lgb/test_mdp_cut.py): ages 1, 2, 3, 9 x 7 with k = 3: the median is 9,
Algorithm 3 finds ``S_r`` empty and publishes one group of 10 rows ([1, 9]); we cut at 3
and publish two, {1, 2, 3} as [1, 3] and the seven 9s as 9. So our LGB_MDP splits sets that
Algorithm 3 leaves whole, which lowers its C_DM and NCP against the paper's. Measured once
with the cut of families/generalized/mondrian/candidates.sql.j2 patched to Algorithm 3's
(``anonymizer reproduce p000 --ks 5,10 --ls 5 --densities 0.2``, Adult, 20 % flags, seed 0),
k = 5 / 10: C_DM 244,046 / 469,156 becomes 356,084 / 574,528 and NCP 19,558 / 31,842
becomes 31,257 / 46,898. Against the balanced LGB_NCP (C_DM 222,842 / 414,016, NCP 18,835 /
31,868) that is a C_DM ratio of 1.60 / 1.39 (Fig. 5 fails further) and an NCP reduction of
40 % / 32 % (beyond Fig. 6's 14-17 %); against Algorithm 4 as printed (C_DM 1,079,970 /
2,475,924, NCP 41,765 / 64,639) a ratio of 0.33 / 0.23 (Fig. 5 holds) with LGB_NCP's NCP
1.34 / 1.38 times LGB_MDP's (Fig. 6 fails). No pairing of the literal and our cuts makes
Figs. 5 and 6 hold together (the experiment's finding g).
"""

from __future__ import annotations

from dataclasses import replace

from anonymizer.engine.session import Engine
from anonymizer.models import KAnonymity
from anonymizer.plan import Plan
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import Inputs


def lgb_mdp(engine: Engine, plan: Plan, base: str, k: int) -> AlgorithmResult:
    """Algorithm 3 on ``base(__rid, q0.., pat)``: the local equivalence groups as ``assign``
    ``(__rid, __cid, __lo<i>, __hi<i>)``, -1 bounds on a subset's sensitive cells."""
    rows = engine.count(base)
    inner = replace(plan, base=base, base_rows=rows, sensitive=[], passthrough=[])
    return mondrian(engine, inner, Inputs(k, (KAnonymity(k),)), partition_by="pat")   # Alg. 3, lines 2-3: each T_set
