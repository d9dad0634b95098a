"""Reproductions of the five papers' worked examples and experiments, apart from the product:
the engine (release, families, models, metrics) never imports this package.

==========================  =============================================  ===============================
paper (``../shared/papers``) package                                        command
==========================  =============================================  ===============================
000 LGB                     :mod:`.p000_lgb` (worked example, experiment,  ``anonymizer reproduce p000``
                            query error, plots)
001 hierarchies, lattice    :mod:`.p001_hierarchies` (experiment, Table   ``anonymizer reproduce p001``
                            4, Figs. 5-6, findings, plots)
002 MSB                     :mod:`.p002_msb` (setting, experiment, plots)  ``anonymizer reproduce p002``
003 PrivacyFrost2           :mod:`.p003_privacyfrost2` (Table 2's grid)    ``anonymizer reproduce p003``
004 identity-reserved       :mod:`.p004_identity_reserved` (worked         ``anonymizer reproduce p004``
                            example, experiment, query error, plots)
==========================  =============================================  ===============================

Each paper's worked examples (its small tables and figures) are in its package's
``examples`` module, printed beside ours by ``anonymizer reproduce pNNN --table N`` or
``--figure N`` (:mod:`.worked`; ``anonymizer reproduce examples`` lists them).

The algorithms themselves live where a release runs them (``anonymizer/families``, the
hierarchy builders in ``anonymizer/hierarchy``); each module here cites the tables and
figures it reproduces.
"""
