"""Paper 001's baseline IOTF (``anonymizer/hierarchy/iotf.py``): the values clustered on the
fly, adjacent clusters merged cheapest first, cut at Table 4's 24, 16, 4 nodes per level."""

from __future__ import annotations

import json
import random

import pytest

from anonymizer.errors import SpecError
from anonymizer.hierarchy import level_summary, parse_hierarchy
from anonymizer.hierarchy.iotf import Cluster, cuts, merge_cost
from tests.cli.conftest import run_cli
from tests.hierarchy.conftest import build, nodes
from tests.hierarchy.test_builders import table


def brute_force(values, counts):
    """The same greedy, the obvious way: rescan every adjacent pair at every merge."""
    clusters, out = [Cluster(i, i, v, v, n) for i, (v, n) in enumerate(values)], []
    for target in counts:
        while len(clusters) > target:
            k = min(range(len(clusters) - 1), key=lambda k: (merge_cost(clusters[k], clusters[k + 1]), k))
            a, b = clusters[k], clusters[k + 1]
            clusters[k:k + 2] = [Cluster(a.first, b.last, a.lo, b.hi, a.n + b.n)]
        out.append(list(clusters))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_heap_merges_as_the_rescanning_greedy(seed):
    rng = random.Random(seed)
    values = sorted(rng.sample(range(1000), 300))
    data = [(v, rng.choice([1, 1, 2, 5, 40])) for v in values]   # many ties of cost
    assert cuts(data, (60, 20, 3)) == brute_force(data, (60, 20, 3))


def test_a_hand_computed_case(engine):
    """Values 1 (9 rows), 2, 3 (1 row each), 9 (9 rows). Costs: 1+2: 10, 2+3: 2, 3+9: 60, so
    [2, 3] first; then 1+[2, 3]: 11 x 2 - 2 = 20 against [2, 3]+9: 11 x 7 - 2 = 75. Root [1, 9],
    height 3: [2, 3] costs 3 x 1/8, [1, 3] 3 x 2/8."""
    t = table(engine, "SELECT unnest([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9]) AS x")
    coded = build(engine, t, "x", {"iotf": {"nodes": [3, 2]}})
    assert coded.height == 3 and coded.nested
    assert [(n[0], n[3]) for n in nodes(engine, coded, 1)] == [("[1, 1]", 0), ("[2, 3]", 0.375), ("[9, 9]", 0)]
    assert [(n[0], n[3]) for n in nodes(engine, coded, 2)] == [("[1, 3]", 0.75), ("[9, 9]", 0)]


def test_table4_shape_on_hours_per_week(adult):
    coded = build(adult, '"adult"', "hours-per-week", {"iotf": {"range": [1, 100]}})
    assert coded.height == 4 and coded.nested
    assert [lv.nodes for lv in level_summary(adult, coded.hier)] == [94, 24, 16, 4, 1]
    assert [(n[0], round(n[3], 4)) for n in nodes(adult, coded, 3)] == [
        ("[1, 39]", round(4 * 38 / 99, 4)), ("[40, 40]", 0), ("[41, 60]", round(4 * 19 / 99, 4)),
        ("[61, 99]", round(4 * 38 / 99, 4))]


def test_levels_with_as_many_nodes_as_values_are_dropped(adult):
    coded = build(adult, '"adult"', "education-num", {"iotf": {}})
    assert coded.m == 16 and coded.height == 2, "16 values: only the 4-node level is left below '*'"


@pytest.mark.parametrize("value,field", [
    ({"iotf": {"nodes": [4, 16]}}, "h.iotf.nodes"), ({"iotf": {"nodes": [4, 1]}}, "h.iotf.nodes"),
    ({"iotf": {"min_width": 3}}, "h.iotf.min_width"), ({"iotf": {"range": [5, 1]}}, "h.iotf.range"),
    ({"iotf": [24]}, "h.iotf")])
def test_spec_errors_name_the_field(value, field, tmp_path):
    with pytest.raises(SpecError) as err:
        parse_hierarchy(value, "h", tmp_path)
    assert err.value.field == field


def test_cli_show_builds_iotf(tmp_path):
    import duckdb
    db = tmp_path / "t.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE t AS SELECT unnest([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9]) AS x")
    res = run_cli("hierarchy", "show", "--db", db, "--table", "t", "--column", "x", "--builder", "iotf",
                  "--nodes", "3,2", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert (out["kind"], out["height"]) == ("iotf", 3)
    assert [lv["examples"] for lv in out["levels"][1:3]] == [["[1, 1]", "[2, 3]", "[9, 9]"], ["[1, 3]", "[9, 9]"]]
