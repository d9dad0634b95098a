"""The release step: anonymize the staged Adult sample and publish ``published.adult_k5``.

``anonymizer.dbt.release`` runs the spec ``releases/adult_k5.yml`` (relative to the
project's folder) on dbt's DuckDB database, its source ``stg_adult`` read from the schema
dbt builds this model in. The anonymizer checks every privacy model of the spec in SQL and
only then publishes, in one transaction: a snapshot ``_anon_releases."adult_k5__v<N>"``,
the view ``published.adult_k5`` over it, and an audit row in ``_anon_releases._audit``. A
failed check fails this model (dbt skips everything downstream, and its summary names the
privacy model and the achieved figure) and leaves what was published before as it was.
Re-running with the same spec and data publishes nothing new.

The model's table is the audit row of the version now published plus the spec's k, QIs and
l-diversity models (column ``privacy``), which the anonymizer package's tests
``release_k_anonymous`` and ``release_l_diverse`` read (see ``_releases.yml``).
"""

import anonymizer.dbt


def model(dbt, session):
    dbt.ref("stg_adult")  # the lineage edge stg_adult -> adult_release (the spec's source)
    return anonymizer.dbt.release(dbt, session, "releases/adult_k5.yml")
