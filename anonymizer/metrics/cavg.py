"""C_AVG, the normalized average equivalence class size (LeFevre, DeWitt and Ramakrishnan 2006).

``C_AVG = (N - suppressed) / (classes * k)``: 1 is the ideal (every class exactly k rows).
"""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.metrics.base import ClassStats, class_stats


def cavg(engine: Engine, candidate: str, total_rows: int, k: int,
         stats: ClassStats | None = None) -> float:
    """Return C_AVG of the candidate for the release's ``k`` (0 when nothing is released)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise SpecError("k", "must be a whole number >= 1", k)
    stats = stats or class_stats(engine, candidate, total_rows)
    return stats.released / (stats.classes * k) if stats.classes else 0.0
