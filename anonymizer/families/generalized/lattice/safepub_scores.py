"""SafePub's score functions (Bild, Kuhn and Prasser, PoPETs 2018, section 5): how good a
generalization is, computed on the sampled rows with SafePub's k-anonymity (classes under k
suppressed), each divided by its sensitivity, so that the exponential mechanism weighs a
node by ``exp(ε · score / 2)`` (:mod:`anonymizer.dp.exponential`).

The formulas, their normalization and the treatment of rows (a sampled row in a class under k
and a row left out of the sample both count as suppressed) are ARX 3.9.2's ``getScore`` of
the metric named, which implements the paper; ``n`` is the input's rows, ``d`` the QIs:

============== ===================================================  ========================================
score          value (higher is better)                             ARX
============== ===================================================  ========================================
smooth_loss    -(sum over every class of: its cells' loss + (d -    none: ours (below), the default
               its rows' mean loss) * h(size)) / d
loss           -(sum of kept cells' loss + suppressed * d)          ``MetricMDNMLoss``
               / (d (k - 1)); a cell's loss its share of the file's
               leaves, (leaves under it - 1) / (leaves - 1)
precision      -(sum over QIs of kept * level / height              ``MetricMDNMPrecision``
               + suppressed) / (d (k - 1))
discernibility -(sum of kept classes' size^2 + n * suppressed)      ``MetricSDNMDiscernability``
               / (n (k^2 / (k - 1) + 1))
aecs           kept classes + 1 if any row is suppressed             ``MetricSDAECS`` (sensitivity 1)
entropy        -(sum over QIs of: sum over kept values below the     ``MetricMDNUEntropyPrecomputed``
               root of count^2, + n * rows suppressed or at the
               root) / (n d (k^2 / (k - 1) + 1))
classification (sum over kept classes of the rows holding their      ``MetricSDClassification`` (one
               most frequent target value) / k                       response variable, not a QI)
============== ===================================================  ========================================

A cell's loss is read from the hierarchy file alone (``safepub/cell_losses.sql.j2``), as ARX
reads its domain shares from the hierarchy: a value's loss never depends on which values the
other rows hold, so one person changes the loss of their own row only, and the sensitivity
``d (k - 1)`` holds (the review of issue 60 found the data's domain, ``(hi - lo) / (m - 1)``,
moved a node's score by 103). ``classification`` (the paper's sixth: how well the classes
predict a target column, ``algorithm.target``) counts the rows a majority vote per class
classifies right; one row changes it by at most k (a class reaching or leaving size k).

**smooth_loss** is ``loss`` with the suppression phased in. ARX's scores cut at k: a class of
k - 1 rows is suppressed whole, one of k kept whole, so one person moves a score by k - 1 rows'
worth, the sensitivity ``d (k - 1)`` the score is divided by, and the exponential mechanism
(or permute-and-flip) then tells nodes apart only to within some k rows of loss: on Adult at
ε = 1 (k = 59) the loss published by ARX's procedure lies 0.06 above the best node of the
lattice. Here a class of ``s`` rows whose rows have ``l`` of loss each (the sum of their
cells' losses, the same for every row of the class: a cell's loss is a function of its
generalized value) costs ``s l + (d - l) h(s)``: ``h(s)`` of its rows count as suppressed
(each costing ``d``, as ``loss`` counts them), with ``h(s) = s`` for ``s <= k - 1`` (a class
under k: every row), ``2 (k - 1) - s`` up to ``2 (k - 1)`` and 0 beyond. Adding one row to a
class of ``s`` rows (or a new class, ``s = 0``) changes its cost by ``l + (d - l)(h(s + 1) -
h(s))``, and ``h(s + 1) - h(s)`` is 1, 0 or -1, so the change lies in ``[2 l - d, d]``, within
``[-d, d]``: one person moves a node's sum by at most ``d``, and the score, divided by ``d``,
has sensitivity 1 (``test_smooth_loss_moves_by_at_most_one_across_every_bend`` crosses every
bend of ``h``). A node whose classes hold between k and 2 (k - 1) rows is scored
as if some of them were suppressed (they are published): the price of a score one person moves
by one row's worth, not k's. On Adult (8 QIs, every node of the lattice scored on real samples,
the walk and permute-and-flip simulated, the search at ε / 20) the node published at ε = 1
lies 0.009 above the lattice's best loss (medians 0.651 against 0.642), where ``loss`` lay
0.07 above it (docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the score functions a SafePub release may name (``algorithm.score``)
SCORES = ("smooth_loss", "loss", "precision", "discernibility", "aecs", "entropy", "classification")


@dataclass(frozen=True)
class Classes:
    """What :func:`score` reads of one node's classes of sampled rows (``scores.sql.j2``).

    Attributes:
        kept_rows: rows in classes of at least k.
        kept_classes: those classes.
        sum_squares: the sum of their sizes squared.
        loss_sum: the sum over their rows and QIs of the cell's loss.
        squares: per QI, the sum over its values below the root of (kept rows holding it)^2
            (read for ``entropy`` only).
        majority: the sum over kept classes of their most frequent target value's rows (read
            for ``classification`` only).
        smooth: the sum over every class, kept or not, of its loss plus ``(d - its rows' mean
            loss) * h(size)`` (read for ``smooth_loss`` only; module docstring).
    """

    kept_rows: int
    kept_classes: int
    sum_squares: int
    loss_sum: float
    squares: tuple[int, ...] = ()
    majority: int = 0
    smooth: float = 0.0


def score(name: str, node: tuple[int, ...], heights: tuple[int, ...], c: Classes, n: int, k: int) -> float:
    """The score ``name`` of ``node`` (module docstring); ``n``: the input's rows, ``k``: SafePub's k."""
    d = len(node)
    suppressed = n - c.kept_rows
    spread = k * k / (k - 1) + 1 if k > 1 else 5.0     # ARX's sensitivity factor of the squared scores
    if name == "smooth_loss":
        return -c.smooth / d
    if name == "loss":
        return -(c.loss_sum + suppressed * d) / (d * max(k - 1, 1))
    if name == "precision":
        generalized = sum(c.kept_rows * lv / h for lv, h in zip(node, heights) if h)
        return -(generalized + suppressed * d) / (d * max(k - 1, 1))
    if name == "discernibility":
        return -(c.sum_squares + n * suppressed) / (n * spread)
    if name == "aecs":
        return float(c.kept_classes + (1 if suppressed else 0))
    if name == "entropy":
        total = sum(n * n if lv == h else sq + n * suppressed for lv, h, sq in zip(node, heights, c.squares))
        return -total / (n * d) / spread
    if name == "classification":
        return c.majority / max(k, 1)
    raise ValueError(f"unknown SafePub score {name!r} (one of {', '.join(SCORES)})")
