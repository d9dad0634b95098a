"""A release reads its utility metrics from the class table (one row per class, weighted by
its size): the same figures as from the candidate's rows."""

from __future__ import annotations

import pytest

from anonymizer.engine.session import Engine
from anonymizer.metrics import utility_report
from anonymizer.families.generalized.steps import _metric_qis
from anonymizer.release.run import publish_release
from anonymizer.plan import prepare, resolve_columns
from anonymizer.spec.parse import load_spec
from anonymizer.engine.names import ident, table
from anonymizer.datasets.synthetic import make_adult_like

SPEC = {"release": "u", "source": {"table": "adult"}, "default_role": "identifier",
        "columns": {"age": {"role": "quasi", "type": "numeric"}, "education": "quasi", "occupation": "quasi",
                    "salary": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 5}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "salary"}]}


def test_utility_from_the_class_table_equals_the_rows(con):
    make_adult_like(con, "adult", 4000, seed=7)
    result = publish_release(load_spec(SPEC), con, keep_work=True)
    kept = con.execute("SELECT schema_name FROM duckdb_schemas() WHERE starts_with(schema_name, '_anon_kept_')"
                       ).fetchone()[0]
    engine = Engine(con)
    spec = load_spec(SPEC)
    with engine.workspace():
        plan = prepare(engine, resolve_columns(spec, engine.columns('"adult"'), '"adult"'))
        qis = _metric_qis(engine, plan, table(kept, "classes"))
        # every row with its class's label ranges (the candidate keeps them once per class)
        con.execute(f"CREATE VIEW {table(kept, 'rowwise')} AS SELECT r.__pos, c.* FROM {table(kept, 'candidate')} "
                    f"AS r JOIN {table(kept, 'classes')} AS c ON c.__cid = r.__cid")
        rows = utility_report(engine, table(kept, "rowwise"), qis, plan.rows, 5)
        classes = utility_report(engine, table(kept, "classes"), qis, plan.rows, 5, weight=ident("class_size"))
    per_qi = result.utility.pop("ncp_per_qi")   # the release's own: each QI's NCP, their mean the table's
    assert rows == pytest.approx(classes) and rows == pytest.approx(result.utility)
    assert set(per_qi) == {q.name for q in plan.qis}
    assert sum(per_qi.values()) / len(per_qi) == pytest.approx(rows["ncp"])
    assert rows["classes"] == result.classes and rows["released"] == 4000
