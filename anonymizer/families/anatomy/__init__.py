"""MSB over multiple sensitive attributes with security levels (paper 002: Xiao and Li,
Information 11(3):166, 2020; after Yang et al.'s MSB, Chinese J. of Computers 2008).

Reading guide:

==============================================  =========================================  ====================
paper                                           here                                       SQL (templates/families/anatomy/)
==============================================  =========================================  ====================
Defs. 1-3 security levels, Def. 10 ``l_s``      :func:`.buckets.build_levels`              levels
Def. 13 buckets, ``Capa``; Eqs. 1, 2            :func:`.buckets.build_buckets`             buckets
Section 4 grouping phase (Algorithms 1-3)       :func:`.greedy.run_greedy`, :func:`.grouping.grouping`
  MBF / MSDCF / MMDCF key, MSLF                 :func:`.grouping.score`
  shielding                                     :func:`.grouping.eligible`, :func:`.grouping.form`
Section 4 residual phase, suppression           :func:`.residual.residual`
rows to groups (runs)                           :func:`msb`, :func:`.runs.runs_of`         assign
QI table and sensitive table (anatomy)          :mod:`anonymizer.families.anatomy.form`                  qi_table, sensitive_table
Defs. 8, 11 verification                        :func:`anonymizer.families.anatomy.form.verify`          judge
Def. 14 additional information loss, Def. 15    :func:`anonymizer.families.anatomy.form.metrics`         judge
versions: m-invariance (Xiao and Tao 2007)      :mod:`.invariance`                         signed, ../invariance/*
==============================================  =========================================  ====================

The six algorithms are one greedy with two switches: the key (``mbf``, ``msdcf``,
``mmdcf``) and MSLF. The baselines group under plain l-diversity for multiple attributes
(Definition 8) with one ``l`` for every value: the model's ``l`` (``multi-l-diversity``)
or, under ``lsl-diversity``, the ``l`` of the highest level present, as the paper sets l = 3
"because the maximal security level ... is Level 2". Such groups are L_sl-diverse too.
"""

from anonymizer.families.base import Family

#: paper 002's six greedy algorithms: the baselines and their MSLF variants
MSB_ALGORITHMS = ("mbf", "msdcf", "mmdcf", "mbf-mslf", "msdcf-mslf", "mmdcf-mslf")

FAMILY = Family(
    "anatomy", "002",
    algorithms={a: frozenset({"seed", "batch"}) for a in MSB_ALGORITHMS},
    models=frozenset({"lsl-diversity", "multi-l-diversity"}),
    parts=("sensitive",), units="groups", gate=True, own_models=True,
    package=__name__)
