"""Differential privacy inside the database (issue 60).

============================  ====================================================================
what                          where
============================  ====================================================================
SafePub's β and k from ε, δ   :mod:`.safepub_parameters` (Bild, Kuhn and Prasser, PoPETs 2018;
                              the bound of Li, Qardaji and Su 2012), checked against ARX 3.9.2
the exponential mechanism     :mod:`.exponential` (McSherry and Talwar 2007), CSPRNG draws
SafePub's algorithm           :mod:`anonymizer.families.generalized.lattice.safepub` (Alg. 1, 2),
                              scores in :mod:`anonymizer.families.generalized.lattice.safepub_scores`,
                              SQL in ``templates/families/generalized/safepub/``
what a DP release's audit     :mod:`.audit`
row keeps
its spec's rules              :mod:`anonymizer.spec.differential`
============================  ====================================================================
"""
