"""The one place that renders templates, quotes identifiers and executes SQL.

- :mod:`.rendering`: the jinja environment over ``templates/`` and :func:`render`;
- :mod:`.session`: :class:`Engine` (execute, work schema, progress, statement log);
- :mod:`.settings`: a run's DuckDB settings and how they are put back;
- :mod:`.spark` and :mod:`.transpile`: the same on a ``SparkSession``, each statement
  transpiled from DuckDB's dialect; :mod:`.spark_session` starts the session,
  :mod:`.spark_driver` runs work over cells on its driver;
- :mod:`.names`: :func:`ident` and :func:`table`, the one quoting point (sqlglot), and
  :func:`relation`, how a name or a query stands after ``FROM`` in a template;
- :mod:`.database`: opening and attaching DuckDB files with errors that say what is wrong;
- :mod:`.capabilities`: what each engine can do (``engine.capabilities``), which callers ask
  instead of comparing engine names (no module outside this package compares one).
"""

from anonymizer.engine.capabilities import Capabilities
from anonymizer.engine.names import ident, in_catalog, relation, table
from anonymizer.engine.database import drop_stale_work
from anonymizer.engine.session import Engine, StatementLog
from anonymizer.engine.settings import Settings
from anonymizer.engine.rendering import list_templates, render

__all__ = ["Capabilities", "Engine", "Settings", "StatementLog", "drop_stale_work", "ident", "in_catalog",
           "list_templates", "relation", "render", "table"]
