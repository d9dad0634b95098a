"""Spec validation: each bad spec gives one SpecError naming the field (table of cases)."""

from __future__ import annotations

import copy

import pytest

from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec

GOOD = {
    "release": "r",
    "source": {"table": "t"},
    "columns": {"age": {"role": "quasi", "type": "numeric"}, "zip": "quasi", "disease": "sensitive"},
    "models": [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}],
}


def with_(path: str, value):
    spec = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node = spec
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if value is KeyError:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return spec


CASES = [
    ("no release", with_("release", KeyError), "release"),
    ("empty release", with_("release", " "), "release"),
    ("unknown top field", with_("colums", {}), "colums"),
    ("no source", with_("source", KeyError), "source"),
    ("unknown role", with_("columns.zip", {"role": "quasy"}), "columns.zip.role"),
    ("bad type", with_("columns.age", {"role": "quasi", "type": "int"}), "columns.age.type"),
    ("no quasi", with_("columns", {"disease": "sensitive"}), "columns"),
    ("case duplicate", with_("columns.AGE", "quasi"), "columns.AGE"),
    ("no models", with_("models", []), "models"),
    ("unknown model", with_("models.0", {"type": "k-anon", "k": 2}), "models[0].type"),
    ("k zero", with_("models.0", {"type": "k-anonymity", "k": 0}), "models[0].k"),
    ("k text", with_("models.0", {"type": "k-anonymity", "k": "5"}), "models[0].k"),
    ("l missing", with_("models.1", {"type": "distinct-l-diversity", "sensitive": "disease"}), "models[1].l"),
    ("sensitive not sensitive", with_("models.1", {"type": "distinct-l-diversity", "l": 2, "sensitive": "zip"}),
     "models[1].sensitive"),
    ("t above 1", with_("models.1", {"type": "t-closeness", "t": 1.5, "sensitive": "disease"}), "models[1].t"),
    ("bad distance", with_("models.1", {"type": "t-closeness", "t": 0.2, "sensitive": "disease", "distance": "x"}),
     "models[1].distance"),
    ("c not positive", with_("models.1", {"type": "recursive-cl-diversity", "c": 0, "l": 2, "sensitive": "disease"}),
     "models[1].c"),
    ("unknown model option", with_("models.0", {"type": "k-anonymity", "k": 2, "l": 3}), "models[0].l"),
    ("suppression above 1", with_("suppression_limit", 2), "suppression_limit"),
    ("bad null policy", with_("nulls", "ignore"), "nulls"),
    ("bad algorithm", with_("algorithm", {"name": "incognito"}), "algorithm.name"),
    ("levels missing", with_("algorithm", {"name": "full-domain", "levels": {"age": 1}}), "algorithm.levels.zip"),
    ("level not a QI", with_("algorithm", {"name": "full-domain", "levels": {"age": 1, "zip": 0, "disease": 1}}),
     "algorithm.levels.disease"),
    ("levels for mondrian", with_("algorithm", {"name": "mondrian", "levels": {"age": 1}}), "algorithm.levels"),
    ("bad intervals", with_("columns.age", {"role": "quasi", "hierarchy": {"intervals": [10, 5]}}),
     "columns.age.hierarchy.intervals"),
    ("missing hierarchy file", with_("columns.zip", {"role": "quasi", "hierarchy": {"csv": "nope.csv"}}),
     "columns.zip.hierarchy.csv"),
    ("order on a sensitive column", with_("columns.disease", {"role": "sensitive", "order": ["a", "b"]}),
     "columns.disease.order"),
    ("hierarchy on an insensitive column", with_("columns.note", {"role": "insensitive", "hierarchy": {"intervals": [5]}}),
     "columns.note.hierarchy"),
    ("order with duplicates", with_("columns.zip", {"role": "quasi", "order": ["a", "a"]}), "columns.zip.order"),
    ("same output schemas", with_("output", {"schema": "x", "snapshot_schema": "x"}), "output.snapshot_schema"),
    ("source file missing", with_("source", {"path": "nope.csv"}), "source.path"),
    ("catalog without a schema", with_("source", {"table": "t", "catalog": "warehouse"}), "source.catalog"),
    ("unknown engine", with_("engine", {"name": "postgres"}), "engine.name"),
    ("DuckDB setting on spark", with_("engine", {"name": "spark", "threads": 2}), "engine.threads"),
    ("Spark setting on duckdb", with_("engine", {"master": "local[2]"}), "engine.master"),
    ("spark conf not a mapping", with_("engine", {"name": "spark", "conf": ["a=b"]}), "engine.conf"),
    ("empty spark master", with_("engine", {"name": "spark", "master": " "}), "engine.master"),
]


@pytest.mark.parametrize("name,spec,field", CASES, ids=[c[0] for c in CASES])
def test_bad_spec_names_the_field(name, spec, field):
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert err.value.field == field, str(err.value)


def test_good_spec_parses():
    spec = load_spec(GOOD)
    assert [c.name for c in spec.quasi] == ["age", "zip"]
    assert spec.k == 2 and spec.algorithm.name == "mondrian"
    assert str(spec.models[1]) == "distinct-2-diversity on 'disease'"


@pytest.mark.parametrize("text,field", [
    ("release: r\nsource: [t\n", "line 3, column 1"),
    ("release: r\nsource: t\ncolumns:\n  a: quasi\n  a: sensitive\nmodels: [{type: k-anonymity, k: 2}]\n", "line 5"),
    ("- just\n- a list\n", "spec"),
])
def test_malformed_yaml(tmp_path, text, field):
    path = tmp_path / "spec.yml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert err.value.field == field


def test_spec_hash_ignores_key_order():
    reordered = dict(reversed(list(GOOD.items())))
    assert load_spec(GOOD).spec_hash() == load_spec(reordered).spec_hash()


def test_the_engine_setting_is_read_and_not_hashed(tmp_path):
    """``engine: {name: spark, ...}`` says where a release runs (anonymizer.engine.choice),
    never what it publishes: the spec's hash is that of the same spec without it."""
    spark = load_spec(dict(GOOD, engine={"name": "spark", "master": "local[1]", "warehouse": "wh",
                                         "conf": {"spark.driver.memory": "2g"}}), base_dir=tmp_path)
    assert spark.backend.spark and spark.backend.master == "local[1]"
    assert spark.backend.warehouse == str(tmp_path / "wh") and spark.backend.conf == (("spark.driver.memory", "2g"),)
    assert spark.spec_hash() == load_spec(GOOD).spec_hash()
    assert not load_spec(GOOD).backend.spark
