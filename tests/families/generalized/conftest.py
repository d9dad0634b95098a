"""Fixtures for the algorithm tests: a fresh in-memory DuckDB per test and a helper that
turns a small hand-made table and a spec into a prepared plan."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from anonymizer.engine.session import Engine
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec

ADULT = Path(__file__).resolve().parents[3] / "anonymizer" / "data" / "arx_adult"


@pytest.fixture
def engine():
    con = duckdb.connect()
    eng = Engine(con)
    yield eng
    eng.close_work()
    con.close()


def _make_plan(engine: Engine, data: dict[str, list], columns: dict, models: list, algorithm=None, **extra):
    """Create table ``t`` from ``data`` (column -> values) and prepare a release of it
    (in a fresh work schema: an earlier plan of the same engine is dropped)."""
    engine.close_work()
    frame = pd.DataFrame(data)
    engine.con.register("frame", frame)
    engine.execute('CREATE OR REPLACE TABLE "t" AS SELECT * FROM frame')
    engine.con.unregister("frame")
    spec = {"release": "r", "source": {"table": "t"}, "columns": columns, "models": models,
            "default_role": "insensitive", **extra}
    if algorithm is not None:
        spec["algorithm"] = algorithm
    return prepare(engine, load_spec(spec))


def _classes(engine: Engine, plan, result) -> list[dict]:
    """The classes of an algorithm result: size and, per QI name, the (lo, hi) values."""
    los = ", ".join(f"any_value(d{i}l.value)::VARCHAR, any_value(d{i}h.value)::VARCHAR"
                    for i in range(len(plan.qis)))
    joins = " ".join(f"JOIN {q.dom} d{i}l ON d{i}l.code = a.__lo{i} JOIN {q.dom} d{i}h ON d{i}h.code = a.__hi{i}"
                     for i, q in enumerate(plan.qis))
    rows = engine.execute(f"SELECT a.__cid, count(*), {los} FROM {result.assign} a {joins} "
                          f"GROUP BY a.__cid ORDER BY a.__cid").fetchall()
    out = []
    for row in rows:
        c = {"size": row[1]}
        for i, q in enumerate(plan.qis):
            c[q.name] = (row[2 + 2 * i], row[3 + 2 * i])
        out.append(c)
    return out


@pytest.fixture
def adult_columns():
    qis = ["age", "sex", "race", "education", "marital-status", "native-country", "workclass"]
    cols = {q: {"role": "quasi", "hierarchy": {"csv": str(ADULT / f"adult_hierarchy_{q}.csv")}} for q in qis}
    cols["occupation"] = "sensitive"
    return cols


@pytest.fixture
def adult_source():
    return {"path": str(ADULT / "adult.csv.gz"), "table": "adult", "delimiter": ";"}


@pytest.fixture
def make_plan():
    """``make_plan(engine, data, columns, models, algorithm=None, **spec_fields)`` -> Plan."""
    return _make_plan


@pytest.fixture
def classes():
    """``classes(engine, plan, result)`` -> per class ``{"size": n, <qi>: (lo, hi)}``."""
    return _classes


@pytest.fixture
def prepare_spec():
    """``prepare_spec(engine, spec_dict)`` -> Plan."""
    return lambda engine, spec: prepare(engine, load_spec(spec))
