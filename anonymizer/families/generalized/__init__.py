"""Generalization: every row keeps its place and its QI values are coarsened to a class's
label (Mondrian, top-down specialization, full-domain, and the lattice searches).

Reading guide:

==============================================  ==================================================  ======================
algorithm                                       here                                                SQL (templates/families/generalized/)
==============================================  ==================================================  ======================
Mondrian, strict and relaxed (LeFevre et al.    :func:`.mondrian.mondrian` (one round: histogram,   mondrian/
2006; paper 000 Alg. 3 ``local_generalization``) candidates, sides, decide, finish, split)
top-down specialization along the hierarchies   :func:`.top_down.top_down` (cells, pass = rounds,   top_down/
(Fung et al. 2005, per partition; the remainder  whole, merge, finished)
again from the root, as ARX's local recoding)
full-domain at a given level vector             :func:`.full_domain.full_domain`                    full_domain/
frequency set, lattice, node checks             :mod:`.lattice.frequency_set`, :mod:`.lattice.lattice`  lattice/
optimal full-domain search (bisection on        :func:`.lattice.optimal.optimal`                    lattice/
monotone models)
SafePub, (ε, δ)-differential privacy (Bild et    :func:`.lattice.safepub.safepub`, scores in         safepub/
al. 2018: Alg. 1 sampling, Alg. 2 search)        :mod:`.lattice.safepub_scores`
PrivacyFrost2 (paper 003: Algs. 1-3, scoring    :mod:`.lattice.privacyfrost2`, :mod:`.lattice.scoring`  lattice/
Eqs. 4-6, pre-sampling, partial-domain)
lattice evaluation (paper 001 Def. 9: k, DCP,   :mod:`.lattice.evaluate`                            lattice/evaluate/
distortion of every node)
labels, bounds, class table, per-row table      :mod:`.form`                                        form/
m-invariance across versions (Xiao and Tao      :mod:`.invariance` (boxes, merge), shared steps in  invariance/,
2007)                                           :mod:`anonymizer.versions.invariance`               ../invariance/
==============================================  ==================================================  ======================

``steps`` plugs the algorithms into the release (:mod:`anonymizer.families`); what they
return is :class:`.result.AlgorithmResult`.
"""

from anonymizer.families.base import Family

#: the generic models of the kind packages (:mod:`anonymizer.models`)
GENERIC_MODELS = ("k-anonymity", "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity",
                  "t-closeness", "alpha-k-anonymity")
#: the models against a population table (ARX's KMap, DPresence), generalized at the release's
#: hierarchy levels: the lattice algorithms' (full-domain, optimal, privacyfrost2), not Mondrian's
POPULATION_MODELS = ("k-map", "delta-presence")

FAMILY = Family(
    "generalized", None,
    algorithms={"mondrian": frozenset({"seed", "relaxed", "labels", "split"}),
                "top-down": frozenset({"seed"}),
                "full-domain": frozenset({"seed", "levels"}),
                "privacyfrost2": frozenset({"seed", "priorities", "min_level", "scoring", "d", "p", "presample",
                                            "partial", "tie_break"}),
                "optimal": frozenset({"seed", "min_level"}),
                # no seed: SafePub's sample and draws are never replayable (:mod:`.lattice.safepub`)
                "safepub": frozenset({"epsilon", "delta", "search_epsilon", "steps", "score", "selection", "target"})},
    models=frozenset(GENERIC_MODELS + POPULATION_MODELS), parts=("classes",), gate=True,
    refuses={"mondrian": frozenset(POPULATION_MODELS), "top-down": frozenset(POPULATION_MODELS)}, package=__name__)
