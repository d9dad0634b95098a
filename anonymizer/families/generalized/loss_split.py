"""Mondrian's loss-driven strict cut (``algorithm: {name: mondrian, split: loss}``).

LeFevre, DeWitt and Ramakrishnan (ICDE 2006, section 3) split a partition on the QI of
widest normalized range at its median; the paper leaves the choice open ("choose_dimension",
"find_median") and any allowable cut keeps the result k-anonymous. ``split: loss`` takes,
per partition, the strict cut (QI and code, both sides >= k and passing every model) whose
two sides lose least under ARX's loss (Prasser et al.: per cell (values covered - 1) /
(values - 1), the ``utility["loss"]`` a release reports, after Iyengar 2002's LM): the
greedy specialization step of top-down specialization (Fung, Wang and Yu, ICDE 2005), here
inside Mondrian's multidimensional partitioning. A side's cover is what ``labels: values``
publishes: a categorical QI's set of values, a numeric QI's range.

The cuts are ranked in SQL per round (``families/generalized/mondrian/candidates_loss.sql.j2``,
over the active cells, no join of cells and cuts); the best :data:`CUTS` per partition and
QI are the round's candidates, so that with l-diversity, t-closeness and the like the
partition falls back on the next best cut the models accept (decide.sql.j2).

On ARX's Adult (30,162 rows, 8 QIs) it loses less than the median cut at every k tried
and less than ARX 3.9.2's local recoding (see tests/families/generalized/test_loss_split.py
and README's Mondrian section for the figures).
"""

from __future__ import annotations

from anonymizer.plan import Plan

#: the loss-driven candidates' template, in place of candidates.sql.j2
TEMPLATE = "families/generalized/mondrian/candidates_loss.sql.j2"
#: the best cuts kept per partition and QI, for the models to choose among
CUTS = 4


def params(plan: Plan) -> dict[str, float]:
    """Bound ``$lw<i>``: the weight 1 / (m_i - 1) of a covered value of QI i in ARX's loss."""
    return {f"lw{q.index}": 1.0 / (q.m - 1) if q.m > 1 else 0.0 for q in plan.qis}


def context(plan: Plan, cells: str, hist: str, qis: list[str]) -> dict:
    """The template's context over the round's active ``cells`` and its ``hist``."""
    return {"cells": cells, "hist": hist, "qis": qis, "cuts": CUTS,
            "numeric": [q.index for q in plan.qis if q.numeric]}
