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
"""

from __future__ import annotations

from dataclasses import dataclass

#: the score functions a SafePub release may name (``algorithm.score``)
SCORES = ("loss", "precision", "discernibility", "aecs", "entropy", "classification")


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
    """

    kept_rows: int
    kept_classes: int
    sum_squares: int
    loss_sum: float
    squares: tuple[int, ...] = ()
    majority: int = 0


def score(name: str, node: tuple[int, ...], heights: tuple[int, ...], c: Classes, n: int, k: int) -> float:
    """The score ``name`` of ``node`` (module docstring); ``n``: the input's rows, ``k``: SafePub's k."""
    d = len(node)
    suppressed = n - c.kept_rows
    spread = k * k / (k - 1) + 1 if k > 1 else 5.0     # ARX's sensitivity factor of the squared scores
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
