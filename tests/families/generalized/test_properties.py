"""Property tests: random small tables and k give classes of at least k rows that cover
every row exactly once (both algorithms), and strict Mondrian boxes that do not overlap."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.families.generalized.full_domain import full_domain
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs

NUM = {"role": "quasi", "type": "numeric"}

tables = st.integers(min_value=1, max_value=40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 6), min_size=n, max_size=n),
    st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
    st.integers(1, max(1, n)),
))


def coverage(engine, plan, result):
    return engine.execute(
        f"SELECT count(*), count(DISTINCT __rid), coalesce(min(n), 0) FROM {result.assign} "
        f"JOIN (SELECT __cid, count(*) AS n FROM {result.assign} GROUP BY __cid) USING (__cid)").fetchone()


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=tables, relaxed=st.booleans())
def test_mondrian_classes_cover_rows_once(engine, make_plan, classes, table, relaxed):
    a, b, k = table
    plan = make_plan(engine, {"a": a, "b": b}, {"a": NUM, "b": {"role": "quasi"}},
                     [{"type": "k-anonymity", "k": k}], {"name": "mondrian", "relaxed": relaxed})
    result = mondrian(engine, plan, mondrian_inputs(plan))
    rows, distinct, smallest = coverage(engine, plan, result)
    assert rows == distinct == len(a) and smallest >= k
    if not relaxed:
        codes = engine.execute(f"SELECT DISTINCT __lo0, __hi0, __lo1, __hi1 FROM {result.assign}").fetchall()
        for i, x in enumerate(codes):
            for y in codes[i + 1:]:
                assert x[1] < y[0] or y[1] < x[0] or x[3] < y[2] or y[3] < x[2], (x, y)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=tables)
def test_full_domain_keeps_k_classes_within_the_limit(engine, make_plan, table):
    a, b, k = table
    plan = make_plan(engine, {"a": a, "b": b}, {"a": {"role": "quasi", "hierarchy": {"intervals": [2, 4]}},
                                              "b": {"role": "quasi"}},
                     [{"type": "k-anonymity", "k": k}], {"name": "full-domain", "levels": {"a": 1, "b": 0}},
                     suppression_limit=1.0)
    result = full_domain(engine, plan)
    rows, distinct, smallest = coverage(engine, plan, result)
    assert rows == distinct == len(a) - result.suppressed and (rows == 0 or smallest >= k)
