"""Which engine a release runs on, as the spec's ``engine`` field or the command line says:
DuckDB (the default, embedded) or Apache Spark (:mod:`anonymizer.engine.spark`).

In a spec::

    engine: {name: spark, master: "local[2]", warehouse: spark-warehouse,
             conf: {spark.driver.memory: 8g}}
    engine: {name: spark, remote: "sc://spark.example.com:15002"}   # a Spark Connect server

On the command line: ``--engine spark --spark-master URL --spark-conf KEY=VALUE
--spark-warehouse DIR`` or ``--spark-remote sc://HOST:PORT`` (they win over the spec's; as in
pyspark, ``SPARK_REMOTE`` in the environment names a Connect server too). ``warehouse`` keeps a persistent catalog
(Hive metastore in Derby, tables as Parquet files) in that folder, so a release published
by one command is read by the next; a cluster master brings its own catalog (leave it out).
Where the engine runs never changes what a release publishes: it is not part of the
spec's hash.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

#: the engines a release can run on
ENGINES = ("duckdb", "spark")
#: each engine's settings in the spec's ``engine`` field, beside ``name``
SETTINGS = {"duckdb": frozenset({"memory_limit", "threads", "temp_directory"}),
            "spark": frozenset({"master", "conf", "warehouse", "remote"})}
#: how an error names each engine, and what it adds when a spec gives another engine's setting
SHOWN = {"duckdb": "DuckDB", "spark": "Spark"}
OTHERS_SETTING = {"duckdb": " (add name: spark)",
                  "spark": " (give Spark's own as engine.conf, e.g. spark.driver.memory)"}
#: where a local Spark keeps its catalog when nothing says (next to ``anonymizer.duckdb``)
DEFAULT_WAREHOUSE = "anonymizer-spark"


@dataclass(frozen=True)
class EngineChoice:
    """The engine (``name``) and, for Spark, its ``master`` URL (``None``: what
    ``spark-submit`` or ``spark-defaults.conf`` says, else ``local[*]``), extra ``conf``
    (pairs, over Spark's own configuration) and ``warehouse`` folder (``None``:
    :data:`DEFAULT_WAREHOUSE` on a local master whose catalog nothing configured, the
    configured or the cluster's own catalog otherwise); or ``remote``, the ``sc://`` URL of a
    Spark Connect server, whose master and catalog are its own."""

    name: str = "duckdb"
    master: str | None = None
    conf: tuple[tuple[str, str], ...] = ()
    warehouse: str | None = None
    remote: str | None = None

    @property
    def spark(self) -> bool:
        return self.name == "spark"

    def spark_session(self):
        """A ``SparkSession`` as this choice says (started, or the running one)."""
        from anonymizer.engine.spark_session import session
        return session(self.master, dict(self.conf), self.warehouse, default_warehouse=DEFAULT_WAREHOUSE,
                       remote=self.remote)


@contextmanager
def connect(choice: EngineChoice, db: str | None = None, *, read_only: bool = False,
            must_exist: bool = False) -> Iterator[Any]:
    """The connection a command works on: the DuckDB database ``db`` (opened as
    :func:`~anonymizer.engine.database.open_database` does), or a Spark session, stopped
    at the end."""
    if not choice.spark:
        from anonymizer.engine.database import open_database
        with open_database(db, read_only=read_only, must_exist=must_exist, label="--db") as con:
            yield con
        return
    spark = choice.spark_session()
    try:
        yield spark
    finally:
        spark.stop()
