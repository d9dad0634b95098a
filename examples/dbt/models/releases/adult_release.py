"""The release step: anonymize the staged Adult sample and publish ``published.adult_k5``.

It reads the release spec named by the model's ``release_spec`` config (set in
``_releases.yml``: ``releases/adult_k5.yml``, relative to the dbt project's folder), takes
its source from the staging model ``stg_adult`` (in the schema dbt builds this model in),
and runs the anonymizer on dbt's DuckDB database. The anonymizer checks every privacy
model of the spec in SQL and only then publishes, in one transaction: a snapshot
``_anon_releases."adult_k5__v<N>"``, the view ``published.adult_k5`` over it, and an audit
row in ``_anon_releases._audit``. A failed check fails this model (dbt skips everything
downstream) and leaves what was published before as it was. Re-running with the same spec
and the same source data publishes nothing new (the same version stays).

The model's own table is the audit row of the version now published, so the release is a
node of dbt's lineage: downstream models read ``source('published', 'adult_k5')`` and
declare a ``depends_on`` comment naming ``ref('adult_release')`` (see models/marts/).
"""

from pathlib import Path


def model(dbt, session):
    dbt.config(materialized="table")

    import yaml
    from dbt.flags import get_flags  # dbt-duckdb runs Python models inside dbt's process

    from anonymizer import anonymize, load_spec
    from anonymizer.release.publish import audit_table

    dbt.ref("stg_adult")  # the lineage edge stg_adult -> adult_release (the spec's source)

    spec_path = Path(get_flags().PROJECT_DIR or ".") / dbt.config.get("release_spec")
    data = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    data["source"].setdefault("schema", dbt.this.schema)
    spec = load_spec(data, base_dir=spec_path.parent)  # hierarchy files are relative to the spec

    # The release runs on its own cursor (a second connection to the same database), so it
    # commits its publication itself whatever transaction dbt holds on `session` (dbt-duckdb
    # opens none for Python models, but a pre-hook does), and none of its statements can
    # abort dbt's transaction.
    con = session.cursor()
    try:
        result = anonymize(spec, con=con)
        audit_row = con.execute(
            f"SELECT * FROM {audit_table(spec)} WHERE release = $release AND version = $version",
            {"release": result.release, "version": result.version}).df()
    finally:
        con.close()
    # Returned as a relation of dbt's own connection (from the DataFrame read above), which
    # dbt-duckdb materializes inside its transaction, if one is open.
    return session.from_df(audit_row)
