"""The report page: the audit row's figures and the gathered ones, laid out by the jinja2
template ``templates/report/page.html.j2`` (HTML-escaped) with the plots inline.

The page is one file: its CSS is in it, its plots are inline SVG, it loads nothing and runs
no script, so it reads the same offline, attached to a mail or archived with the release.
"""

from __future__ import annotations

import json

import importlib.metadata
from typing import Any

import jinja2

from anonymizer.versions.combination import summary
from anonymizer.report import plots
from anonymizer.resources import TEMPLATES, resource_dir

_HTML = jinja2.Environment(loader=jinja2.FileSystemLoader(str(resource_dir(TEMPLATES))), autoescape=True,
                           undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def number(value: Any) -> str:
    """A figure for people: integers with thousands separators, floats to 4 significant digits.

    >>> number(32561), number(0.199440235), number(True), number(None)
    ('32,561', '0.1994', 'True', '–')
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


_HTML.filters["number"] = number


def versions() -> dict[str, str]:
    """The library's and DuckDB's versions, for a page about a run made now (a dry run)."""
    import duckdb
    return {"library_version": importlib.metadata.version("anonymizer"), "engine_version": f"DuckDB {duckdb.__version__}"}


def page(header: dict[str, Any], spec_text: str, notes: list[str], row: dict[str, Any], gathered: dict[str, Any],
         history: list[dict[str, Any]]) -> str:
    """The report as HTML text.

    Args:
        header: ``release``, ``version`` (``None``: a dry run), ``view``, ``snapshot``,
            ``when``, ``library_version``, ``engine_version``, ``audience`` (``custodian``
            or ``recipient``: a recipient's page says the source is not shown, not that it
            is missing).
        spec_text: the spec as written.
        notes: sentences shown under the header (the source changed, the spec differs, ...).
        row: the audit row (or a dry run's equivalent): ``figures`` (``models``,
            ``utility``), ``parameters``, ``rows_in``, ``rows_out``, ``suppressed``, ``timings``.
        gathered: :func:`anonymizer.report.gather.gather`'s figures.
        history: the release's audit rows, oldest first.
    """
    figures, measured = row.get("figures") or {}, gathered["measured"]
    models = figures.get("models") or []
    risk = measured.get("risk") or {}
    utility = figures.get("utility") or {}
    per_attribute = {name: value for name, value in utility.items() if _numbers(value)}
    timings = {k: float(v) for k, v in (row.get("timings") or {}).items() if isinstance(v, (int, float))}
    phases = {k: v for k, v in timings.items() if k != "total"}
    rows_in = row.get("rows_in") or 0
    context = {
        "header": header, "spec_text": spec_text, "notes": notes, "row": row,
        "parameters": row.get("parameters") or {},
        "models": models, "holds": all(m.get("holds", True) for m in models),
        "warnings": figures.get("warnings") or [],
        "threshold": risk.get("threshold"),
        "risk_models": _risk_models(risk, measured["table"]),
        "risk_plot": plots.record_risk(gathered["record_risk"], risk.get("threshold")),
        "record_risk": gathered["record_risk"],
        "measured": measured,
        "sizes_plot": plots.class_sizes(measured["class_sizes"]),
        "utility": {k: v for k, v in utility.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
        "loss_plots": {name: plots.bars(list(value), list(value.values()), name) for name, value in per_attribute.items()},
        "attributes": [dict(a, plot=plots.distribution(f"{a['name']} ({a['role']})", a["before"], a["after"],
                                                        "not shown to a recipient"
                                                        if header["audience"] == "recipient" else "not in this table"))
                       for a in gathered["attributes"]],
        "suppressed_share": (row.get("suppressed") or 0) / rows_in if rows_in else 0.0,
        "timings": timings, "total": timings.get("total", sum(phases.values())),
        "timings_plot": plots.bars(list(phases), list(phases.values()), "seconds per phase", unit=" s")
        if phases else None,
        "history": [dict(h, across=summary(h.get("figures"), h.get("parameters")), spent=spent)
                    for h, spent in zip(history, _spending(history))],
    }
    context["dp"] = any(h["spent"] for h in context["history"])
    context["history_plot"] = plots.history(context["history"])
    return _HTML.get_template("report/page.html.j2").render(**context)


#: the columns of the risk table, in order (ARX's RiskModelSampleSummary figures per model)
RISK_COLUMNS = ("highest", "lowest", "average", "records_at_risk", "classes_at_risk", "share_at_risk")


def _risk_models(risk: dict, measured: str) -> list[dict]:
    """One row per attacker model of :mod:`anonymizer.metrics.risk` (prosecutor, journalist,
    marketer): its figures under :data:`RISK_COLUMNS` (``None`` where the model has none) and
    the population it was measured against (``None``: the released rows themselves, so the
    journalist's figures are the prosecutor's, as in ARX without a population table)."""
    found = []
    for model in ("prosecutor", "journalist", "marketer"):
        figures = risk.get(model)
        if isinstance(figures, dict):
            population = figures.get("population")
            found.append({"model": model, "figures": [figures.get(c) for c in RISK_COLUMNS],
                          "population": None if population in (None, "sample", measured) else population})
    return found


def _numbers(value: Any) -> bool:
    """Whether ``value`` is a non-empty mapping of numbers (a figure per attribute)."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values())


def _spending(history: list[dict[str, Any]]) -> list[dict[str, float] | None]:
    """Per version, what a differentially private version spent (its spec's ε and δ) and the
    sum over the release's versions so far (sequential composition: what whoever holds them
    all holds, refreshes of the budget included); ``None`` for any other version."""
    out: list[dict[str, float] | None] = []
    total = [0.0, 0.0]
    for h in history:
        parameters = h.get("parameters") or {}
        if isinstance(parameters, str):
            parameters = json.loads(parameters)
        spends = (parameters.get("budget") or {}).get("spends")
        if not spends:
            out.append(None)
            continue
        total = [total[0] + spends[0], total[1] + spends[1]]
        out.append({"epsilon": spends[0], "delta": spends[1], "cumulative_epsilon": total[0],
                    "cumulative_delta": total[1]})
    return out

