"""anonymizer check: measure_table and format_measure (the text ``anonymizer check`` prints)."""

from __future__ import annotations

import json

import pytest

from anonymizer.errors import DataError, SpecError
from anonymizer.cli.check import format_measure
from anonymizer.measure import measure_table, table_parts

WEIRD = ["select", "my col", 'a"b']


@pytest.fixture
def weird(con):
    con.execute("CREATE SCHEMA s")
    con.execute("""CREATE TABLE s.t AS SELECT * FROM (VALUES
        (1, 'a', 3), (1, 'b', 4), (1, 'b', 5), (2, 'a', 5), (2, 'c', 3), (2, 'd', 9), (2, 'a', 11))
        AS v("select", "my col", "a""b")""")
    return con


def test_weird_names_and_figures(weird):
    r = measure_table(weird, "s.t", ["select"], ["my col", 'a"b'])
    assert (r["rows"], r["classes"], r["k"]) == (7, 2, 3)
    assert r["class_sizes"] == [{"min_size": 3, "max_size": 3, "classes": 1, "rows": 3},
                                {"min_size": 4, "max_size": 4, "classes": 1, "rows": 4}]
    assert r["risk"]["highest"] == pytest.approx(1 / 3)
    assert r["risk"]["average"] == pytest.approx(2 / 7)
    assert r["risk"]["records_at_risk"] == 7            # both classes below 5 rows
    m = r["sensitive"]["my col"]
    assert m["distinct_l"] == 2 and m["recursive_l"] == 1 and m["distance"] == "equal"
    assert m["t"] == pytest.approx(8 / 21) and m["alpha"] == pytest.approx(2 / 3)
    assert r["sensitive"]['a"b']["distance"] == "ordered"
    json.dumps(r)
    text = format_measure(r)
    assert "k = 3" in text and "'my col'" in text and "ordered distance" in text


def test_table_name_rule(weird):
    assert table_parts("s.t") == ("s", "t") and table_parts(("a.b",)) == ("a.b",)
    assert measure_table(weird, ("s", "t"), ["my col"])["classes"] == 4
    weird.execute('CREATE TABLE "x.y" AS SELECT 1 AS a')
    assert measure_table(weird, ("x.y",), ["a"])["k"] == 1


def test_no_qi_is_one_class(weird):
    r = measure_table(weird, "s.t", [], ["my col"])
    assert (r["classes"], r["k"]) == (1, 7)


def test_given_distance(weird):
    r = measure_table(weird, "s.t", ["select"], ['a"b'], distance="equal")
    assert r["sensitive"]['a"b']["distance"] == "equal"
    with pytest.raises(SpecError, match="distance"):
        measure_table(weird, "s.t", ["select"], ['a"b'], distance="manhattan")


def test_errors(weird):
    with pytest.raises(DataError, match="nope.*does not exist"):
        measure_table(weird, "nope", ["x"])
    with pytest.raises(SpecError, match="'zz'"):
        measure_table(weird, "s.t", ["zz", "select"])
    with pytest.raises(SpecError, match="'gone'"):
        measure_table(weird, "s.t", ["select"], ["gone"])
    with pytest.raises(SpecError, match="c"):
        measure_table(weird, "s.t", ["select"], ["my col"], c=0)
    weird.execute("CREATE TABLE e (a INTEGER)")
    with pytest.raises(DataError, match="empty"):
        measure_table(weird, "e", ["a"])


def test_size_buckets(con):
    con.execute("CREATE TABLE big AS SELECT i % 1000 AS a FROM range(100000) t(i)")
    con.execute("INSERT INTO big SELECT 9000 + i FROM range(1, 30) t(i), range(i)")
    r = measure_table(con, "big", ["a"])
    sizes = r["class_sizes"]
    assert len(sizes) <= 10 and sum(s["classes"] for s in sizes) == r["classes"] == 1029
    assert sum(s["rows"] for s in sizes) == r["rows"]
    assert sizes[0] == {"min_size": 1, "max_size": 1, "classes": 1, "rows": 1}
    assert sizes[-1] == {"min_size": 100, "max_size": 100, "classes": 1000, "rows": 100000}
    assert r["risk"]["records_at_risk"] == 1 + 2 + 3 + 4


def test_counted_once_measures_the_same(weird):
    # a release counts its candidate once (count_rows), then verifies and measures from the count
    from anonymizer.engine.session import Engine
    from anonymizer.measure import count_rows
    con = weird
    con.execute('INSERT INTO s.t VALUES (NULL, \'a\', 3), (NULL, NULL, 3)')   # NULL is a value like any other
    direct = measure_table(con, "s.t", ["select", "my col"], ['a"b'])
    engine = Engine(con)
    with engine.workspace():
        counted = count_rows(engine, '"s"."t"', ["select", "my col"], ['a"b'])
        assert con.execute(f"SELECT sum({counted.weight}), max({counted.cls}) FROM {counted.table}").fetchone() == (9, 7)
        assert measure_table(con, "s.t", ["select", "my col"], ['a"b'], counted=counted) == direct
    assert direct["classes"] == 7 and direct["k"] == 1
