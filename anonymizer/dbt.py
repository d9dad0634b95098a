"""Releases as dbt steps (dbt-duckdb): the ``anonymized`` materialization, and the release
step as a dbt Python model.

**The materialization** (``integrations/dbt/macros/materializations/anonymized.sql``, in the
dbt package ``anonymizer``) makes a model's SQL the source of a release::

    -- models/releases/adult_release.sql
    {{ config(materialized='anonymized', spec='releases/adult_k5.yml') }}
    select * from {{ ref('stg_adult') }}

It stores the model's rows as a table next to the model, commits, and has the profile's
plugin (:mod:`anonymizer.dbt_plugin`) call :func:`run_model`, which runs the spec on that
table with :func:`anonymizer.anonymize` (every privacy model verified in SQL before anything
is published), publishes the release's view at the model's own relation (so ``ref()`` on the
model reads the published view), records what the spec declares in the table
``_anon_dbt_releases`` of the model's schema (:func:`privacy`, which the package's generic
tests ``release_k_anonymous`` and ``release_l_diverse`` read), and drops the table of rows.

**The Python model** (the earlier form, still supported) calls :func:`release`::

    # models/releases/adult_release.py
    import anonymizer.dbt

    def model(dbt, session):
        dbt.ref("stg_adult")   # the lineage edge to the spec's source (dbt reads refs from this file)
        return anonymizer.dbt.release(dbt, session, "releases/adult_k5.yml")

:func:`release` runs the spec on dbt's database and returns the model's table: the audit
row of the version now published plus a JSON column ``privacy`` (the same :func:`privacy`),
which the same generic tests read. The spec's ``source`` and ``output`` say where the rows
are and where the view goes.

A release that fails verification fails the dbt model with a :class:`ReleaseFailed`
summary (which privacy model, the achieved figure, how many classes fail, which version
stays published), and nothing published changes. The materialization's summary is dbt's
``Runtime Error`` message itself. For the Python model, dbt-duckdb reports an exception as
``Python model failed:`` followed by ``traceback.format_exception`` of it; the chain is
printed cause first, and a cause that was never raised has no traceback, so the line right
after dbt's header is the summary.

The package imports dbt only inside :func:`release`, which dbt itself calls.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import yaml

from anonymizer.api import anonymize
from anonymizer.engine.names import in_catalog, table
from anonymizer.engine.session import Engine
from anonymizer.errors import AnonymizerError, PrivacyCheckFailed, SpecError
from anonymizer.release.publish import audit_table, latest
from anonymizer.release.run import ReleaseResult
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec

#: the table, in the schema of each anonymized model, of what each model's spec declares
#: (one row per model: view_name, release, version, privacy), which the generic tests read
PRIVACY_TABLE = "_anon_dbt_releases"


class ReleaseFailed(AnonymizerError):
    """A release's summary in dbt: the release, the privacy model that does not hold and by
    how much, and what stays published. :func:`run_model` raises it (the plugin makes it the
    failed model's message); :func:`release` does not raise it itself: it is the
    ``__cause__`` of the :class:`~anonymizer.errors.PrivacyCheckFailed` that the Python model
    re-raises, so that ``traceback.format_exception`` prints it first and without a
    traceback."""

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


def model_spec(setting: str | Mapping[str, Any], project: Path, schema: str, source: str, view: str) -> ReleaseSpec:
    """The spec of an anonymized model: ``setting`` is its ``spec`` config, a YAML file's path
    relative to the dbt project's folder ``project`` or the spec itself as a mapping (its
    hierarchy files then relative to ``project``). The model's rows (the table ``source``)
    are the release's source, and its view is the model's relation ``schema.view``, so a spec
    that names a ``source``, or an ``output`` view, schema or database, is refused: the
    model's SQL, and its dbt schema and alias, say those."""
    if isinstance(setting, Mapping):
        data, base = dict(setting), project
    elif isinstance(setting, str):
        path = project / setting
        try:
            data = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise SpecError("spec", f"cannot read the release spec {path}: {exc}") from exc
        base = path.parent
    else:
        raise SpecError("spec", "must name a YAML release spec (a path relative to the dbt project) or be one",
                        setting)
    if not isinstance(data, dict):
        raise SpecError("spec", "must be a mapping of fields (release, columns, models, ...)", data)
    output = data.get("output") or {}
    clash = ["source"] * ("source" in data) + [f"output.{key}" for key in ("view", "schema", "database")
                                               if key in output]
    if clash:
        raise SpecError(clash[0], "an anonymized model's source is its SQL and its view is the model's own relation "
                        f"{schema}.{view}: remove {' and '.join(clash)} from the spec (set the model's schema or "
                        "alias to publish elsewhere)")
    data["source"] = {"table": source, "schema": schema}
    data["output"] = {**output, "view": view, "schema": schema}
    return load_spec(data, base_dir=base)


def run_model(con, setting: str | Mapping[str, Any], project: Path, schema: str, source: str,
              view: str) -> ReleaseResult:
    """Run an anonymized model's release (:func:`model_spec`) on a cursor of its own of the
    DuckDB connection ``con``: publish the view ``schema.view`` from the model's rows in the
    table ``schema.source``, record the spec's :func:`privacy` in the schema's
    :data:`PRIVACY_TABLE` (row ``view``), and drop ``source`` whatever happens (the
    model's rows are raw data: only what a verified release publishes stays).

    Raises:
        ReleaseFailed: verification failed; nothing was published.
        AnonymizerError: the spec or the data is invalid (a :class:`SpecError` names the field).
    """
    cur = con.cursor()
    try:
        spec = model_spec(setting, project, schema, source, view)
        try:
            result = anonymize(spec, con=cur)
        except PrivacyCheckFailed as exc:
            raise ReleaseFailed(spec, exc, latest(Engine(cur), spec.target)) from exc
        engine, privacy_table = Engine(cur), table(schema, PRIVACY_TABLE)
        engine.run("dbt/privacy_table.sql.j2", privacy=privacy_table)
        engine.run("dbt/privacy_row.sql.j2", {"view": view, "release": result.release, "version": result.version,
                                              "privacy": json.dumps(privacy(spec))}, privacy=privacy_table)
        return result
    finally:
        cur.execute(f"DROP TABLE IF EXISTS {table(schema, source)}")
        cur.close()
