"""Which engine a connection gets: :class:`~anonymizer.engine.session.Engine` for DuckDB, the
default, or :class:`~anonymizer.engine.spark.SparkEngine` for a ``SparkSession``. Callers ask
the engine's :attr:`~anonymizer.engine.session.Engine.capabilities` what it can do after."""

from __future__ import annotations

from typing import Any

from anonymizer.engine.names import table
from anonymizer.engine.session import Engine


def is_spark(con: Any) -> bool:
    """Whether ``con`` is a ``SparkSession`` (told by its class, so pyspark loads only for it)."""
    return type(con).__module__.startswith("pyspark.")


def frame_session(data: Any) -> Any:
    """The ``SparkSession`` of ``data`` when it is a PySpark DataFrame, else ``None`` (a pandas
    DataFrame, or nothing)."""
    return data.sparkSession if data is not None and is_spark(data) else None


def relation_frame(con: Any, *parts: str) -> Any:
    """The relation ``parts`` (``schema``, ``name``) of ``con`` as a DataFrame of it: on a
    ``SparkSession`` a PySpark DataFrame (lazy), on DuckDB a relation (``.df()``: pandas)."""
    if is_spark(con):
        from anonymizer.engine.spark import spark_table
        return con.table(spark_table(*parts))
    return con.sql(f"SELECT * FROM {table(*parts)}")


def engine_for(con: Any, **options: Any) -> Engine:
    """The engine for ``con`` with ``options`` (:class:`Engine`'s fields); an engine without
    options is itself (a release measuring on the engine it runs on)."""
    if isinstance(con, Engine) and not options:
        return con
    if is_spark(con):
        from anonymizer.engine.spark import SparkEngine
        return SparkEngine(con, **options)
    return Engine(con, **options)
