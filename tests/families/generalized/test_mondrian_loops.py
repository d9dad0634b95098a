"""Mondrian's rounds driven from Python and as recursive statements (``loop="python"`` and
``loop="recursive"``, all rounds in one statement or a batch of rounds a statement) make the
same partitions: the same classes, class ids, bounds and rows, on Adult and on random tables."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs

MODELS = {
    "k": [],
    "distinct-l": [{"type": "distinct-l-diversity", "l": 2, "sensitive": "s"}],
    "entropy-l": [{"type": "entropy-l-diversity", "l": 1.5, "sensitive": "s"}],
    "recursive-cl": [{"type": "recursive-cl-diversity", "c": 3, "l": 2, "sensitive": "s"}],
    "alpha-k": [{"type": "alpha-k-anonymity", "alpha": 0.7, "k": 2, "sensitive": "s"}],
    "t-equal": [{"type": "t-closeness", "t": 0.5, "sensitive": "s"}],
}


def outcome(engine, result) -> dict:
    """Everything a run leaves that the release reads (test tables only)."""
    def rows(sql: str) -> list[tuple]:
        return engine.execute(sql).fetchall()
    return {"classes": result.classes, "rounds": result.rounds, "cells": result.notes["cells"],
            "assign": rows(f"SELECT * FROM {result.assign} ORDER BY __rid"),
            "class_cells": rows(f"SELECT * FROM {result.cells} ORDER BY ALL")}


def run(engine, make_plan, loop, batch=None, **kw) -> dict:
    """Mondrian by ``loop`` on a fresh plan (``make_plan()``, in a fresh work schema)."""
    engine.close_work()
    plan = make_plan()
    result = mondrian(engine, plan, mondrian_inputs(plan), loop=loop, batch=batch, **kw)
    assert result.notes["loop"] == loop
    return outcome(engine, result)


ADULT_RUNS = {
    "strict, hierarchies": ({}, [{"type": "k-anonymity", "k": 5}]),
    "relaxed": ({"relaxed": True}, [{"type": "k-anonymity", "k": 5}]),
    "strict, l-diversity": ({}, [{"type": "k-anonymity", "k": 5},
                                 {"type": "distinct-l-diversity", "l": 3, "sensitive": "occupation"}]),
    "relaxed, t-closeness": ({"relaxed": True}, [{"type": "k-anonymity", "k": 10},
                                                {"type": "t-closeness", "t": 0.4, "sensitive": "occupation"}]),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", ADULT_RUNS)
def test_loops_agree_on_adult(engine, prepare_spec, adult_columns, adult_source, name):
    algorithm, models = ADULT_RUNS[name]
    spec = {"release": "r", "source": adult_source, "columns": adult_columns, "default_role": "insensitive",
            "models": models, "algorithm": {"name": "mondrian", "seed": 1, **algorithm}}
    def plan():
        return prepare_spec(engine, spec)
    python = run(engine, plan, "python")
    assert python == run(engine, plan, "recursive")
    assert python == run(engine, plan, "recursive", batch=7)      # 7 rounds a statement
    assert python["rounds"] > 7 and python["classes"] > 300


def test_loops_agree_inside_subsets(engine, make_plan):
    # paper 000's LGB_MDP runs Mondrian inside each subset of the QI partition (partition_by)
    data = {"a": [i % 13 for i in range(60)], "b": [i % 7 for i in range(60)], "g": [i % 3 for i in range(60)]}
    num = {"role": "quasi", "type": "numeric"}
    def plan():
        return make_plan(engine, data, {"a": num, "b": num, "g": num}, [{"type": "k-anonymity", "k": 3}])
    python = run(engine, plan, "python", partition_by="q2")
    assert python == run(engine, plan, "recursive", partition_by="q2")
    assert python == run(engine, plan, "recursive", batch=1, partition_by="q2")


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 20), st.sampled_from("wxyz"), st.sampled_from("pqrs")),
                     min_size=8, max_size=60),
       k=st.integers(2, 4), relaxed=st.booleans(), models=st.sampled_from(sorted(MODELS)),
       batch=st.sampled_from([None, 1, 2]))
def test_loops_agree_on_random_tables(engine, make_plan, rows, k, relaxed, models, batch):
    data = {"a": [r[0] for r in rows], "c": [r[1] for r in rows], "s": [r[2] for r in rows]}
    columns = {"a": {"role": "quasi", "type": "numeric"}, "c": "quasi", "s": "sensitive"}
    def plan():
        return make_plan(engine, data, columns, [{"type": "k-anonymity", "k": k}] + MODELS[models],
                         {"name": "mondrian", "relaxed": relaxed, "seed": 1})
    try:
        python = run(engine, plan, "python")
    except Exception as exc:   # the whole table fails a model: both loops refuse it alike
        with pytest.raises(type(exc)):
            run(engine, plan, "recursive", batch)
        return
    assert python == run(engine, plan, "recursive", batch)


def test_the_ordered_distance_keeps_the_python_loop(engine, make_plan):
    # its EMD is an ASOF join, which DuckDB 2.0 does not run inside a recursive CTE
    data = {"a": list(range(12)), "s": [1, 2, 3, 4] * 3}
    plan = make_plan(engine, data, {"a": {"role": "quasi", "type": "numeric"}, "s": "sensitive"},
                     [{"type": "k-anonymity", "k": 2},
                      {"type": "t-closeness", "t": 0.5, "sensitive": "s", "distance": "ordered"}])
    result = mondrian(engine, plan, mondrian_inputs(plan), loop="recursive")
    assert result.notes["loop"] == "python" and result.classes > 1


@pytest.mark.parametrize("kw, message", [({"loop": "sql"}, "loop must be one of"),
                                         ({"loop": "recursive", "batch": 0}, "batch must be a positive")])
def test_bad_loop_arguments_are_refused(engine, make_plan, kw, message):
    plan = make_plan(engine, {"a": [1, 2, 3, 4]}, {"a": "quasi"}, [{"type": "k-anonymity", "k": 2}])
    with pytest.raises(ValueError, match=message):
        mondrian(engine, plan, mondrian_inputs(plan), **kw)
