"""The release families: what each declares, and where each paper's algorithms are.

A family is the set of algorithms that publish one form of table. Each declares, as data
(:class:`Family`), the algorithms it answers to with their options, the privacy models it
accepts, the column features it reads and the views it publishes besides the main one; the
spec and the release ask these declarations and never test a family's or an algorithm's
name. Each family's ``steps`` module implements the same five steps, as ``STEPS``, an instance
of :class:`~anonymizer.release.candidate.FamilySteps` (typed by its algorithm's result, its
candidate and what its verify hands to measure), which the one driver
(:func:`anonymizer.release.run.verified`) runs in order::

    run(engine, plan) -> rounds          the algorithm (the paper's rounds)
      -> suppression gate (the driver)
    build(engine, plan, rounds) -> built        the candidate table(s), published columns
    verify(engine, plan, rounds, built) -> checked   every declared model re-checked in SQL
    measure(engine, plan, rounds, built, checked) -> Verified   utility figures
    summary_lines(result) -> lines       what the summary adds for this family

and its ``options`` module holds its pairing rules (``pair(algorithm, models, columns)``).

The index: paper -> package -> algorithms -> templates -> reproduction -> tests. A family's templates are
``templates/families/<package>/``, as its package is ``anonymizer/families/<package>/``.

=====  ==========================  =========================================  ===========================  ==================================  ======================
paper  package                     algorithms (modules)                       templates                    reproduction                        tests
=====  ==========================  =========================================  ===========================  ==================================  ======================
000    :mod:`.lgb`                 LGB_MDP, LGB_NCP (algorithm, subsets,      lgb/                         reproduce/p000_lgb                  tests/families/lgb
                                   bucketize, mdp, ncp), Fig. 2 table (form)
001    :mod:`anonymizer.hierarchy` CGH, DBGH, CBGH (cgh, dbgh, cbgh); lattice  hierarchy/, .../evaluate/    reproduce/p001_hierarchies          tests/hierarchy,
       + :mod:`.generalized.       evaluation, Def. 9 (evaluate)                                                                                tests/families/generalized/test_lattice_eval.py
       lattice.evaluate`
002    :mod:`.anatomy`             MBF, MSDCF, MMDCF (+ MSLF) (msb, buckets,  anatomy/                     reproduce/p002_msb                  tests/families/anatomy
                                   greedy), anatomy tables (form)
003    :mod:`.generalized.lattice` PrivacyFrost2 (privacyfrost2, scoring,     generalized/lattice/         reproduce/p003_privacyfrost2        tests/families/generalized
                                   frequency_set, lattice)
004    :mod:`.identity_reserved`   DAnonyIR (danonyir/), GeneIR (geneir),     identity_reserved/           reproduce/p004_identity_reserved    tests/families/identity_reserved
                                   IR/EIR models, hitting sets, Table 4 form
--     :mod:`.generalized`         Mondrian (mondrian), full-domain            generalized/                --                                  tests/families/generalized
                                   (full_domain), optimal (lattice.optimal)
--     :mod:`.invariance`          m-invariance (Xiao and Tao 2007) across     invariance/                  --                                  tests/privacy/test_versions*.py
                                   versions; each family's part in its
                                   ``invariance`` module
=====  ==========================  =========================================  ===========================  ==================================  ======================

"Paper N, Algorithm M, line K": the row of paper N, its package's ``__init__`` (the reading
guide), then the function whose comments carry ``# Alg. M, line K``.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Mapping

from anonymizer.families.base import Family
from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import MODEL_TYPES, ModelType, build_model as build_generic


def _declared() -> tuple[Family, ...]:
    from anonymizer.families.anatomy import FAMILY as anatomy
    from anonymizer.families.generalized import FAMILY as generalized
    from anonymizer.families.identity_reserved import FAMILY as identity_reserved
    from anonymizer.families.lgb import FAMILY as lgb
    from anonymizer.families.aggregates import FAMILY as aggregates
    return generalized, anatomy, lgb, identity_reserved, aggregates


FAMILIES: tuple[Family, ...] = _declared()

#: every algorithm name a spec may give, in the order the families declare them
ALGORITHMS: tuple[str, ...] = tuple(a for f in FAMILIES for a in f.algorithms)


def of(algorithm: str) -> Family:
    """The family an algorithm name belongs to (``KeyError`` for an unknown name; the spec
    refuses those first)."""
    for family in FAMILIES:
        if algorithm in family.algorithms:
            return family
    raise KeyError(algorithm)


def algorithms_accepting(model_type: str) -> str:
    """The algorithms that take a model type, for an error message: ``full-domain, optimal``."""
    return ", ".join(a for f in FAMILIES for a in f.algorithms if model_type in f.models_of(a))


def reading(feature: str) -> list[Family]:
    """The families that read a column feature (``flag``, ``individual``)."""
    return [f for f in FAMILIES if feature in f.reads]


def names(families: list[Family]) -> str:
    """Their algorithms, for an error message: ``lgb-mdp, lgb-ncp``."""
    return ", ".join(a for f in families for a in f.algorithms)


@functools.cache
def model_types() -> Mapping[str, ModelType]:
    """Every model ``type`` a spec may name: the generic ones (:mod:`anonymizer.models`), then
    each family's own (its ``models`` module's ``MODEL_TYPES``)."""
    own = {kind: how for family in FAMILIES if family.own_models
           for kind, how in importlib.import_module(f"{family.package}.models").MODEL_TYPES.items()}
    return {**MODEL_TYPES, **own}


def build_model(entry: Any, where: str) -> PrivacyModel:
    """A model from a spec entry of any type :func:`model_types` knows (the spec's ``models``).

    Example:
        >>> str(build_model({"type": "l-unique", "l": 3}, "models[0]"))
        '3-uniqueness of local buckets on every attribute with sensitive values'
    """
    return build_generic(entry, where, model_types())
