"""Local Generalization and Bucketization, LGB (paper 000: Li and He, "Local generalization
and bucketization technique for personalized privacy preservation", JKSU-CIS 35, 2023).

The package (one module per step of the paper; ``steps`` plugs them into the release):

==========================================  ===========================================  ==========================
paper                                       here                                         SQL (templates/families/lgb/)
==========================================  ===========================================  ==========================
Defs. 1-3 QI / semi-sensitive / sensitive   :func:`.subsets.attributes`                  attribute_counts
Def. 8 QI partition                         :func:`.subsets.qi_partition`                subsets, base
Alg. 1 line 4 ValuePair_sen                 :func:`.subsets.value_pairs`                 pairs
Alg. 1 lines 3-6, Alg. 2 (bucketization)    :func:`.bucketize.local_bucketization`       bucket_*
Alg. 2 line 9 divide_buckets (l-unique)     m-invariance's assignment, in SQL            bucket_largest_first
Alg. 1 line 7, Alg. 3 (LGB_MDP)             :func:`.mdp.lgb_mdp` (Mondrian rounds)       ../generalized/mondrian/*
Alg. 1 line 7, Alg. 4 (LGB_NCP)             :func:`.ncp.lgb_ncp`                         ncp_*
Fig. 2 LGB table, Corollary 3 verification  :mod:`anonymizer.families.lgb.form`                  table, judge_*
Sec. 4.1 C_DM, NCP; Sec. 4.2 query error    :mod:`anonymizer.families.lgb.form`,                 ../../reproduce/p000/query_*
                                            :mod:`anonymizer.reproduce.p000_lgb.query_error`
Alg. 2 divide_buckets across versions       :mod:`.invariance` (m-invariance, Xiao and   signed, kept_pairs, real_rows,
(m-invariance of the buckets)               Tao 2007), shared steps in                   bucket_assign, ../invariance/*
                                            :mod:`anonymizer.versions.invariance`
==========================================  ===========================================  ==========================

Algorithm 1 runs bucketization first and generalization second; the two are independent
(Corollary 3), so their order does not change the result.
"""

from anonymizer.families.base import Family

#: paper 000's two algorithms (Algorithm 1 with Algorithm 3 or 4)
LGB_ALGORITHMS = ("lgb-mdp", "lgb-ncp")

FAMILY = Family(
    "lgb", "000",
    algorithms={"lgb-mdp": frozenset({"seed"}), "lgb-ncp": frozenset({"seed", "balance", "objective"})},
    models=frozenset({"k-anonymity", "l-unique", "entropy-l-diversity", "t-closeness"}),
    reads=frozenset({"flag"}), units="groups", gate=True, own_models=True,
    package=__name__)
