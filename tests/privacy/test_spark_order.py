"""The order attack of :mod:`tests.privacy.test_attacks` on a release published by Spark:
Spark writes the snapshot as several files and reads them back in an order of its own (by
size, not by name), so the view's order is checked as a reader on Spark scans it. Marked
``spark``."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer import anonymize
from anonymizer.engine.spark import copy_from_duckdb

from .adversary import beyond_chance, order_link
from .test_attacks import linked, members, people_table, truth_of

pytestmark = pytest.mark.spark


def test_the_order_inside_a_class_links_no_row_on_spark(spark):
    con = duckdb.connect()
    people_table(con, 600)   # sorted by name: the adversary knows every person's position
    copy_from_duckdb(spark, con, "people", "people_by_name")
    truth = truth_of(con, "people")
    spec = {"release": "order_on_spark", "source": {"table": "people_by_name"}, "default_role": "identifier",
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "disease": "sensitive", "tag": "insensitive"},
            "models": [{"type": "k-anonymity", "k": 8}]}
    result = anonymize(spec, spark=spark)
    frame = spark.sql(f"SELECT * FROM {result.view}").toPandas()   # as a reader on Spark scans it
    frame["pos"] = range(len(frame))
    assert len(frame) == 600 and frame["eq_class"].nunique() == result.classes
    in_source = spark.sql("SELECT tag FROM people_by_name").toPandas()["tag"].tolist()
    assert in_source == truth["tag"].tolist()   # the copy kept the source's order: the attack has its premise
    guesses = order_link(frame, "eq_class", members(frame, "eq_class", truth))
    hits, chance = linked(frame, guesses, truth), frame["eq_class"].nunique()
    assert not beyond_chance(hits, chance), f"{hits} of {len(frame)} rows linked (chance {chance})"
