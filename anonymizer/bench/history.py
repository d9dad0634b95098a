"""Benchmark of nightly releases on a changing table (``anonymizer bench history``, issue 36).

A table of ``rows`` people (:mod:`anonymizer.datasets.churn`: age, zip, sex as QIs, a
diagnosis sensitive) is released ``versions`` times; between two versions ``churn`` of the
people leave, as many join and ``change`` of those who stay get another diagnosis. Every
night the same table is released twice on the same connection, under the same models
(k-anonymity and distinct l-diversity, Mondrian):

- ``invariant``: ``history: {guarantee: invariant, person: pid}``, m-invariance and the
  cross-version gate (:mod:`anonymizer.families.generalized.invariance`);
- ``independent``: each version on its own, a full re-run of Mondrian.

Each night yields both runs' seconds, the plain ``GROUP BY`` scan of the QIs (the
yardstick) and the ratios to it, and the loss of each: NCP per cell, counterfeit rows,
suppressed rows, classes. The invariant release also reports what the gate measured of the
independent one (people isolated by a difference, its audit's ``figures.combination``), so
the price of the guarantee and what it buys stand side by side.

Example:
    >>> runs = list(run_history_bench(3000, versions=2))
    >>> [r["version"] for r in runs], runs[1]["invariant"]["isolated"]
    ([1, 2], 0)
"""

from __future__ import annotations

import json
import time
from typing import Iterator

import duckdb

from anonymizer.bench.harness import PEAK_COLUMN, figure, format_table, memory, scan_time
from anonymizer.datasets.churn import churn as night, people
from anonymizer.engine.session import Engine

QIS = ("age", "zip", "sex")


def spec(guarantee: str, k: int, l: int) -> dict:
    return {"release": f"nightly_{guarantee}", "source": {"table": "people"},
            "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"},
            "models": [{"type": "k-anonymity", "k": k}, {"type": "distinct-l-diversity", "l": l,
                                                          "sensitive": "diagnosis"}],
            "history": {"guarantee": guarantee, "person": "pid"}}


def run_history_bench(rows: int, versions: int = 10, churn: float = 0.01, change: float = 0.005, k: int = 10,
                      l: int = 3) -> Iterator[dict]:
    """Yield one dict per version (module docstring): version, rows, scan_seconds, and per
    guarantee (``invariant``, ``independent``) seconds, ratio, ncp, counterfeits,
    suppressed, classes, isolated (people a difference with an earlier version isolates, as
    the gate measured), peak_mb."""
    from anonymizer.api import anonymize
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        engine = Engine(con)
        people(con, "people", rows)
        for version in range(1, versions + 1):
            if version > 1:
                night(con, "people", night=version, leave=churn, joiners=round(churn * rows), change=change)
            (size,) = con.execute("SELECT count(*) FROM people").fetchone()
            out = {"bench": "history", "version": version, "rows": size,
                   "scan_seconds": round(scan_time(engine, '"people"', QIS), 3)}
            for guarantee in ("invariant", "independent"):
                start = time.perf_counter()
                result = anonymize(spec(guarantee, k, l), con)
                seconds = time.perf_counter() - start
                gate = _audited(con, f"nightly_{guarantee}", version)
                out[guarantee] = {
                    "seconds": round(seconds, 3),
                    "ratio": round(seconds / out["scan_seconds"], 1) if out["scan_seconds"] else None,
                    "ncp": round(result.utility.get("ncp", 0.0), 4), "classes": result.classes,
                    "counterfeits": (result.algorithm.get("invariance") or {}).get("counterfeits", 0),
                    "suppressed": result.suppressed, "isolated": gate.get("isolated", 0),
                    "below_l": (gate.get("intersection") or {}).get("below", 0)}
            out["peak_mb"] = memory(engine)[0]
            yield out
    finally:
        con.close()


def _audited(con: duckdb.DuckDBPyConnection, release: str, version: int) -> dict:
    """The gate's figures of a version, from its audit row."""
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE release = $r AND version = $v",
                             {"r": release, "v": version}).fetchone()
    return json.loads(figures).get("combination") or {}


def format_history_bench(runs: list[dict]) -> str:
    """One line per version: both releases' seconds, ratio to the scan, and loss."""
    def side(g: str, key: str, fmt: str = ""):
        return lambda r: format(r[g][key], fmt)
    return format_table(runs, [
        ("version", 7, figure("version")), ("rows", 9, figure("rows")), ("scan s", 7, figure("scan_seconds", ".3f")),
        ("inv s", 7, side("invariant", "seconds", ".2f")), ("inv x", 6, side("invariant", "ratio")),
        ("ind s", 7, side("independent", "seconds", ".2f")), ("ind x", 6, side("independent", "ratio")),
        ("inv NCP", 8, side("invariant", "ncp", ".4f")), ("ind NCP", 8, side("independent", "ncp", ".4f")),
        ("fakes", 7, side("invariant", "counterfeits")), ("inv sup", 7, side("invariant", "suppressed")),
        ("inv iso", 7, side("invariant", "isolated")), ("ind iso", 7, side("independent", "isolated")),
        ("ind <l", 7, side("independent", "below_l")), PEAK_COLUMN])
