"""Identity-reserved anonymization: individuals with several records (paper 004: Wang, Du,
Luo and Li, "Two privacy-preserving approaches for data publishing with identity
reservation", Knowledge and Information Systems, 2018).

Reading guide:

==============================================  =====================================================  =====================
paper                                           here                                                   SQL (templates/families/identity_reserved/)
==============================================  =====================================================  =====================
Alg. 1 line 1, Id_num (recode the identifier)   :func:`.individuals.individuals`                       individuals, records
Defs. 2.3, 3.3, 3.4: the five IR/EIR models     :mod:`.models` (one class each)                        ../../models/ir_class_counts
Algs. 2, 4 SatPriIR_kl / _ab                    ``holds`` of each model in :mod:`.models`
Algs. 3, 5, 6 hitting sets, SatPriIRInc_*       :mod:`.hitting_sets`, ``tracker`` of each model
Thms. 3.1, 3.2 (whole tables)                   :func:`.verify.decide_classes`                         ../../models/ir_*
Alg. 1 (DAnonyIR), Eqs. 11-18                   :mod:`.danonyir` (its own guide: element, state,       danonyir/
                                                handle)
Alg. 7 (Handle residuals)                       :mod:`.danonyir.handle`
GeneIR (section 6.1.3, Tong et al. 2010)        :mod:`.geneir`                                         geneir/
Alg. 1 lines 27-31, Table 4 published form      :mod:`.form` (build, verify, metrics)                  table, class_values
Eqs. 3, 11, 15 NLoss; section 5 vulnerable      :mod:`.metrics`                                        ../../metrics/ir_nloss
Eq. 19 query error, section 6 experiments       :mod:`anonymizer.reproduce.p004_identity_reserved`
m-invariance across versions (Xiao and Tao      :mod:`.invariance` (the individuals' lists),           invariance/
2007; not in paper 004)                         ``gate_models`` in :mod:`.options`
==============================================  =====================================================  =====================

``steps`` plugs the algorithms into the release (:mod:`anonymizer.families`).
"""

from anonymizer.families.base import Family

#: the identity-reserved models (Definitions 2.3, 3.3, 3.4)
IR_MODEL_TYPES = ("ir-k-anonymity", "ir-kl-anonymity", "ir-alpha-beta-anonymity", "eir-l-diversity",
             "eir-alpha-beta-anonymity")

FAMILY = Family(
    "identity_reserved", "004",
    algorithms={"danonyir": frozenset({"seed", "renumber"}), "geneir": frozenset({"seed", "renumber"})},
    models=frozenset(IR_MODEL_TYPES), reads=frozenset({"individual"}), own_models=True, package=__name__, gate=True)
