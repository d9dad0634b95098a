"""Every template a Spark release runs, rendered with the parameters recorded from real runs
(tests/template_contexts.py), transpiled (:mod:`anonymizer.engine.transpile`) and read by
Spark's own SQL parser without running it (issue 38): a construct that does not translate
fails here in seconds, not in a Spark run. Marked ``spark`` (it needs the JVM's parser)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from anonymizer.engine.rendering import render
from anonymizer.engine.spark import _first_line
from anonymizer.engine.transpile import to_spark
from tests.template_contexts import stored

pytestmark = pytest.mark.spark

#: what no Spark release renders: the lattice table of ``anonymizer hierarchy lattice``
#: (DuckDB only), the paper reproductions, generators and benchmarks, the HTML report, the hierarchy
#: builders (a Spark release runs them on its driver's DuckDB, over hierarchy/qi_values.sql.j2, which
#: Spark runs, or above the driver's bound as their own Spark forms), and
#: what only a DuckDB release does: exports (refused on Spark) and pruning's checkpoint
NOT_ON_SPARK = ("families/generalized/lattice/evaluate/",
                "reproduce/", "datasets/", "bench/", "demo/", "report/", "hierarchy/", "publish/export.sql.j2",
                "publish/checkpoint.sql.j2")


def columns(table: exp.Table) -> list[str]:
    """A relation's columns, for the rewrites that spell out ``*``: any names parse."""
    return ["c0", "c1"]


def test_every_template_of_a_spark_release_parses_in_spark(spark):
    parser = spark._jsparkSession.sessionState().sqlParser()
    kinds = {"statement": "{}", "expression": "SELECT ({}\n)"}
    failed, parsed = [], 0
    for name, entries in stored().items():
        if name.startswith(NOT_ON_SPARK) and name != "hierarchy/qi_values.sql.j2":
            continue
        for entry in entries:
            text = kinds[entry["kind"]].format(render(name, "spark", **{k: v for k, v in entry["context"].items() if k != "dialect"}))
            try:
                statements = to_spark(text, columns)
            except Exception as exc:   # noqa: BLE001 - a rewrite that cannot read the tree
                failed.append(f"{name}: transpiling: {_first_line(exc)[:200]}")
                continue
            for statement in statements:
                try:
                    parser.parsePlan(statement)
                    parsed += 1
                except Exception as exc:   # noqa: BLE001 - py4j wraps Spark's ParseException
                    failed.append(f"{name}: {_first_line(exc)[:300]}")
    assert not failed, "Spark cannot parse: " + "\n".join(failed)
    assert parsed >= 100
