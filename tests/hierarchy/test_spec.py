"""The ``hierarchy`` field of a spec: every kind parses, every mistake names its field."""

from __future__ import annotations

import copy

import pytest

from anonymizer.errors import SpecError
from anonymizer.hierarchy import Hierarchy, column_type
from anonymizer.hierarchy.spec import Hierarchy as SpecHierarchy
from anonymizer.spec.parse import load_spec

BASE = {"release": "r", "source": {"table": "t"}, "columns": {"x": "quasi", "s": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 2}]}


def spec_with(hierarchy, role="quasi", **column):
    spec = copy.deepcopy(BASE)
    spec["columns"]["x"] = {"role": role, "hierarchy": hierarchy, **column}
    return spec


GOOD = [
    ({"intervals": [5, 10]}, Hierarchy("intervals", widths=(5.0, 10.0))),
    ({"masking": True}, Hierarchy("masking")),
    ({"masking": 3}, Hierarchy("masking", levels=3)),
    ({"ordered": ["a", "b", "c"], "sizes": [2]}, Hierarchy("ordered", values=("a", "b", "c"), sizes=(2,))),
    ({"dates": ["month", "year"]}, Hierarchy("dates", units=("month", "year"))),
    ({"cgh": {"min_width": 10}}, Hierarchy("cgh", min_width=10.0)),
    ({"dbgh": {"min_width": 10, "range": [1, 100]}}, Hierarchy("dbgh", min_width=10.0, range=(1.0, 100.0))),
    ({"cbgh": {"min_width": 2.5, "range": [0, 1e3]}}, Hierarchy("cbgh", min_width=2.5, range=(0.0, 1000.0))),
]


@pytest.mark.parametrize("value,parsed", GOOD, ids=[next(iter(g[0])) + str(i) for i, g in enumerate(GOOD)])
def test_good_hierarchies_parse(value, parsed):
    assert load_spec(spec_with(value)).columns[0].hierarchy == parsed


def test_a_bare_string_is_a_csv_file(tmp_path):
    (tmp_path / "h.csv").write_text("a;*\n")
    h = load_spec(spec_with("h.csv"), base_dir=tmp_path).columns[0].hierarchy
    assert h.kind == "csv" and h.path == tmp_path / "h.csv" and h.delimiter == ";"
    assert SpecHierarchy is Hierarchy


BAD = [
    ({"intervals": [10, 5]}, "columns.x.hierarchy.intervals"),
    ({"csv": "nope.csv"}, "columns.x.hierarchy.csv"),
    ({"cgh": {"min_width": 10}, "masking": True}, "columns.x.hierarchy"),
    ({"splines": 3}, "columns.x.hierarchy.splines"),   # not a kind: named by the schema
    ([1, 2], "columns.x.hierarchy"),
    ({"masking": True, "sizes": [2]}, "columns.x.hierarchy.sizes"),
    ({"masking": 0}, "columns.x.hierarchy.masking"),
    ({"masking": "yes"}, "columns.x.hierarchy.masking"),
    ({"ordered": ["a", "a"], "sizes": [2]}, "columns.x.hierarchy.ordered"),
    ({"ordered": ["a", "b", "c"]}, "columns.x.hierarchy.sizes"),
    ({"ordered": ["a", "b", "c"], "sizes": [3]}, "columns.x.hierarchy.sizes"),
    ({"ordered": ["a", "b", "c", "d"], "sizes": [2, 2]}, "columns.x.hierarchy.sizes"),
    ({"dates": ["week"]}, "columns.x.hierarchy.dates[0]"),
    ({"dates": []}, "columns.x.hierarchy.dates"),
    ({"cgh": 10}, "columns.x.hierarchy.cgh"),
    ({"cgh": {}}, "columns.x.hierarchy.cgh.min_width"),
    ({"dbgh": {"min_width": -1}}, "columns.x.hierarchy.dbgh.min_width"),
    ({"cbgh": {"min_width": 10, "range": [100, 1]}}, "columns.x.hierarchy.cbgh.range"),
    ({"cbgh": {"min_width": 10, "range": [1]}}, "columns.x.hierarchy.cbgh.range"),
    ({"cbgh": {"min_width": 10, "width": 3}}, "columns.x.hierarchy.cbgh.width"),
]


@pytest.mark.parametrize("value,field", BAD, ids=[b[1].rsplit(".", 1)[1] + str(i) for i, b in enumerate(BAD)])
def test_bad_hierarchies_name_the_field(value, field):
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(value))
    assert err.value.field == field, str(err.value)


@pytest.mark.parametrize("hierarchy,role,column,field", [
    ({"cgh": {"min_width": 5}}, "quasi", {"type": "categorical"}, "columns.x.hierarchy"),
    ({"masking": True}, "quasi", {"type": "numeric"}, "columns.x.hierarchy"),
    ({"masking": True}, "sensitive", {}, "columns.x.hierarchy"),
    ({"intervals": [5]}, "insensitive", {}, "columns.x.hierarchy"),
    ({"ordered": ["a", "b", "c"], "sizes": [2]}, "quasi", {"order": ["a", "b", "c"]}, "columns.x.order"),
], ids=["cgh on categorical", "masking on numeric", "masking on sensitive", "on insensitive", "with an order"])
def test_hierarchy_and_column_must_agree(hierarchy, role, column, field):
    with pytest.raises(SpecError) as err:
        load_spec(spec_with(hierarchy, role, **column))
    assert err.value.field == field, str(err.value)


@pytest.mark.parametrize("hierarchy,db_type,expected", [
    (Hierarchy("cgh", min_width=1.0), "INTEGER", "numeric"),
    (Hierarchy("masking"), "BIGINT", "categorical"),
    (Hierarchy("dates", units=("year",)), "TIMESTAMP WITH TIME ZONE", "categorical"),
    (Hierarchy("ordered", values=("a", "b"), sizes=(2,)), "VARCHAR", "categorical"),
    (None, "DECIMAL(10,2)", "numeric"),
    (Hierarchy("cbgh", min_width=1.0), "VARCHAR", SpecError),
    (Hierarchy("dates", units=("year",)), "INTEGER", SpecError),
])
def test_type_rules(hierarchy, db_type, expected):
    if expected is SpecError:
        with pytest.raises(SpecError, match=f"not {db_type}"):
            column_type(hierarchy, "columns.x.hierarchy", db_type, None)
    else:
        assert column_type(hierarchy, "columns.x.hierarchy", db_type, None) == expected
