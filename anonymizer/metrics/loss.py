"""Loss as ARX measures it: per cell ``(values covered - 1) / (values of the attribute - 1)``.

With the candidate's codes that is ``(hi - lo) / (m - 1)`` (0 for a one-value domain),
averaged over all ``N * d`` cells of the source, a suppressed cell counting 1.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine
from anonymizer.metrics.base import ClassStats, class_stats, domain_params


def loss(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]], total_rows: int,
         stats: ClassStats | None = None, weight: str | None = None) -> float:
    """Return the mean ARX loss per cell, in [0, 1] (``weight``: the column of row counts
    when ``candidate`` is a summary of its cells)."""
    stats = stats or class_stats(engine, candidate, total_rows, weight)
    qis = list(qis)
    if not qis:
        return 0.0
    (total,) = engine.one("metrics/loss.sql.j2", domain_params(qis), candidate=candidate, qis=qis, weight=weight)
    return (float(total or 0.0) + stats.suppressed * len(qis)) / (total_rows * len(qis))
