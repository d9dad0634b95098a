"""Every statement the algorithms render (mondrian strict, by the least-loss cut and relaxed with l-diversity and
t-closeness, its rounds driven from Python or as recursive statements, full-domain) parses
with sqlglot in the DuckDB dialect."""

from __future__ import annotations

import pytest
import sqlglot

from anonymizer.families.generalized.full_domain import full_domain
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs

MODELS = [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "my col"},
          {"type": "t-closeness", "t": 0.9, "sensitive": "my col"}]
DATA = {"select": [1, 2, 3, 4, 5, 6, 7, 8], "a\"b": list("xyxyxyxy"), "my col": list("pqpqpqpq")}


@pytest.mark.parametrize("algorithm, loop", [({"name": "mondrian"}, "python"), ({"name": "mondrian"}, "recursive"),
                                             ({"name": "mondrian", "relaxed": True}, "python"),
                                             ({"name": "mondrian", "relaxed": True}, "recursive"),
                                             ({"name": "mondrian", "labels": "values", "split": "loss"}, "python"),
                                             ({"name": "mondrian", "labels": "values", "split": "loss"}, "recursive"),
                                             ({"name": "full-domain", "levels": {"select": 1, "a\"b": 1}}, None)])
def test_rendered_statements_parse(engine, make_plan, algorithm, loop):
    cols = {"select": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [4]}},
            "a\"b": "quasi", "my col": "sensitive"}
    plan = make_plan(engine, DATA, cols, MODELS, algorithm, suppression_limit=0.5)
    start = len(engine.log)
    result = mondrian(engine, plan, mondrian_inputs(plan), loop=loop) if algorithm["name"] == "mondrian" else full_domain(engine, plan)
    assert result.classes >= 1
    for entry in engine.log[start:]:
        assert sqlglot.parse(entry.sql, read="duckdb"), entry.template
