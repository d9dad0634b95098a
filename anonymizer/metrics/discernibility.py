"""C_DM, the discernibility metric (Bayardo and Agrawal 2005).

``C_DM = sum over classes |E|^2 + (suppressed rows) * N``: each released row is charged
the size of its class, each suppressed row the size of the whole table.
"""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.metrics.base import ClassStats, class_stats


def discernibility(engine: Engine, candidate: str, total_rows: int,
                   stats: ClassStats | None = None) -> int:
    """Return C_DM of the candidate."""
    stats = stats or class_stats(engine, candidate, total_rows)
    return stats.sum_squares + stats.suppressed * total_rows
