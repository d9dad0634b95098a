"""A dbt-duckdb plugin: the anonymizer's SQL macro library on dbt's connection, and the
Python side of the dbt package's ``anonymized`` materialization.

With it, every model, test and ``dbt show`` of a dbt-duckdb project can call the macros of
``sql/anonymizer_macros.sql`` (``anon_classes``, ``anon_l_classes``, ...), and
generic tests of the dbt package ``anonymizer`` (``integrations/dbt``, such as
``anonymizer.k_anonymous``) are plain SQL over them. A model with
``materialized='anonymized'`` runs its release through this plugin (:meth:`Plugin.store`).

Use it in ``profiles.yml`` with dbt-duckdb's ``plugins:`` setting::

    my_project:
      target: dev
      outputs:
        dev:
          type: duckdb
          path: target/warehouse.duckdb
          plugins:
            - module: anonymizer.dbt_plugin

The package must be importable by the Python that runs dbt (``pip install -e .`` in the
same environment as dbt-core and dbt-duckdb). dbt-duckdb calls
:meth:`Plugin.configure_connection` when it opens the database; the macros are created
with ``CREATE OR REPLACE MACRO`` (see :func:`anonymizer.macros.install`), so they are stored
in the database file and replaced by the shipped version on every dbt invocation. Cursors
that dbt opens later share the database's catalog and see them.

With :mod:`anonymizer.dbt` (the release step, which imports dbt inside its function), this is
the only module of the package that imports dbt; nothing else needs dbt installed.
"""

from __future__ import annotations

from pathlib import Path

from dbt.adapters.duckdb.plugins import BasePlugin
from dbt.adapters.duckdb.utils import TargetConfig
from dbt_common.exceptions import DbtRuntimeError

from anonymizer import macros
from anonymizer.dbt import run_model
from anonymizer.errors import AnonymizerError


class Plugin(BasePlugin):
    """Installs the macro library, and runs anonymized models (no configuration; ``config:``
    in the profile is ignored)."""

    def configure_connection(self, conn) -> None:
        """Install the macros and keep ``conn``, dbt-duckdb's database connection (opened
        again, and passed here again, after dbt closed it), for :meth:`store`."""
        macros.install(conn)
        self.conn = conn

    def store(self, target_config: TargetConfig) -> None:
        """Run the release of an anonymized model (:func:`anonymizer.dbt.run_model`).

        dbt-duckdb calls this for the materialization's ``adapter.store_relation(...)``,
        after dbt committed the model's rows: ``target_config.relation`` is the model's
        relation (where the view is published), ``config`` holds ``spec`` (the model's
        config) and ``source`` (the table of the model's rows, in the model's schema).

        Raises:
            DbtRuntimeError: the release failed (verification, whose summary is the message,
                or the spec or data); dbt fails the model with the message.
        """
        from dbt.flags import get_flags  # set by the dbt command running the materialization

        relation, config = target_config.relation, target_config.config
        assert relation.schema and relation.identifier   # a model's relation has both
        current = self.conn.execute("SELECT current_database()").fetchone()[0]
        if relation.database not in (None, current):
            raise DbtRuntimeError(f"anonymized model {relation}: it must be built in dbt's default database "
                                  f"{current}, not {relation.database}")
        try:
            run_model(self.conn, config["spec"], Path(get_flags().PROJECT_DIR or "."), relation.schema,
                      config["source"], relation.identifier)
        except AnonymizerError as exc:
            raise DbtRuntimeError(f"{type(exc).__name__}: {exc}") from exc
