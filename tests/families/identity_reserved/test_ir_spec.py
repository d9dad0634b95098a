"""Spec and data errors of paper 004's identity-reserved releases: each names its field or
column, and nothing is published."""

from __future__ import annotations

import copy

import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.cli import main
from anonymizer.errors import DataError, SpecError
from anonymizer.reproduce.p004_identity_reserved.worked_example import load_table2, table2_spec
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.test_spec import nothing_published

EL3 = {"type": "eir-l-diversity", "l": 3, "sensitive": "disease"}


def changed(edit, model=EL3) -> dict:
    spec = copy.deepcopy(table2_spec(model))
    edit(spec)
    return spec


def spec_error(spec: dict) -> SpecError:
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    return err.value


def test_table2_spec_is_valid():
    spec = load_spec(table2_spec(EL3))
    assert spec.algorithm.family.name == "identity_reserved" and spec.algorithm.options.renumber == "appearance"
    assert [c.name for c in spec.by_role("individual")] == ["name"]
    assert next(c for c in spec.columns if c.name == "age").domain == (30.0, 39.0)


@pytest.mark.parametrize("edit, field", [
    (lambda s: s["columns"].__setitem__("name", {"role": "identifier"}), "columns"),
    (lambda s: s["columns"].__setitem__("record", {"role": "individual"}), "columns.name.role"),
    (lambda s: s["columns"].__setitem__("record", {"role": "sensitive"}), "columns"),
    (lambda s: s["models"].append({"type": "k-anonymity", "k": 2}), "models[1]"),
    (lambda s: s["models"].append({"type": "ir-k-anonymity", "k": 2}), "models"),
    (lambda s: s.__setitem__("algorithm", {"name": "mondrian"}), "models[0]"),
    (lambda s: (s.__setitem__("algorithm", {"name": "mondrian"}), s.__setitem__("models", [{"type": "k-anonymity",
                                                                                            "k": 2}])),
     "columns.name.role"),
    (lambda s: s["algorithm"].__setitem__("renumber", "sorted"), "algorithm.renumber"),
    (lambda s: s["algorithm"].__setitem__("seed", -1), "algorithm.seed"),
    (lambda s: s["algorithm"].__setitem__("seed", None), "algorithm.renumber"),   # appearance leaks row order
    (lambda s: s["algorithm"].__setitem__("batch", 0.5), "algorithm.batch"),
    (lambda s: s["columns"]["postcode"].__setitem__("domain", [1, 2]), "columns.postcode.domain"),
    (lambda s: s["columns"]["age"].__setitem__("domain", [39, 30]), "columns.age.domain"),
    (lambda s: s["columns"]["disease"].__setitem__("domain", [0, 1]), "columns.disease.domain"),
])
def test_spec_errors_name_the_field(edit, field):
    err = spec_error(changed(edit))
    assert err.field == field, str(err)


@pytest.mark.parametrize("entry, field", [
    ({"type": "eir-l-diversity", "l": 0, "sensitive": "disease"}, "models[0].l"),
    ({"type": "ir-alpha-beta-anonymity", "alpha": 1.5, "beta": 0.5, "sensitive": "disease"}, "models[0].alpha"),
    ({"type": "eir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0, "sensitive": "disease"}, "models[0].beta"),
    ({"type": "ir-kl-anonymity", "k": 2, "l": 2, "sensitive": "name"}, "models[0].sensitive"),
])
def test_model_errors_name_the_field(entry, field):
    err = spec_error(table2_spec(entry))
    assert err.field == field, str(err)


def test_domain_that_does_not_cover_the_data_publishes_nothing(con):
    load_table2(con)
    spec = changed(lambda s: s["columns"]["age"].__setitem__("domain", [34, 39]))
    with pytest.raises(SpecError) as err:
        anonymize(spec, con=con)
    assert err.value.field == "columns.age.domain"
    assert nothing_published(con)


def test_an_individual_with_two_ages_is_refused(con):
    load_table2(con)
    con.execute("UPDATE patients_table2 SET age = 37 WHERE record = 'r2'")
    with pytest.raises(DataError, match="different values of quasi-identifier 'age'"):
        anonymize(table2_spec(EL3), con=con)
    assert nothing_published(con)


def test_a_missing_individual_is_refused(con):
    load_table2(con)
    con.execute("UPDATE patients_table2 SET name = NULL WHERE record = 'r2'")
    with pytest.raises(DataError, match="name"):
        anonymize(table2_spec(EL3), con=con)
    assert nothing_published(con)


def test_cli_creates_table2_and_runs_the_example(tmp_path):
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    made = runner.invoke(main, ["reproduce", "data", "table2", "--db", db])
    assert made.exit_code == 0, made.output
    ran = runner.invoke(main, ["run", "examples/table2_eir.yml", "--db", db, "--json"])
    assert ran.exit_code == 0, ran.output
    assert '"classes": 2' in ran.output and "EIR 3-diversity" in ran.output
    patients = runner.invoke(main, ["reproduce", "data", "patients", "--individuals", "50", "--db", db])
    assert patients.exit_code == 0 and "50 patients" in patients.output
