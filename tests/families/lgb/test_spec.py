"""Spec and data errors of paper 000's LGB releases: each names its field or column, and
nothing is published."""

from __future__ import annotations

import copy

import pytest

from anonymizer import anonymize
from anonymizer.errors import DataError, PrivacyCheckFailed, SpecError
from anonymizer.reproduce.p000_lgb.worked_example import fig1_spec
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.test_spec import nothing_published


def changed(edit, **kw) -> dict:
    spec = copy.deepcopy(fig1_spec(**kw))
    edit(spec)
    return spec


def test_fig1_spec_is_valid():
    spec = load_spec(fig1_spec())
    assert spec.algorithm.family.name == "lgb" and [c.flag for c in spec.quasi] == ["age_flag", "gender_flag", "zip_flag"]


@pytest.mark.parametrize("edit, field, words", [
    (lambda s: s["columns"].update(disease={"role": "sensitive", "flag": "disease_flag"}),
     "columns.disease.flag", "only quasi columns"),
    (lambda s: s["columns"].update(age_flag="quasi"), "columns.age_flag", "is the flag of 'age'"),
    (lambda s: s["columns"]["zip"].update(flag="age_flag"), "columns", "same flag column"),
    (lambda s: s.update(algorithm={"name": "mondrian"}), "columns.age.flag", "read by the lgb-mdp, lgb-ncp algorithms"),
    (lambda s: s.update(models=[{"type": "l-unique", "l": 2}]), "models", "exactly one k-anonymity"),
    (lambda s: s.update(models=[{"type": "k-anonymity", "k": 2}]), "models", "no bucket principle"),
    (lambda s: s["models"].append({"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}),
     "models[2]", "l-unique, entropy-l-diversity or t-closeness"),
    (lambda s: s["models"].append({"type": "l-unique", "l": 3}), "models[2]", "only one l-unique"),
    (lambda s: s["models"].append({"type": "l-unique", "l": 2, "sensitive": "id"}), "models[2].sensitive",
     "role 'sensitive' or a flag"),
    (lambda s: s["models"].extend([{"type": "t-closeness", "t": 0.2, "sensitive": "age"},
                                   {"type": "l-unique", "l": 2, "sensitive": "age"}]),
     "models[3].sensitive", "two bucket principles"),
    (lambda s: s.update(algorithm={"name": "lgb-mdp", "batch": 0.1}), "algorithm.batch", "does not apply"),
    (lambda s: s.update(algorithm={"name": "lgb-mdp", "objective": "set"}), "algorithm.objective", "does not apply"),
    (lambda s: s.update(algorithm={"name": "lgb-ncp", "objective": "leaves"}), "algorithm.objective",
     "one of range, set"),
])
def test_spec_errors_name_the_field(edit, field, words):
    with pytest.raises(SpecError) as err:
        load_spec(changed(edit))
    assert err.value.field == field and words in str(err.value)


def test_lgb_ncp_objective():
    """LGB_NCP's objective (paper 000 Algorithm 4 minimizes NCP, Sec. 3.2.2): the code range by
    default, the value set the table publishes with ``set``."""
    assert load_spec(fig1_spec("lgb-ncp")).algorithm.options.objective == "range"
    spec = changed(lambda s: s["algorithm"].update(objective="set"), algorithm="lgb-ncp")
    assert load_spec(spec).algorithm.options.objective == "set"
    for algorithm, value, words in (("lgb-ncp", "leaves", "must be one of range, set"),
                                    ("lgb-ncp", float("nan"), "must be one of range, set"),
                                    ("lgb-mdp", "set", "does not apply to lgb-mdp")):
        bad = changed(lambda s: s["algorithm"].update(objective=value), algorithm=algorithm)
        with pytest.raises(SpecError, match=words) as err:
            load_spec(bad)
        assert err.value.field == "algorithm.objective"


def test_l_unique_needs_an_lgb_algorithm():
    spec = {"release": "r", "source": "t", "columns": {"a": "quasi", "d": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 2}, {"type": "l-unique", "l": 2}]}
    with pytest.raises(SpecError, match="l-unique is not a model of mondrian.*reached by lgb-mdp, lgb-ncp"):
        load_spec(spec)


@pytest.mark.parametrize("sql, field, words", [
    ("ALTER TABLE patients DROP COLUMN zip_flag", "columns.zip.flag", "is not a column"),
    ("ALTER TABLE patients ALTER zip_flag TYPE INTEGER", "columns.zip.flag", "must be a BOOLEAN column"),
])
def test_flag_columns_are_checked_against_the_table(fig1, sql, field, words):
    fig1.execute(sql)
    with pytest.raises(SpecError) as err:
        anonymize(fig1_spec(), fig1)
    assert err.value.field == field and words in str(err.value)
    assert nothing_published(fig1)


def test_null_flags_are_refused(fig1):
    fig1.execute("UPDATE patients SET age_flag = NULL WHERE id = 1001")
    with pytest.raises(DataError, match="age_flag"):
        anonymize(fig1_spec(), fig1)
    assert nothing_published(fig1)


def test_an_attribute_that_cannot_be_l_unique_stops_the_release(fig1):
    """Disease holds 8 values, Bronchitis and Pneumonia twice: not 5-eligible (2 * 5 > 8)."""
    spec = changed(lambda s: s["models"].append({"type": "l-unique", "l": 5, "sensitive": "disease"}))
    with pytest.raises(PrivacyCheckFailed, match="'disease' as a whole fails it"):
        anonymize(spec, fig1)
    assert nothing_published(fig1)


def test_subsets_under_k_are_suppressed_within_the_limit(fig1):
    """With k = 3 the subsets {1001, 1002} and {1003, 1006} (2 rows each) cannot form a
    group: 4 of 8 rows are suppressed, which a limit of 0.5 allows and the default refuses."""
    with pytest.raises(PrivacyCheckFailed, match="suppression limit"):
        anonymize(fig1_spec(k=3), fig1)
    assert nothing_published(fig1)
    result = anonymize(dict(fig1_spec(k=3), suppression_limit=0.5), fig1)
    assert result.suppressed == 4 and result.rows_out == 4
    assert result.algorithm["subsets_suppressed"] == 2


def test_output_names_must_not_clash(fig1):
    fig1.execute('ALTER TABLE patients ADD COLUMN "age_bid" INTEGER DEFAULT 0')
    spec = changed(lambda s: s["columns"].update(age_bid="insensitive"))
    with pytest.raises(SpecError, match="clashes with a column of the LGB table"):
        anonymize(spec, fig1)
    assert nothing_published(fig1)
