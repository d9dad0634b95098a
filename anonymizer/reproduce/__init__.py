"""Reproductions of the five papers' worked examples and experiments, apart from the product:
the engine (release, families, models, metrics) never imports this package.

==========================  =============================================  ===============================
paper (``../shared/papers``) package                                        command
==========================  =============================================  ===============================
000 LGB                     :mod:`.p000_lgb` (worked example, experiment,  ``anonymizer lgb --experiment 000``
                            query error, plots)
001 hierarchies, lattice    :mod:`.p001_hierarchies` (experiment, plots)   ``anonymizer lattice --experiment 001``
002 MSB                     :mod:`.p002_msb` (setting, experiment, plots)  ``anonymizer msb --experiment 002``
003 PrivacyFrost2           :mod:`.p003_privacyfrost2` (Table 2's grid)    ``anonymizer bench --bench lattice``
004 identity-reserved       :mod:`.p004_identity_reserved` (worked         ``anonymizer ir --experiment 004``
                            example, experiment, query error, plots)
==========================  =============================================  ===============================

The algorithms themselves live where a release runs them (``anonymizer/algorithms``, the
hierarchy builders in ``anonymizer/hierarchy``); each module here cites the tables and
figures it reproduces.
"""
