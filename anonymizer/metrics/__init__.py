"""Utility metrics of a candidate release, computed in SQL (one module per metric).

The candidate contract (produced by the release engine): a relation with columns
``__rid`` (row id), ``__cid`` (equivalence class id) and, for each quasi-identifier
``i`` (0..d-1), ``__lo{i}`` and ``__hi{i}``: INTEGER codes into a domain table
``dom{i}(code INTEGER 0..m_i-1, value, num DOUBLE)`` (``num`` is the numeric value of
a numeric QI, NULL for a categorical one). Suppressed rows are absent from the
candidate; the source's row count ``total_rows`` (N) is passed in.

A QI is described by a dict ``{"lo_col", "hi_col", "dom", "numeric", "m"}`` with quoted
column and relation names (see :func:`qi`).

Metrics: :func:`~.ncp.ncp` (Xu et al. 2006), :func:`~.loss.loss` (ARX),
:func:`~.discernibility.discernibility` (Bayardo and Agrawal 2005),
:func:`~.cavg.cavg` (LeFevre et al. 2006), :func:`~.suppression.suppression`, and
:func:`utility_report` bundling them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine, render
from anonymizer.errors import SpecError
from anonymizer.engine.names import ident

#: the class id column of a candidate.
CID = ident("__cid")


def qi(i: int, dom: str, numeric: bool, m: int, sized: bool = False) -> dict[str, Any]:
    """The description of QI ``i`` under the candidate contract's column names.

    ``sized``: the candidate has ``__n{i}``, the number of domain values a cell covers
    (value-set generalization covers fewer than ``hi - lo + 1``); otherwise the cell
    covers the whole code range.
    """
    size = ident(f"__n{i}") if sized else f"({ident(f'__hi{i}')} - {ident(f'__lo{i}')} + 1)"
    return {"lo_col": ident(f"__lo{i}"), "hi_col": ident(f"__hi{i}"), "size": size, "dom": dom,
            "numeric": bool(numeric), "m": int(m)}


def domain_params(qis: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Bound parameters ``m<i>`` (domain sizes) of the metric templates."""
    return {f"m{i}": int(q["m"]) for i, q in enumerate(qis)}


@dataclass(frozen=True)
class ClassStats:
    """Table-level figures of the candidate's classes (read as one row)."""

    released: int
    classes: int
    smallest: int
    sum_squares: int
    suppressed: int
    total: int


def class_stats(engine: Engine, candidate: str, total_rows: int, weight: str | None = None) -> ClassStats:
    """Released rows, classes, smallest class and sum of squared class sizes, in SQL.
    ``weight``: the column of row counts when ``candidate`` is a summary of its cells."""
    if total_rows <= 0:
        raise SpecError("total_rows", "must be a positive row count", total_rows)
    sizes = render("models/class_sizes.sql.j2", source=candidate, qis=[CID], weight=weight)
    released, classes, smallest, dm, _risk = engine.one(
        "metrics/class_summary.sql.j2", {"threshold": 1.0}, sizes=sizes)
    released = int(released or 0)
    if released > total_rows:
        raise SpecError("total_rows", f"is below the candidate's {released} rows", total_rows)
    return ClassStats(released, int(classes), int(smallest or 0), int(dm or 0),
                      total_rows - released, total_rows)


from anonymizer.metrics.cavg import cavg  # noqa: E402
from anonymizer.metrics.discernibility import discernibility  # noqa: E402
from anonymizer.metrics.loss import loss  # noqa: E402
from anonymizer.metrics.ncp import ncp  # noqa: E402
from anonymizer.metrics.suppression import suppression  # noqa: E402


def utility_report(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]],
                   total_rows: int, k: int | None = None, weight: str | None = None) -> dict[str, Any]:
    """All utility metrics of a candidate as a JSON-ready dict.

    Keys: ``rows`` (N), ``released``, ``suppressed``, ``suppression`` (ratio),
    ``classes``, ``ncp`` (mean per cell, suppressed cells count 1), ``ncp_sum`` (NCP(T)
    over released rows), ``loss`` (ARX), ``discernibility`` (C_DM) and, when ``k`` is
    given, ``cavg`` (C_AVG).

    The candidate is read once: its rows are summed per cell (class and generalized ranges)
    into a temporary table, from which every metric is computed. ``weight``: a column of
    ``candidate`` holding how many released rows each of its rows stands for, when it is a
    class table (one row per class, its size) rather than the rows themselves.
    """
    qis = list(qis)
    with engine.scratch(render("metrics/cells.sql.j2", candidate=candidate, cid=CID, qis=qis, weight=weight),
                        template="metrics/cells.sql.j2") as cells:
        weight = ident("__w")
        summary = [dict(q, lo_col=ident(f"__lo{j}"), hi_col=ident(f"__hi{j}"), size=ident(f"__n{j}"))
                   for j, q in enumerate(qis)]
        stats = class_stats(engine, cells, total_rows, weight)
        ncp_sum, ncp_mean = ncp(engine, cells, summary, total_rows, stats=stats, weight=weight)
        out: dict[str, Any] = {
            "rows": total_rows,
            "released": stats.released,
            "suppressed": stats.suppressed,
            "suppression": suppression(engine, cells, total_rows, stats=stats),
            "classes": stats.classes,
            "ncp": ncp_mean,
            "ncp_sum": ncp_sum,
            "loss": loss(engine, cells, summary, total_rows, stats=stats, weight=weight),
            "discernibility": discernibility(engine, cells, total_rows, stats=stats),
        }
    if k is not None:
        out["cavg"] = cavg(engine, candidate, total_rows, k, stats=stats)
    return out


__all__ = ["CID", "ClassStats", "class_stats", "qi", "domain_params", "ncp", "loss",
           "discernibility", "cavg", "suppression", "utility_report"]
