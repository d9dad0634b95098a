"""The demo: the bundled UCI Adult table, anonymized and published in a DuckDB file."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import duckdb

from anonymizer.engine.session import Engine
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec
from anonymizer.engine.names import ident

DATA = resources.files("anonymizer") / "data"


def data_path(name: str) -> Path:
    """Path of a bundled data file (see ``anonymizer/data/PROVENANCE.md``)."""
    return Path(str(DATA / name))


def load_adult(con: duckdb.DuckDBPyConnection, name: str = "adult") -> str:
    """Load the bundled UCI Adult data (32,561 rows) into table ``name``; return it quoted."""
    target = ident(name)
    Engine(con).run("demo/load_adult.sql.j2", {"path": str(data_path("adult.data.gz"))}, target=target)
    return target


def load_adult_on_spark(spark, name: str = "adult") -> str:
    """:func:`load_adult` into the Spark table ``name`` (replaced)."""
    from anonymizer.engine.spark import copy_from_duckdb
    con = duckdb.connect()
    try:
        return copy_from_duckdb(spark, con, load_adult(con, name), name)
    finally:
        con.close()


def demo_spec(k: int | None = None) -> ReleaseSpec:
    """The demo release spec, optionally with another k."""
    spec = load_spec(data_path("demo.yml"))
    if k is None:
        return spec
    raw = dict(spec.raw)
    raw["models"] = [dict(m, k=k) if m.get("type") == "k-anonymity" else m for m in raw["models"]]
    return load_spec(raw, base_dir=data_path("."))
