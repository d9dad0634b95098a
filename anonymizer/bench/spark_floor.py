"""The floor of the Spark bench's release (``anonymizer bench spark --floor``): the least work
any Mondrian release of the bench must do, timed on both engines with the same SQL, and what
it sums to with the release's own rounds.

The essential operations, each a template of ``templates/bench/floor/`` run ``repeat`` times
(the median kept), in the work database of the engine (on DuckDB in memory):

- ``collapse``: the rows to cells, one aggregate over every row (paper 000, Alg. 3 line 4);
- per round, over all the cells: ``hist`` (rows per partition, QI, value and sensitive value,
  Alg. 3 lines 11-12), ``median`` (each partition's bounds and median per QI, line 12) and
  ``split`` (every cell moved to its child partition, lines 16-17);
- ``classes``: a class id per distinct QI vector, the table the published rows join;
- ``publish``: every row written once with its class, class by class (ORDER BY, as a
  snapshot's rows are: their order never shows the source's);
- ``verify``: k and l checked over the published rows (one aggregate), before promotion.

With the release's rounds R and A, the sum over its rounds of the share of the rows still in
its partitions (Mondrian's ``round_rows`` over the rows), the floor is

    collapse + A * (hist + split) + R * median + classes + publish + verify

(without the rounds' terms where the rounds ran on Spark's driver, over the cells).

A round must read its active cells at least once to histogram them and once to move them, and
find its medians at least once. What a release runs beyond that (coding the QIs, the model
checks of the candidate cuts, the decision, the labels, the metrics, the audit, the second
snapshot) is left out, so the floor is below any bench release on that engine: where the
Spark floor is above 4 times DuckDB's release, no Spark release of this bench is within 4x.

Example (needs pyspark and Java):
    >>> essential_seconds(engine, '"adult_like"', QIS, "salary", repeat=1)   # doctest: +SKIP
    {'collapse': 0.8, 'hist': 0.1, 'median': 0.003, 'split': 0.09, 'classes': 0.17, 'publish': 3.3, 'verify': 0.17}
"""

from __future__ import annotations

import statistics
import time

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine

#: the essential operations, in the order they run (each reads what the ones before made)
OPS = ("collapse", "hist", "median", "split", "classes", "publish", "verify")


def essential_seconds(engine: Engine, source: str, qis, sensitive: str, repeat: int = 3, k: int = 10,
                      l: int = 2) -> dict[str, float]:
    """The median seconds of each of :data:`OPS` over ``source`` (a quoted table) with the QI
    columns ``qis`` and the sensitive column ``sensitive`` (names), on ``engine``; its work
    tables are dropped at the end."""
    names = {n: engine.work(f"floor_{n}") for n in ("cells", "hist", "cuts", "split", "classes", "published")}
    context = {"source": source, "qis": [ident(q) for q in qis], "s": ident(sensitive), "cells": names["cells"],
               "hist": names["hist"], "cuts": names["cuts"], "classes": names["classes"],
               "published": names["published"]}
    targets = {"collapse": "cells", "hist": "hist", "median": "cuts", "split": "split", "classes": "classes",
               "publish": "published"}
    seconds = {}
    try:
        for op in OPS:
            runs = []
            for _ in range(repeat):
                target = names[targets[op]] if op in targets else None
                if target:
                    engine.drop(target)
                start = time.perf_counter()
                engine.run(f"bench/floor/{op}.sql.j2", {"k": k, "l": l} if op == "verify" else None,
                           target=target, **context).fetchall()
                runs.append(time.perf_counter() - start)
            seconds[op] = round(statistics.median(runs), 3)
    finally:
        engine.drop(*names.values())
    return seconds


def floor_seconds(ops: dict[str, float], rows: int, round_rows: list[int] | None) -> float:
    """The floor of a release (module docstring) from the essential operations' seconds and
    the release's rows per round (``round_rows``) out of ``rows``; ``None`` where the rounds ran
    over the cells on Spark's driver (engine/spark_driver.py), not as statements over the
    rows: then the floor holds the passes over the rows alone."""
    round_rows = round_rows or []
    active = sum(round_rows) / rows
    once = ops["collapse"] + ops["classes"] + ops["publish"] + ops["verify"]
    return round(once + active * (ops["hist"] + ops["split"]) + len(round_rows) * ops["median"], 2)
