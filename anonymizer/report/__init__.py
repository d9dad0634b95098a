"""The HTML report of a release (``anonymizer report RELEASE --html out.html``) or of a dry
run (``anonymizer run SPEC --dry-run --html out.html``): one self-contained page with the
spec, the models and their achieved figures, the risk profile, the class sizes, the
information loss, every QI's and sensitive attribute's distribution before and after, the
suppressed rows, the timings and the version history.

:mod:`.subject` finds what the page is about, :mod:`.gather` computes its figures in SQL,
:mod:`.plots` draws them, :mod:`.page` lays the page out.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.report.gather import gather
from anonymizer.spec.text import without_comments
from anonymizer.report.page import page, versions
from anonymizer.report.subject import candidate_view, published_view, release_spec, source_state

if TYPE_CHECKING:
    import duckdb


#: who a page is for: the data's custodian (the source's own distributions beside the
#: release's; keep it with the source) or a recipient of the release (nothing of the source
#: but totals: sdcMicro's ``report(internal = FALSE)``)
AUDIENCES = ("custodian", "recipient")


def release_page(on: "Engine | duckdb.DuckDBPyConnection", history: list[dict[str, Any]], row: dict[str, Any],
                 spec_path: str | None = None, population: dict[str, Any] | None = None, audience: str = "custodian",
                 source_catalog: str | None = None) -> str:
    """The page of the published version whose audit row is ``row`` (``history``: every
    audit row of its release), read through the engine ``on`` (or a DuckDB connection; read-only
    is enough), for ``audience``
    (:data:`AUDIENCES`); ``population`` (``{"population_size": N}`` or
    ``{"sampling_fraction": f}``) adds the population uniqueness estimates
    (:mod:`anonymizer.metrics.population`); ``source_catalog``: an attached database holding
    the source, when the release was written apart from it.

    Raises:
        SpecError: no spec to read the roles from (see :func:`.subject.release_spec`).
    """
    engine = on if isinstance(on, Engine) else Engine(on)
    spec, text, notes = release_spec(row, spec_path)
    if audience == "recipient":
        text = without_comments(text)
        source, said = None, ("For a recipient: this page shows the release and totals only; no distribution, "
                              "value count or other figure of the source table is on it.")
    else:
        source, said = source_state(engine, spec, row, source_catalog)
    released = published_view(engine, row)
    try:
        gathered = gather(engine, released, source, [c.name for c in spec.quasi], [c.name for c in spec.sensitive],
                          population, [c.name for c in spec.by_role("insensitive")])
    finally:
        engine.execute(f"DROP VIEW IF EXISTS {released}", template="<report view>")
    header = {"release": row["release"], "version": row["version"], "view": row["view_name"],
              "snapshot": row["snapshot"], "when": str(row.get("published_at") or row["created_at"])[:19],
              "library_version": row.get("library_version") or "(not recorded)",
              "engine_version": row.get("engine_version") or "DuckDB (version not recorded)"}
    return page(dict(header, audience=audience), text, [said, *notes], row, gathered, history)


class DryRun:
    """What a dry run hands the report: called by :func:`anonymizer.release.run.run_release`
    (its ``inspect``) with the engine, the plan and the verified candidate before the run's
    work tables go, it gathers the page's figures from the candidate; :meth:`page` then lays
    the page out with the run's result."""

    def __init__(self, spec_text: str):
        self.spec_text, self.gathered, self.parameters = spec_text, None, {}

    def __call__(self, engine: Engine, plan, ready) -> None:
        self.parameters = {"suppression_limit": plan.suppression_limit, "nulls": plan.nulls}
        released = candidate_view(engine, ready.table, ready.parts, ready.join)
        try:
            self.gathered = gather(engine, released, plan.source, [q.column.name for q in plan.qis],
                                   [k.column.name for k in plan.sensitive], passed=[k.column.name for k in plan.passthrough])
        finally:
            engine.execute(f"DROP VIEW IF EXISTS {released}", template="<report view>")

    def page(self, result) -> str:
        """The page of the dry run whose result is ``result`` (a ReleaseResult)."""
        header = {"release": result.release, "version": None, "view": result.view, "snapshot": None,
                  "when": datetime.now().isoformat(sep=" ", timespec="seconds"), "audience": "custodian",
                  **versions()}
        row = {"release": result.release, "algorithm": result.algorithm.get("name"),
               "figures": {"models": result.models, "utility": result.utility}, "parameters": self.parameters,
               "rows_in": result.rows_in, "rows_out": result.rows_out, "suppressed": result.suppressed,
               "timings": result.timings}
        note = "Dry run: the figures are the verified candidate's; nothing was published."
        return page(header, self.spec_text, [note], row, self.gathered, [])


def write_page(path: str | Path, html: str, option: str = "--html") -> str:
    """Write the page ``html`` to ``path``; return the path written.

    Raises:
        SpecError: the path cannot be written (named by ``option``).
    """
    try:
        Path(path).write_text(html, encoding="utf-8")
    except OSError as exc:
        raise SpecError(option, f"cannot be written ({exc.strerror or exc})", str(path)) from None
    return str(path)
