"""Mondrian labels its classes from its finished cells (one row per class and distinct QI
vector) instead of joining every row with its class: the class table must be the same one
the rows give, for strict and relaxed Mondrian, value-set, range and hierarchy labels."""

from __future__ import annotations

import pytest

from anonymizer.families.generalized.steps import run_algorithm
from anonymizer.engine.session import Engine
from anonymizer.families.generalized.form import build_candidate
from anonymizer.plan import prepare, resolve_columns
from anonymizer.spec.parse import load_spec
from anonymizer.datasets.synthetic import make_adult_like

COLUMNS = {"age": {"role": "quasi", "type": "numeric"}, "education": "quasi", "occupation": "quasi",
           "sex": "quasi", "salary": "sensitive"}
INTERVALS = {"hierarchy": {"intervals": [5, 10, 20]}}


@pytest.mark.parametrize("relaxed", [False, True])
@pytest.mark.parametrize("age", [{}, INTERVALS], ids=["range", "interval-hierarchy"])
def test_class_table_from_the_cells_is_the_one_from_the_rows(con, relaxed, age):
    make_adult_like(con, "adult", 3000, seed=11)
    columns = dict(COLUMNS, age={"role": "quasi", "type": "numeric", **age})
    spec = load_spec({"release": "c", "source": {"table": "adult"}, "default_role": "identifier", "columns": columns,
                      "models": [{"type": "k-anonymity", "k": 4},
                                 {"type": "distinct-l-diversity", "l": 2, "sensitive": "salary"}],
                      "algorithm": {"name": "mondrian", "relaxed": relaxed}})
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, resolve_columns(spec, engine.columns('"adult"'), '"adult"'))
        result = run_algorithm(engine, plan)
        assert result.cells is not None
        cells = con.execute(f"SELECT count(*), sum(n) FROM {result.cells}").fetchone()
        assert cells[1] == plan.base_rows and cells[0] < plan.base_rows   # fewer cells than rows, every row
        first = build_candidate(engine, plan, result.assign, cells=result.cells)
        from_cells = engine.work("from_cells")
        con.execute(f"CREATE TABLE {from_cells} AS SELECT * FROM {first.class_table}")
        engine.release_tables(*(engine.work(n) for n in ["class_ranges", "classes", "candidate"]))
        second = build_candidate(engine, plan, result.assign)   # from the assignment joined with the rows
        assert (first.classes, first.rows) == (second.classes, second.rows) == (result.classes, plan.base_rows)
        for a, b in ((from_cells, second.class_table), (second.class_table, from_cells)):
            assert con.execute(f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})"
                               ).fetchone()[0] == 0
        sets = con.execute(f"SELECT count(*) FROM {from_cells} WHERE len(education_values) > 1").fetchone()[0]
        assert sets > 0   # value-set labels were compared, not only single values
