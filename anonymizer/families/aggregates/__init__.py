"""Differentially private aggregates: counts, sums and means by chosen dimensions, each cell
with noise, from rows whose contribution per person is bounded in SQL.

Reading guide:

==============================================  =============================================  ==========================
step                                            here                                           SQL (templates/families/aggregates/)
==============================================  =============================================  ==========================
contribution bounding: at most G groups per     :func:`.cells.cells`                           bounded.sql.j2
person and R rows per person and group (drawn
with the release's secret key), values clamped
to their bounds and put on an integer grid
the true cells (persons, rows, sums, counts)    :func:`.cells.cells`                           cells.sql.j2
public keys: the declared values' product       :func:`.cells.cells`                           cells.sql.j2
private keys: a cell is published when its      :func:`.cells.select`                          --
noisy count of persons reaches a threshold
(Korolova et al. 2009; Desfontaines et al.
2022's Laplace partition selection)
noise per cell, exact on the integers           :mod:`anonymizer.dp.noise`                     --
the published table and the bounds re-checked   :mod:`.steps`                                  published.sql.j2, check_bounds.sql.j2
==============================================  =============================================  ==========================

Budget: ε is split evenly among the noisy quantities (the count, and per mean its sum and its
count, per sum its sum) and, with private keys, the selection; δ goes to the selection (and to
the discrete Gaussian's quantities, with ``noise: gaussian``). The versions compose in the
budget ledger (:mod:`anonymizer.dp.ledger`).
"""

from anonymizer.families.base import Family

FAMILY = Family(
    "aggregates", None,
    # no seed: the bounding's draws and the noise are never replayable
    algorithms={"dp-aggregates": frozenset({"epsilon", "delta", "measures", "keys", "groups_per_person",
                                            "rows_per_group", "noise"})},
    models=frozenset(), reads=frozenset({"individual"}), units="cells", package=__name__)
