"""A dbt-duckdb plugin that installs the anonymizer's SQL macro library on dbt's connection.

With it, every model, test and ``dbt show`` of a dbt-duckdb project can call the macros of
``sql/anonymizer_macros.sql`` (``anon_classes``, ``anon_l_classes``, ...), and
generic tests of the dbt package ``anonymizer`` (``integrations/dbt``, such as
``anonymizer.k_anonymous``) are plain SQL over them.

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
:meth:`Plugin.configure_connection` once, when it opens the database; the macros are created
with ``CREATE OR REPLACE MACRO`` (see :func:`anonymizer.macros.install`), so they are stored
in the database file and replaced by the shipped version on every dbt invocation. Cursors
that dbt opens later share the database's catalog and see them.

With :mod:`anonymizer.dbt` (the release step, which imports dbt inside its function), this is
the only module of the package that imports dbt; nothing else needs dbt installed.
"""

from __future__ import annotations

from dbt.adapters.duckdb.plugins import BasePlugin

from anonymizer import macros


class Plugin(BasePlugin):
    """Installs the macro library (no configuration; ``config:`` in the profile is ignored)."""

    def configure_connection(self, conn) -> None:
        macros.install(conn)
