"""The release step of a dbt-duckdb project, as a two-line dbt Python model.

A dbt Python model must live in the user's project, so the step is a model file there that
calls :func:`release`::

    # models/releases/adult_release.py
    import anonymizer.dbt

    def model(dbt, session):
        dbt.ref("stg_adult")   # the lineage edge to the spec's source (dbt reads refs from this file)
        return anonymizer.dbt.release(dbt, session, "releases/adult_k5.yml")

:func:`release` runs the spec on dbt's database with :func:`anonymizer.anonymize` (which
verifies every privacy model in SQL before it publishes) and returns the model's table: the
audit row of the version now published plus a JSON column ``privacy`` holding what the
spec declares (the view, the quasi-identifiers, the sensitive attributes, k, and every
l-diversity model). The dbt package ``anonymizer`` (``integrations/dbt/`` in the repository)
has generic tests, ``release_k_anonymous`` and ``release_l_diverse``, that read that column,
so k and the quasi-identifiers are written once, in the spec.

A release that fails verification raises :class:`ReleaseFailed`. dbt-duckdb reports an
exception of a Python model as ``Python model failed:`` followed by
``traceback.format_exception`` of it; the chain is printed cause first, and a cause that was
never raised has no traceback, so the line right after dbt's header is the summary (which
privacy model, the achieved figure, how many classes fail, which version stays published).

The package imports dbt only inside :func:`release`, which dbt itself calls.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from anonymizer.api import anonymize
from anonymizer.engine.names import in_catalog
from anonymizer.engine.session import Engine
from anonymizer.errors import AnonymizerError, PrivacyCheckFailed
from anonymizer.release.publish import audit_table, latest
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec


class ReleaseFailed(AnonymizerError):
    """A release step's summary: the release, the privacy model that does not hold and by
    how much, and what stays published. Not raised itself: it is the ``__cause__`` of the
    :class:`~anonymizer.errors.PrivacyCheckFailed` that the step re-raises, so that
    ``traceback.format_exception`` prints it first and without a traceback."""

    def __init__(self, spec: ReleaseSpec, failed: PrivacyCheckFailed, published: dict | None):
        view = f"{spec.output.schema}.{spec.output.view}"
        figure = failed.reason or (failed.achieved if isinstance(failed.achieved, str)
                                   else f"achieved {failed.achieved}")
        back = published and published.get("rolled_back_to")
        stays = (f"{view} keeps version {published['version']}"
                 + (f" (a rollback to v{back})" if back else "") if published
                 else f"{view} does not exist yet")
        classes = f", {failed.classes} equivalence class(es) fail" if failed.classes else ""
        super().__init__(f"release {spec.release}: {failed.model} does not hold: {figure}{classes}; "
                         f"nothing was published; {stays}")
        self.model, self.achieved, self.classes, self.view = failed.model, failed.achieved, failed.classes, view


def privacy(spec: ReleaseSpec) -> dict:
    """What the spec declares that a test of the published view needs: the view (quoted,
    for DuckDB's ``query_table``), the QI and sensitive column names, k (the largest any
    model demands, :meth:`ReleaseSpec.k`) and each l-diversity model (Machanavajjhala et al.
    2007: kind ``distinct``, ``entropy`` or ``recursive``, the attribute, l, and c)."""
    diversity = [{"kind": m.spec_type.split("-")[0], "sensitive": m.attribute, "l": m.l, "c": getattr(m, "c", None)}
                 for m in spec.models
                 if m.spec_type in ("distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity")]
    return {"view": in_catalog(spec.output.catalog, spec.output.schema, spec.output.view),
            "quasi_identifiers": [c.name for c in spec.quasi], "sensitive": [c.name for c in spec.sensitive],
            "k": spec.k, "l_diversity": diversity}


def release(dbt, session, spec_path: str | Path):
    """Run the release spec ``spec_path`` (relative to the dbt project's folder) on dbt's
    DuckDB database and return the model's table (a relation of ``session``).

    A spec whose source names a table without a schema reads it from the schema dbt builds
    this model in (where the source's staging model is). The release runs on its own cursor,
    so its publication is its own transaction whatever dbt holds open on ``session``.

    Raises:
        PrivacyCheckFailed: verification failed; its cause, a :class:`ReleaseFailed`, is the
            summary dbt prints first. Nothing was published.
    """
    import json

    from dbt.flags import get_flags  # dbt-duckdb runs Python models inside dbt's process

    path = Path(get_flags().PROJECT_DIR or ".") / spec_path
    spec = load_spec(path)
    if spec.source.schema is None and spec.source.location is None:
        spec = replace(spec, source=replace(spec.source, schema=dbt.this.schema))
    con = session.cursor()
    try:
        try:
            result = anonymize(spec, con=con)
        except PrivacyCheckFailed as exc:
            # the library's frames are no news for a check that failed: the step's frames only
            raise exc.with_traceback(None) from ReleaseFailed(spec, exc, latest(Engine(con), spec.target))
        row = Engine(con).run("dbt/release_row.sql.j2", {
            "release": result.release, "version": result.version, "privacy": json.dumps(privacy(spec))},
            audit=audit_table(spec.target)).df()
    finally:
        con.close()
    # a relation of dbt's own connection, which dbt-duckdb materializes in its transaction, if any
    return session.from_df(row)
