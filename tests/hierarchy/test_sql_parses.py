"""Every hierarchy template is rendered by a real build here, and every statement executed
parses with sqlglot (DuckDB dialect), with column names that need quoting. (The release
runs of ``tests/engine/test_templates.py`` exempt ``hierarchy/`` and leave it to this test.)"""

from __future__ import annotations

import sqlglot

from anonymizer.engine.rendering import list_templates
from anonymizer.hierarchy import export_arx, level_summary
from anonymizer.hierarchy.build import as_rows
from tests.hierarchy.conftest import build
from tests.template_contexts import keep_current
from tests.engine.test_templates import collect

HIERARCHIES = [  # column of the table below, hierarchy
    ("select", None), ("select", {"intervals": [5, 10]}), ("select", {"cgh": {"min_width": 5}}),
    ("select", {"dbgh": {"min_width": 5}}), ("select", {"cbgh": {"min_width": 5}}),
    ("my col", {"cbgh": {"min_width": 0.5}}), ("my col", {"cgh": {"min_width": 0.5}}),
    ("my col", {"dbgh": {"min_width": 0.5}}), ("my col", {"intervals": [0.5]}),
    ('a"b', {"masking": True}), ('a"b', {"ordered": ["x0", "x1", "x2", "x3"], "sizes": [2]}),
    ("when", {"dates": ["day", "month", "quarter", "year", "decade", "century"]}),
    ("select", {"iotf": {"nodes": [9, 3]}}), ("my col", {"iotf": {"nodes": [4], "range": [0, 10]}}),
]


def test_every_hierarchy_template_renders_and_parses(engine, monkeypatch, tmp_path):
    rendered, executed, recorded = collect(monkeypatch)
    engine.execute("""CREATE TABLE "t t" AS SELECT range AS "select", range / 4 AS "my col",
                      'x' || (range % 4)::VARCHAR AS "a""b", DATE '2001-01-01' + range::INTEGER AS "when"
                      FROM range(1, 40)""")
    (tmp_path / "h.csv").write_text("".join(f"x{i};{'ab'[i % 2]};*\n" for i in range(4)))
    built = [build(engine, '"t t"', col, h, key=str(i)) for i, (col, h) in enumerate(HIERARCHIES)]
    engine.execute('CREATE TABLE "o" AS SELECT \'x\' || (range % 4)::VARCHAR AS v FROM range(9)')
    build(engine, '"o"', "v", str(tmp_path / "h.csv"), key="csv")
    assert level_summary(engine, built[4].hier)[0].nodes == 39
    means = engine.rows("hierarchy/level_means.sql.j2", source='"t t"', column='"select"', dom=built[2].dom,
                        hier=built[2].hier)
    assert [(lv, nodes) for lv, nodes, *_ in means][:2] == [(0, 39), (1, 4)] and means[-1][4] == built[2].height
    export_arx(engine, built[2].hier, built[2].height, tmp_path / "out.csv")
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 39
    values = engine.work("qi_values")   # what Spark's driver builds over (anonymizer/hierarchy/build.py: building)
    engine.run("hierarchy/qi_values.sql.j2", target=values, source='"t t"', columns=['"select"', '"my col"'],
               profile=None)
    assert engine.count(values) == 39
    for i in (4, 6, 12):   # CBGH and IOTF weigh the values by their rows: the same as over the rows
        col, h = HIERARCHIES[i]
        again = build(engine, as_rows(values, ["select", "my col"]), col, h, key=f"v{i}")
        assert engine.execute(f"SELECT * FROM {again.hier} EXCEPT SELECT * FROM {built[i].hier}").fetchall() == []
        assert (again.m, again.height) == (built[i].m, built[i].height)
    missing = [t for t in list_templates() if t.startswith("hierarchy/") and t not in rendered]
    assert not missing, f"hierarchy templates never rendered: {missing}"
    for template, texts in executed.items():
        for text in texts:
            assert sqlglot.parse(text, read="duckdb"), template
    keep_current(recorded, executed)   # the parameters tests/engine/test_template_parse.py renders them with
