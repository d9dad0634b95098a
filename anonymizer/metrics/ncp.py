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
    return from_terms(ncp_terms(engine, candidate, qis, weight), stats.suppressed, total_rows)


def from_terms(terms: Sequence[float], suppressed: int, total_rows: int) -> tuple[float, float]:
    """``(NCP(T), mean NCP per cell)`` from the QIs' :func:`ncp_terms` (see :func:`ncp`)."""
    total = sum(terms, 0.0)
    return total, (total + suppressed * len(terms)) / (total_rows * len(terms)) if terms else 0.0


def ncp_terms(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]],
              weight: str | None = None) -> list[float]:
    """Per QI ``A_i``, ``sum_t NCP_Ai(t)`` over the released rows, in one statement (their sum
    is ``NCP(T)``); a QI's mean NCP per cell is ``(term + suppressed) / N``."""
    qis = list(qis)
    if not qis:
        return []
    row = engine.one("metrics/ncp.sql.j2", _categorical_params(qis), candidate=candidate, qis=qis, weight=weight)
    return [float(x or 0.0) for x in row]


def _categorical_params(qis: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Only categorical QIs read their ``$m<i>`` in the NCP template."""
    return {k: v for (k, v), q in zip(domain_params(qis).items(), qis) if not q["numeric"]}
