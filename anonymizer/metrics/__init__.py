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

from typing import Any, Mapping, Sequence

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.metrics.base import CID, ClassStats, class_stats, domain_params, qi
from anonymizer.metrics.cavg import cavg
from anonymizer.metrics.discernibility import discernibility
from anonymizer.metrics.loss import loss
from anonymizer.metrics.ncp import from_terms as ncp_from_terms, ncp, ncp_terms
from anonymizer.metrics.suppression import suppression


def utility_report(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]],
                   total_rows: int, k: int | None = None, weight: str | None = None,
                   names: Sequence[str] | None = None) -> dict[str, Any]:
    """All utility metrics of a candidate as a JSON-ready dict.

    Keys: ``rows`` (N), ``released``, ``suppressed``, ``suppression`` (ratio),
    ``classes``, ``ncp`` (mean per cell, suppressed cells count 1), ``ncp_sum`` (NCP(T)
    over released rows), ``loss`` (ARX), ``discernibility`` (C_DM) and, when ``k`` is
    given, ``cavg`` (C_AVG); with ``names`` (the QIs' names, in order), ``ncp_per_qi``: each
    QI's mean NCP per cell (its suppressed cells counting 1), whose mean over the QIs is ``ncp``.

    The candidate is read once: its rows are summed per cell (class and generalized ranges)
    into a temporary table, from which every metric is computed. ``weight``: a column of
    ``candidate`` holding how many released rows each of its rows stands for, when it is a
    class table (one row per class, its size) rather than the rows themselves.
    """
    qis = list(qis)
    with engine.scratch(render("metrics/cells.sql.j2", candidate=candidate, cid=CID, qis=qis, weight=weight),
                        template="metrics/cells.sql.j2") as cells:
        weight = ident("__w")
        summary = [dict(q, lo_col=ident(f"__lo{j}"), hi_col=ident(f"__hi{j}"), size=ident(f"__n{j}"),
                        **({"low": ident(f"__low{j}"), "high": ident(f"__high{j}")} if "low" in q else {}))
                   for j, q in enumerate(qis)]
        stats = class_stats(engine, cells, total_rows, weight)
        terms = ncp_terms(engine, cells, summary, weight)
        ncp_sum, ncp_mean = ncp_from_terms(terms, stats.suppressed, total_rows)
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
        if names is not None:
            out["ncp_per_qi"] = {name: (term + stats.suppressed) / total_rows for name, term in zip(names, terms)}
    if k is not None:
        out["cavg"] = cavg(engine, candidate, total_rows, k, stats=stats)
    return out


__all__ = ["CID", "ClassStats", "class_stats", "qi", "domain_params", "ncp", "loss",
           "discernibility", "cavg", "suppression", "utility_report"]
