"""NCP, the Normalized Certainty Penalty (Xu et al. 2006), as paper 000 Sec. 3.2.2 uses it.

Per cell: a numeric QI generalized to ``[lo, hi]`` costs ``(num[hi] - num[lo]) /
range(A)`` (``range`` = max - min of the domain's numbers; 0 when the range is 0); a
categorical QI generalized to a node covering ``hi - lo + 1`` leaves costs ``size(v*) /
|A|`` with ``|A| = m``, and an ungeneralized value (``hi = lo``) costs 0 -- Xu et al.'s
convention, which the paper's formula (1/|A| for a single leaf) leaves implicit.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine
from anonymizer.metrics.base import ClassStats, class_stats, domain_params


def ncp(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]], total_rows: int,
        stats: ClassStats | None = None, weight: str | None = None) -> tuple[float, float]:
    """Return ``(NCP(T), mean NCP per cell)``.

    ``NCP(T)`` is the paper's sum over released rows and QIs. The mean divides by all
    ``N * d`` cells of the source, a suppressed row counting 1 in each of its cells.
    ``weight``: the column of row counts when ``candidate`` is a summary of its cells.
    """
    stats = stats or class_stats(engine, candidate, total_rows, weight)
    qis = list(qis)
    if not qis:
        return 0.0, 0.0
    (total,) = engine.one("metrics/ncp.sql.j2", _categorical_params(qis),
                          candidate=candidate, qis=qis, weight=weight)
    total = float(total or 0.0)
    return total, (total + stats.suppressed * len(qis)) / (total_rows * len(qis))


def _categorical_params(qis: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Only categorical QIs read their ``$m<i>`` in the NCP template."""
    return {k: v for (k, v), q in zip(domain_params(qis).items(), qis) if not q["numeric"]}
