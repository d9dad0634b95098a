"""The builders on small hand-made columns, worked by hand: labels, node bounds, distortion,
domain order, and the shape every algorithm relies on (contiguous nodes, the nesting flag)."""

from __future__ import annotations

import pytest

from anonymizer.errors import DataError, SpecError
from tests.hierarchy.conftest import build, labels, nodes

EDUCATION = ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad", "Some-college",
             "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"]


def table(engine, sql: str) -> str:
    engine.execute(f"CREATE OR REPLACE TABLE t AS {sql}")
    return '"t"'


def test_masking_replaces_the_last_characters(engine):
    t = table(engine, "SELECT * FROM (VALUES ('21357'), ('21358'), ('21412'), ('2135'), ('99')) v(zip)")
    coded = build(engine, t, "zip", {"masking": True})
    assert coded.height == 5 and coded.nested
    codes = engine.execute(f"SELECT list(value ORDER BY code) FROM {coded.dom}").fetchone()[0]
    assert codes == ["99", "2135", "21357", "21358", "21412"], "(length, value) order"
    assert labels(engine, coded, 1) == {"21357": "2135*", "21358": "2135*", "21412": "2141*", "2135": "213*",
                                        "99": "9*"}
    assert labels(engine, coded, 3) == {"21357": "21***", "21358": "21***", "21412": "21***", "2135": "2***",
                                        "99": "**"}
    assert set(labels(engine, coded, 5).values()) == {"*"}
    assert nodes(engine, coded, 2) == [("**", 0, 0, 2.0), ("21**", 1, 1, 2.0), ("213**", 2, 3, 2.0),
                                       ("214**", 4, 4, 2.0)]


def test_masking_an_integer_column_with_declared_levels(engine):
    t = table(engine, "SELECT 13000 + range * 7 AS zip FROM range(40)")
    coded = build(engine, t, "zip", {"masking": 2})
    assert coded.height == 3 and coded.num_min is None, "masking makes the column categorical"
    assert labels(engine, coded, 2)["13273"] == "132**"


def test_ordered_groups_consecutive_values(engine):
    t = table(engine, f"SELECT unnest({EDUCATION!r}) AS edu")
    coded = build(engine, t, "edu", {"ordered": EDUCATION, "sizes": [2, 4]})
    assert coded.height == 3 and coded.nested
    lv1, lv2 = nodes(engine, coded, 1), nodes(engine, coded, 2)
    assert lv1[0] == ("[Preschool, 1st-4th]", 0, 1, 1.0) and len(lv1) == 8
    assert [n[0] for n in lv2] == ["[Preschool, 7th-8th]", "[9th, 12th]", "[HS-grad, Assoc-acdm]",
                                   "[Bachelors, Doctorate]"]


def test_ordered_uneven_groups_do_not_nest(engine):
    t = table(engine, "SELECT unnest(['a', 'b', 'c', 'd', 'e']) AS x")
    coded = build(engine, t, "x", {"ordered": ["a", "b", "c", "d", "e"], "sizes": [2, 3]})
    assert [n[0] for n in nodes(engine, coded, 1)] == ["[a, b]", "[c, d]", "[e]"]
    assert [n[0] for n in nodes(engine, coded, 2)] == ["[a, c]", "[d, e]"]
    assert not coded.nested, "[c, d] straddles [a, c] and [d, e]"


def test_ordered_must_name_every_value(engine):
    t = table(engine, "SELECT unnest(['a', 'b', 'z']) AS x")
    with pytest.raises(SpecError, match="does not cover 1 value") as err:
        build(engine, t, "x", {"ordered": ["a", "b", "c"], "sizes": [2]})
    assert err.value.field == "columns.x.hierarchy.ordered"


def test_dates_truncate_through_units(engine):
    t = table(engine, "SELECT unnest([DATE '2019-12-31', DATE '2020-01-15', DATE '2020-03-04', DATE '2020-04-01', "
                      "DATE '2031-06-30']) AS d")
    coded = build(engine, t, "d", {"dates": ["month", "quarter", "year", "decade", "century"]})
    assert coded.height == 6 and coded.nested
    got = [labels(engine, coded, j)["2020-03-04"] for j in range(1, 7)]
    assert got == ["2020-03", "2020-Q1", "2020", "2020s", "2000-2099", "*"]
    assert [n[0] for n in nodes(engine, coded, 4)] == ["2010s", "2020s", "2030s"]
    assert [n[0] for n in nodes(engine, coded, 2)] == ["2019-Q4", "2020-Q1", "2020-Q2", "2031-Q2"]


def test_dates_on_timestamps_by_day(engine):
    t = table(engine, "SELECT TIMESTAMP '2024-02-29 10:00:00' + INTERVAL (range * 7) HOUR AS ts FROM range(10)")
    coded = build(engine, t, "ts", {"dates": ["day", "month"]})
    assert [n[0] for n in nodes(engine, coded, 1)] == ["2024-02-29", "2024-03-01", "2024-03-02", "2024-03-03"]
    assert [n[0] for n in nodes(engine, coded, 2)] == ["2024-02", "2024-03"]


def test_intervals_integer_inclusive_and_real_half_open(engine):
    t = table(engine, "SELECT range AS i, range / 4 AS r FROM range(30)")
    ints = build(engine, t, "i", {"intervals": [5, 10, 25]})
    assert [n[0] for n in nodes(engine, ints, 1)][:2] == ["[0, 4]", "[5, 9]"]
    assert not ints.nested, "[20, 29] straddles [0, 24] and [25, 49]"
    reals = build(engine, t, "r", {"intervals": [2.5]}, key="1")
    assert [n[0] for n in nodes(engine, reals, 1)] == ["[0.0, 2.5)", "[2.5, 5.0)", "[5.0, 7.5)"]


def test_cgh_on_a_real_column_closes_the_last_interval(engine):
    t = table(engine, "SELECT range / 10 AS x FROM range(11)")
    coded = build(engine, t, "x", {"cgh": {"min_width": 0.25}})
    assert coded.height == 3
    assert nodes(engine, coded, 1) == [("[0.0, 0.25)", 0, 2, 0.75), ("[0.25, 0.5)", 3, 4, 0.75),
                                       ("[0.5, 0.75)", 5, 7, 0.75), ("[0.75, 1.0]", 8, 10, 0.75)]


def test_dbgh_and_cbgh_on_a_real_column(engine):
    t = table(engine, "SELECT range * 1.5 AS x FROM range(1, 13)")   # 1.5 .. 18.0
    dbgh = build(engine, t, "x", {"dbgh": {"min_width": 6}})
    assert dbgh.height == 3, "MaxValue 18: divisors 6, 9, 18"
    assert [n[0] for n in nodes(engine, dbgh, 1)] == ["[1.5, 6.0)", "[6.0, 12.0)", "[12.0, 18.0]"], "root [1.5, 18]"
    assert nodes(engine, dbgh, 2)[1][3] == pytest.approx(3 * 9 / 16.5)
    cbgh = build(engine, t, "x", {"cbgh": {"min_width": 5, "range": [0, 20]}}, key="1")
    assert [n[0] for n in nodes(engine, cbgh, 1)] == ["[0.0, 5.0)", "[5.0, 10.0)", "[10.0, 15.0)", "[15.0, 20.0]"]
    assert cbgh.height == 3 and nodes(engine, cbgh, 2)[0][3] == pytest.approx(3 * 10 / 20)


def test_values_outside_a_declared_range_name_the_column(engine):
    t = table(engine, "SELECT range AS age FROM range(10, 120)")
    with pytest.raises(SpecError, match="'age' \\(10 to 119\\)") as err:
        build(engine, t, "age", {"cbgh": {"min_width": 10, "range": [1, 100]}})
    assert err.value.field == "columns.age.hierarchy.cbgh.range"


def test_too_many_cbgh_leaves_is_a_spec_error(engine):
    t = table(engine, "SELECT range AS x FROM range(5000)")
    with pytest.raises(SpecError, match="take a wider min_width") as err:
        build(engine, t, "x", {"cbgh": {"min_width": 2}})
    assert err.value.field == "columns.x.hierarchy.cbgh.min_width"


SHAPES = [  # hierarchy on column x of SHAPE_DATA, whether it nests
    pytest.param(None, True, id="none"),
    pytest.param({"intervals": [4, 8, 12]}, False, id="intervals 4, 8, 12"),
    pytest.param({"cgh": {"min_width": 3}}, True, id="cgh"),
    pytest.param({"dbgh": {"min_width": 2}}, False, id="dbgh"),
    pytest.param({"cbgh": {"min_width": 3}}, True, id="cbgh"),
    pytest.param({"masking": True}, True, id="masking"),
]


@pytest.mark.parametrize("hierarchy,nested", SHAPES)
def test_every_node_is_a_contiguous_code_range(engine, hierarchy, nested):
    t = table(engine, "SELECT (range * 37) % 61 AS x FROM range(200)")
    coded = build(engine, t, "x", hierarchy)
    rows = engine.execute(f"SELECT level, label, lo, hi, list(code ORDER BY code), any_value(distortion) "
                          f"FROM {coded.hier} GROUP BY ALL").fetchall()
    assert {r[0] for r in rows} == set(range(coded.height + 1))
    for level, label, lo, hi, codes, _ in rows:
        assert codes == list(range(lo, hi + 1)), f"level {level} node {label}"
    top = [r for r in rows if r[0] == coded.height]
    assert [(r[1], r[2], r[3], r[5]) for r in top] == [("*", 0, coded.m - 1, coded.height)]
    parent = {}
    for level, label, lo, hi, codes, _ in rows:
        for c in codes:
            parent[(level, c)] = lo
    nests = all(len({parent[(level + 1, c)] for c in codes}) == 1
                for level, _, _, _, codes, _ in rows if level < coded.height)
    assert nests is coded.nested is nested


def test_a_column_without_values_is_a_data_error(engine):
    t = table(engine, "SELECT NULL::INTEGER AS x FROM range(3)")
    with pytest.raises(DataError, match="'x' has no values"):
        build(engine, t, "x", {"cgh": {"min_width": 1}})
