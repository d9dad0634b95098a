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
partition falls back on the next best cut the models accept (decide.sql.j2); under
l-diversity a cut needs l distinct sensitive values on each side (:func:`least_distinct`).
A categorical QI is cut along its values most frequent first (:func:`reorder` recodes the
cells before the rounds, :func:`restore` after them): a set label's loss does not depend on
the order, and the hierarchy's order seldom lets a cut set a frequent value apart. The loss
it reaches on Adult, beside the median cut's and ARX's local recoding: README "Benchmarks"
(checked by tests/families/generalized/test_loss_split.py); the frequent-first order: README, "Measurements behind the constants".
"""

from __future__ import annotations

import math
from typing import Sequence

from anonymizer.engine.names import ident
from anonymizer.errors import SpecError
from anonymizer.models.catalog import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity

#: the loss-driven candidates' template, in place of candidates.sql.j2
TEMPLATE = "families/generalized/mondrian/candidates_loss.sql.j2"
#: the best cuts kept per partition and QI, for the models to choose among
CUTS = 4
#: the cuts ranked per partition and QI at most: a QI with more codes in the partition is cut
#: at the last allowed cut in each 1/MAX_CUTS of its rows. Ranking every cut costs codes^2 rows
#: (what the bound saves, and what it costs in loss: README, "Measurements behind the constants").
MAX_CUTS = 32
#: the bits of a packed count word (a BIGINT that stays positive)
WORD_BITS = 62


def _reordered(run) -> list[dict]:
    """The categorical QIs, whose cuts take their values most frequent first (see
    families/generalized/mondrian/frequency_order.sql.j2); none without ``split: loss``."""
    if run.inputs.split != "loss":
        return []
    return [{"dim": q.index, "col": ident(q.code)} for q in run.plan.qis if not q.numeric]


def reorder(run) -> None:
    """Before the rounds of Mondrian's ``run`` (its ``_Run``): the first cells' categorical
    codes become their places in the frequency order."""
    dims = _reordered(run)
    if dims:
        run.engine.run("families/generalized/mondrian/frequency_order.sql.j2", target=run.t("order"), cells=run.cells,
                       dims=dims)
        first, run.cells = run.cells, _recode(run, run.cells, "cells_ranked", dims, back=False)
        run.engine.drop(first)


def restore(run) -> None:
    """After the rounds: the finished cells' places become their codes again, and the
    classes' bounds are read off them."""
    dims = _reordered(run)
    if dims:
        run.done = _recode(run, run.t("done"), "done_coded", dims, back=True)


def _recode(run, cells: str, name: str, dims: list[dict], back: bool) -> str:
    """``cells`` recoded into the new work table ``name`` (a new table: Spark cannot replace a
    table by a query that reads it); returns its quoted name."""
    target = run.t(name)
    run.engine.run("families/generalized/mondrian/reorder.sql.j2", target=target, source=cells, order=run.t("order"),
                   keys=run.keys, qis=run.qis, dims=dims, back=back)
    return target


def least_distinct(checked: Sequence[tuple[int, object, str]]) -> dict[str, int]:
    """Per quoted sensitive column, the fewest distinct values a class must hold under the
    declared l-diversity models (``checked``: Mondrian's (index, model, column)): l for
    distinct and recursive (c, l)-diversity (r_1 < c (r_l + .. + r_m) is false with fewer
    than l values), ceil(l) for entropy l-diversity (an entropy of log l needs >= l values)."""
    need: dict[str, int] = {}
    for _, model, column in checked:
        if isinstance(model, (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)):
            need[column] = max(need.get(column, 1), math.ceil(model.l))
    return need


def params(run) -> dict[str, float]:
    """Bound ``$lw<i>``, the weight 1 / (m_i - 1) of a covered value of QI i in ARX's loss,
    and ``$ls<j>``, the distinct values each side needs of the j-th column of
    :func:`least_distinct`, for Mondrian's ``run`` (its ``_Run``)."""
    if run.inputs.split != "loss":
        return {}
    weights = {f"lw{q.index}": 1.0 / (q.m - 1) if q.m > 1 else 0.0 for q in run.plan.qis}
    return weights | {f"ls{j}": n for j, n in enumerate(least_distinct(run.checked).values())}


def context(run, cells: str, hist: str) -> dict | None:
    """The candidates step of a round of Mondrian's ``run`` (its ``_Run``) over its active
    ``cells`` and their ``hist``: the template and its context; None without ``split: loss``."""
    if run.inputs.split != "loss":
        return None
    if run.packing is None:
        run.packing = packing(run)
    fields, words = run.packing
    return {"template": TEMPLATE, "cells": cells, "hist": hist, "qis": run.qis, "cuts": CUTS, "max_cuts": MAX_CUTS,
            "sens": list(least_distinct(run.checked)), "numeric": [q.index for q in run.plan.qis if q.numeric],
            "fields": fields, "words": words}


def packing(run) -> tuple[list[dict | None], int]:
    """Where the candidates template packs, per categorical QI and per sensitive column of
    :func:`least_distinct`, the count of values a side covers: a bit field of a BIGINT
    (``word``, ``shift``, ``mask``; None for a numeric QI) wide enough for every value of
    the column in the cells (m + 1 for a QI: codes run from -1), so that one integer sum
    counts them all and no field carries into the next; returns the fields and the words."""
    widths = [None if q.numeric else (q.m + 1).bit_length() for q in run.plan.qis]
    for s in least_distinct(run.checked):
        widths.append(int(run.engine.execute(f"SELECT count(DISTINCT {s}) FROM {run.cells}").fetchone()[0]).bit_length())
    fields, word, shift = [], 0, 0
    for width in widths:
        if width is not None and shift + width > WORD_BITS:
            word, shift = word + 1, 0
        fields.append(None if width is None else {"word": word, "shift": shift, "mask": (1 << width) - 1})
        shift += width or 0
    return fields, word + 1
