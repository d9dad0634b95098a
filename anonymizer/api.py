"""The Python entry point: run a release spec on a DuckDB connection or a pandas DataFrame.

Example:
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [21, 22, 23, 24, 41, 42, 43, 44],
    ...                    "disease": ["flu", "cold", "flu", "hiv", "cold", "flu", "hiv", "flu"]})
    >>> r = anonymize({"release": "toy", "source": {"table": "patients"},
    ...                "columns": {"age": "quasi", "disease": "sensitive"},
    ...                "models": [{"type": "k-anonymity", "k": 4}]}, data=df)
    >>> r.view, r.rows_out, r.measures["k"]
    ('published.toy', 8, 4)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import duckdb

from anonymizer.engine.backend import frame_session
from anonymizer.errors import SpecError
from anonymizer.release.run import ReleaseResult, run_release
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec


def anonymize(spec: ReleaseSpec | Mapping[str, Any] | str | Path, con: duckdb.DuckDBPyConnection | None = None,
              *, spark: Any = None, data: Any = None,
              progress: Callable[[str], None] | None = None, force: bool = False,
              publish: bool = True) -> ReleaseResult:
    """Run ``spec`` (a :class:`ReleaseSpec`, a dict, or a YAML path) and publish the result.

    Args:
        con: the DuckDB connection holding the source; a new in-memory one if omitted.
        spark: a ``SparkSession`` to run on instead (:mod:`anonymizer.engine.spark`): the
            source is a table of its catalog (or the spec's ``source.path``), the release is
            published there. Without ``con`` or ``spark``, a spec saying ``engine: {name:
            spark, ...}`` starts (or takes the running) session as it says.
        data: a pandas or PySpark DataFrame to use as the source instead of the spec's
            ``source``; it is read in the run's work database and never written to ``con``
            (only the release is). A PySpark DataFrame runs the release on its session
            (``spark`` may be left out), its rows staged by the executors.
        publish: ``False``: a dry run, which verifies and measures the release and publishes
            nothing (``result.dry_run``; ``result.version`` is ``None``).
    Returns:
        The :class:`ReleaseResult`; ``result.con`` is the connection, and
        ``result.frame()`` the published view as a DataFrame of it (PySpark's on Spark). With
        ``output.database`` the release goes to that file instead: it is attached to ``con``
        for the run and detached afterwards (unless ``con`` had it attached already), so
        read the view from a connection to ``result.database``.
    """
    for name, flag in (("publish", publish), ("force", force)):
        if not isinstance(flag, bool):   # publish="no" would publish: a truthy string is not False
            raise SpecError(name, "must be True or False", flag)
    parsed = spec if isinstance(spec, ReleaseSpec) else load_spec(spec)
    if con is not None and spark is not None:
        raise SpecError("spark", "give a DuckDB connection (con) or a SparkSession (spark), not both")
    session = frame_session(data)
    if session is not None:   # a PySpark DataFrame: the release runs on its session
        if con is not None:
            raise SpecError("data", "is a Spark DataFrame: its release runs on Spark (give spark=, not con=)")
        if spark is not None and spark is not session:
            raise SpecError("data", "is a DataFrame of another Spark session than spark=")
        spark = session
    if spark is None and con is None and parsed.backend.spark:
        spark = parsed.backend.spark_session()
    con = spark if spark is not None else con if con is not None else duckdb.connect()
    result = run_release(parsed, con, progress=progress, force=force, data=data, dry_run=not publish)
    result.con = con  # type: ignore[attr-defined]
    return result
