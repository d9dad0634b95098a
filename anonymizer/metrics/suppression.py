"""Suppression ratio: the share of the source's rows that the candidate leaves out."""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.metrics.base import ClassStats, class_stats


def suppression(engine: Engine, candidate: str, total_rows: int,
                stats: ClassStats | None = None) -> float:
    """Return ``suppressed / N``."""
    stats = stats or class_stats(engine, candidate, total_rows)
    return stats.suppressed / total_rows
