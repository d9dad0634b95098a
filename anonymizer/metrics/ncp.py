"""NCP, the Normalized Certainty Penalty (Xu et al. 2006), as paper 000 Sec. 3.2.2 uses it.

Per cell: a numeric QI generalized to ``[lo, hi]`` costs ``(num[hi] - num[lo]) /
range(A)`` (``range`` = max - min of the domain's numbers; 0 when the range is 0; paper
000's ``NCP_Anum``). A categorical cell costs ``size(v*) / |A|`` (``NCP_Acat``), ``|A| = m``,
under one of two conventions (:data:`CONVENTIONS`; the paper numbers none of its equations,
so they are cited by name):

- ``ours`` (the default, every release's NCP): ``size`` is the number of values the cell
  covers (``hi - lo + 1`` for a range or hierarchy node, fewer for a value set), and an
  ungeneralized value costs 0 -- Xu et al.'s convention;
- ``paper``: paper 000's ``NCP_Acat`` as printed: ``size(v*)`` is "the number of the leaf
  nodes that are the descendants of v* in the hierarchy tree", v* the lowest node of the
  QI's hierarchy covering every value of the cell (a value set {a, b} of a flat hierarchy
  is its root ``*``, |A| leaves), so an ungeneralized value, a leaf, costs ``1 / |A|``. A
  categorical QI's description then needs its hierarchy table (``hier``, see
  :func:`anonymizer.metrics.base.qi`).

``NCP(T)`` sums the cells over the released rows and the QIs, as the paper's ``NCP(T)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine
from anonymizer.metrics.base import ClassStats, class_stats, domain_params

#: how a categorical cell is counted: ours (covered values, 0 for one) or paper 000's (hierarchy leaves)
CONVENTIONS = ("ours", "paper")


def ncp(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]], total_rows: int,
        stats: ClassStats | None = None, weight: str | None = None, convention: str = "ours") -> tuple[float, float]:
    """Return ``(NCP(T), mean NCP per cell)``.

    ``NCP(T)`` is the paper's sum over released rows and QIs. The mean divides by all
    ``N * d`` cells of the source, a suppressed row counting 1 in each of its cells.
    ``weight``: the column of row counts when ``candidate`` is a summary of its cells.
    ``convention``: ``ours`` or ``paper`` (see the module docstring).
    """
    stats = stats or class_stats(engine, candidate, total_rows, weight)
    qis = list(qis)
    if not qis:
        return 0.0, 0.0
    return from_terms(ncp_terms(engine, candidate, qis, weight, convention), stats.suppressed, total_rows)


def from_terms(terms: Sequence[float], suppressed: int, total_rows: int) -> tuple[float, float]:
    """``(NCP(T), mean NCP per cell)`` from the QIs' :func:`ncp_terms` (see :func:`ncp`)."""
    total = sum(terms, 0.0)
    return total, (total + suppressed * len(terms)) / (total_rows * len(terms)) if terms else 0.0


def ncp_terms(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]],
              weight: str | None = None, convention: str = "ours") -> list[float]:
    """Per QI ``A_i``, ``sum_t NCP_Ai(t)`` over the released rows, in one statement (their sum
    is ``NCP(T)``); a QI's mean NCP per cell is ``(term + suppressed) / N``. ``convention``:
    ``ours`` or ``paper`` (the module docstring); ``paper`` reads each categorical QI's
    ``hier``."""
    qis = [_counted(q, convention) for q in qis]
    if not qis:
        return []
    row = engine.one("metrics/ncp.sql.j2", _categorical_params(qis), candidate=candidate, qis=qis, weight=weight)
    return [float(x or 0.0) for x in row]


def _counted(q: Mapping[str, Any], convention: str) -> Mapping[str, Any]:
    """``q`` as the template reads it: under ``paper``, a categorical QI counts the leaves of
    its hierarchy table (``leaves``)."""
    if convention not in CONVENTIONS:
        raise ValueError(f"NCP's convention is one of {', '.join(CONVENTIONS)}, not {convention!r}")
    if convention == "ours" or q["numeric"]:
        return q
    if not q.get("hier"):
        raise ValueError("paper 000's NCP counts hierarchy leaves: a categorical QI needs its 'hier' table")
    return dict(q, leaves=q["hier"])


def _categorical_params(qis: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Only categorical QIs read their ``$m<i>`` in the NCP template."""
    return {k: v for (k, v), q in zip(domain_params(qis).items(), qis) if not q["numeric"]}
