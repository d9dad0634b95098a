"""The release's key is in nothing Spark keeps of a run: an adversary who reads the SQL tab of
Spark's UI, its event log or a history server (every executed plan, as text and as the plan
graph's nodes) does not find it, so cannot re-derive any draw (relaxed Mondrian's split of
equal rows, here; anonymizer/engine/spark_secret.py). The draws did run (a plan reads the key's
table).
Marked ``spark``."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer import anonymize
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.randomness import ReleaseKey

from .test_attacks import people_table

pytestmark = pytest.mark.spark


def kept_texts(spark, after: int) -> list[str]:
    """Every text Spark's SQL status store keeps of the executions after ``after``: the plan's
    description, the call's details and each node of the plan graph."""
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    texts = []
    for i in range(executions.size()):
        execution = executions.apply(i)
        if execution.executionId() <= after:
            continue
        texts += [execution.physicalPlanDescription(), execution.description(), execution.details()]
        nodes = store.planGraph(execution.executionId()).allNodes()
        texts += [nodes.apply(j).desc() for j in range(nodes.size())]
    return texts


def last_execution(spark) -> int:
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    return max((executions.apply(i).executionId() for i in range(executions.size())), default=-1)


def test_the_key_is_in_no_plan_spark_keeps(spark, monkeypatch):
    con = duckdb.connect()
    people_table(con, 300)
    copy_from_duckdb(spark, con, "people", "people_for_key")
    keys: list[ReleaseKey] = []
    fresh = ReleaseKey.fresh.__func__

    def recorded(cls):
        keys.append(fresh(cls))
        return keys[-1]
    monkeypatch.setattr(ReleaseKey, "fresh", classmethod(recorded))
    before = last_execution(spark)
    spec = {"release": "key_on_spark", "source": {"table": "people_for_key"}, "default_role": "identifier",
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "disease": "sensitive", "tag": "insensitive"},
            "models": [{"type": "k-anonymity", "k": 5}],
            "algorithm": {"name": "mondrian", "relaxed": True}}   # its split of equal rows draws
    result = anonymize(spec, spark=spark)
    assert result.classes > 1 and len(keys) == 1 and not keys[0].seeded
    texts = kept_texts(spark, before)
    assert any("__anon_key_" in t for t in texts)   # the draws ran, reading the key's table
    assert not [t for t in texts if keys[0].secret in t]
