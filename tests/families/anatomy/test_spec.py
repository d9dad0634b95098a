"""Spec errors of paper 002's MSB releases: each names its field, and nothing is published."""

from __future__ import annotations

import copy

import pytest

from anonymizer import anonymize
from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.conftest import table1_spec


def spec_error(spec: dict) -> SpecError:
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    return err.value


def changed(edit, **kw) -> dict:
    spec = copy.deepcopy(table1_spec(**kw))
    edit(spec)
    return spec


def nothing_published(con) -> bool:
    views = con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0]
    work = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchone()[0]
    audited = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = '_audit'").fetchone()[0]
    audit = con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone()[0] if audited else 0
    return views == work == audit == 0


def test_table1_spec_is_valid():
    spec = load_spec(table1_spec())
    assert spec.algorithm.family.name == "anatomy" and spec.algorithm.seed is None and spec.algorithm.options.batch == 0.2
    physician, disease = spec.sensitive
    assert (physician.security.default, physician.security.values) == (1, {})
    assert (disease.security.default, disease.security.values) == (1, {"Flu": 0, "HIV": 2, "Cancer": 2})


# -- security levels -----------------------------------------------------------------------
@pytest.mark.parametrize("column,role", [("Age", "quasi"), ("SSN", "identifier")])
def test_security_on_a_non_sensitive_column(column, role):
    err = spec_error(changed(lambda s: s["columns"].__setitem__(column, {"role": role, "security": 1})))
    assert err.field == f"columns.{column}.security"
    assert "only sensitive columns" in str(err)


@pytest.mark.parametrize("security,field", [
    (3, "columns.Disease.security"),   # the short form of {default: 3}
    (-1, "columns.Disease.security"),
    (True, "columns.Disease.security"),
    ({"default": 3}, "columns.Disease.security.default"),
    ({"default": 1, "values": {"HIV": 3}}, "columns.Disease.security.values.HIV"),
    ({"default": 1, "values": {"HIV": "high"}}, "columns.Disease.security.values.HIV"),
    ({"default": 1, "values": ["HIV"]}, "columns.Disease.security.values"),
    ({"default": 1, "level": 2}, "columns.Disease.security.level"),
], ids=["3", "-1", "true", "default-3", "value-3", "value-text", "values-list", "unknown-key"])
def test_bad_security_levels(security, field):
    err = spec_error(changed(lambda s: s["columns"]["Disease"].__setitem__("security", security)))
    assert err.field == field
    assert "level" in str(err) or "not an option" in str(err)


def test_override_of_a_value_absent_from_the_data_is_refused_at_run_time(t1):
    spec = changed(lambda s: s["columns"]["Disease"]["security"]["values"].__setitem__("Measles", 2))
    load_spec(spec)   # the spec alone cannot know the data
    with pytest.raises(SpecError) as err:
        anonymize(spec, t1)
    assert err.value.field == "columns.Disease.security.values.Measles"
    assert "Disease" in str(err.value) and "Measles" in str(err.value)
    assert nothing_published(t1)


# -- models and algorithms go together ---------------------------------------------------------
@pytest.mark.parametrize("model", [{"type": "lsl-diversity", "l": [1, 2, 3]}, {"type": "multi-l-diversity", "l": 3}])
@pytest.mark.parametrize("algorithm", [{"name": "mondrian"}, None])
def test_multi_attribute_models_need_an_msb_algorithm(model, algorithm):
    def edit(s):
        s["models"] = [model]
        if algorithm is None:
            del s["algorithm"]     # the default algorithm is mondrian
        else:
            s["algorithm"] = algorithm
    err = spec_error(changed(edit))
    assert err.field == "models[0]"   # the model is valid; the family it needs is named
    assert "mbf" in str(err) and "mondrian" in str(err)


@pytest.mark.parametrize("algorithm", ["mbf", "mmdcf-mslf"])
def test_msb_algorithm_with_k_anonymity(algorithm):
    err = spec_error(changed(lambda s: s.__setitem__("models", [{"type": "k-anonymity", "k": 3}]),
                             algorithm=algorithm))
    assert err.field == "models"
    assert algorithm in str(err) and "lsl-diversity" in str(err)


@pytest.mark.parametrize("other", [
    {"type": "k-anonymity", "k": 2},
    {"type": "multi-l-diversity", "l": 2},
    {"type": "distinct-l-diversity", "l": 2, "sensitive": "Disease"},
    {"type": "lsl-diversity", "l": [1, 2, 3]},
], ids=["k", "multi-l", "distinct-l", "lsl-twice"])
def test_lsl_diversity_with_other_models(other):
    err = spec_error(changed(lambda s: s["models"].append(other)))
    assert err.field.startswith("models")
    assert "only model" in str(err)


@pytest.mark.parametrize("l,problem,item", [
    ([3, 2, 1], "must not decrease", ""),
    ([1, 3, 2], "must not decrease", ""),
    ([1, 2], "three whole numbers", ""),
    ([1, 2, 3, 4], "three whole numbers", ""),
    ([0, 2, 3], "three whole numbers", "[0]"),   # the schema names the item
    ([1, 2.5, 3], "three whole numbers", "[1]"),
    (3, "three whole numbers", ""),
], ids=["decreasing", "dip", "short", "long", "zero", "fraction", "scalar"])
def test_bad_lsl_l(l, problem, item):
    err = spec_error(changed(lambda s: s["models"][0].__setitem__("l", l)))
    assert err.field == f"models[0].l{item}"
    assert problem in str(err)


@pytest.mark.parametrize("l", [0, [3], 2.5])
def test_bad_multi_l(l):
    err = spec_error(changed(lambda s: s.__setitem__("models", [{"type": "multi-l-diversity", "l": l}])))
    assert err.field == "models[0].l"


def test_lsl_equal_levels_are_allowed():
    assert load_spec(changed(lambda s: s["models"][0].__setitem__("l", [2, 2, 2]))).models[0].l == (2, 2, 2)


# -- algorithm options -------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [0, 1.5, "fast", -0.2, True, None], ids=repr)
def test_bad_batch(batch):
    err = spec_error(changed(lambda s: s["algorithm"].__setitem__("batch", batch)))
    assert err.field == "algorithm.batch"
    assert "exact" in str(err)


@pytest.mark.parametrize("batch", ["exact", 1, 0.05])
def test_good_batch(batch):
    assert load_spec(changed(lambda s: s["algorithm"].__setitem__("batch", batch))).algorithm.options.batch == batch


@pytest.mark.parametrize("seed", [-1, "x", 1.5, True], ids=repr)
def test_bad_seed(seed):
    err = spec_error(changed(lambda s: s["algorithm"].__setitem__("seed", seed)))
    assert err.field == "algorithm.seed"


def test_msb_options_do_not_apply_to_other_algorithms():
    spec = changed(lambda s: (s.__setitem__("models", [{"type": "k-anonymity", "k": 2}]),
                              s.__setitem__("algorithm", {"name": "mondrian", "batch": 0.5})))
    assert spec_error(spec).field == "algorithm.batch"


# -- output column names -----------------------------------------------------------------------
@pytest.mark.parametrize("name,role", [("group_id", "insensitive"), ("group_id", "quasi"), ("row_id", "quasi"),
                                       ("count", "sensitive"), ("COUNT", "sensitive"), ("Group_Id", "sensitive")])
def test_column_clashing_with_the_anatomy_output(t1, name, role):
    # a column holding the Physician values under a clashing name; suppression_limit 1.0 keeps
    # the suppression check out of the way (the test below checks the clash comes first)
    t1.execute(f'CREATE TABLE t1x AS SELECT *, Physician AS "{name}" FROM t1')
    spec = changed(lambda s: (s["source"].__setitem__("table", "t1x"), s["columns"].__setitem__(name, role),
                              s.__setitem__("suppression_limit", 1.0)))
    with pytest.raises(SpecError) as err:
        anonymize(spec, t1)
    assert err.value.field == f"columns.{name}"
    assert "clashes" in str(err.value)
    assert nothing_published(t1)


def test_clashing_identifier_is_not_published_so_does_not_clash(t1):
    t1.execute("CREATE TABLE t1x AS SELECT *, SSN AS group_id FROM t1")
    spec = changed(lambda s: (s["source"].__setitem__("table", "t1x"),
                              s["columns"].__setitem__("group_id", "identifier")))
    r = anonymize(spec, t1)
    assert r.rows_out == 9


def test_clash_is_reported_before_the_suppression_limit(t1):
    t1.execute('CREATE TABLE t1x AS SELECT *, \'x\' AS "count" FROM t1')   # one value: 3-diversity suppresses all
    spec = changed(lambda s: (s["source"].__setitem__("table", "t1x"), s["columns"].__setitem__("count", "sensitive")))
    with pytest.raises(SpecError) as err:
        anonymize(spec, t1)
    assert err.value.field == "columns.count"
