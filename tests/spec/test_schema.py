"""The spec's JSON Schema (anonymizer.spec.schema): every shipped spec fits it, a spec's
mistakes are reported all at once with suggestions (anonymizer.spec.validate), `anonymizer
schema` prints a valid draft 2020-12 schema, and `--log-format json` writes JSON lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec
from anonymizer.spec.schema import spec_schema
from tests.cli.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(ROOT.glob("examples/*.yml")) + [ROOT / "anonymizer/data/demo.yml"]
GOOD = {"release": "r", "source": {"table": "t"}, "columns": {"age": {"role": "quasi"}, "disease": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 2}]}


@pytest.mark.parametrize("path", SPECS, ids=[p.name for p in SPECS])
def test_every_shipped_spec_fits_the_schema(path):
    errors = list(Draft202012Validator(spec_schema()).iter_errors(yaml.safe_load(path.read_text())))
    assert not errors, [e.message for e in errors]


def test_three_mistakes_are_reported_at_once():
    spec = {**GOOD, "columns": {"age": {"role": "quasy", "hierarchy": {"intervals": [5, -10]}}, "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 0}], "nulls": "ignore"}
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    fields = [e.field for e in err.value.errors]
    assert fields == ["columns.age.role", "columns.age.hierarchy.intervals[1]", "models[0].k", "nulls"]
    assert err.value.field == "columns.age.role" and err.value.value == "quasy"
    assert str(err.value).startswith("4 errors in the spec: columns.age.role: ")
    assert all(e.field in str(err.value) for e in err.value.errors)


@pytest.mark.parametrize("change,field,suggestion", [
    ({"suppresion_limit": 0.1}, "suppresion_limit", "suppression_limit"),
    ({"algorithm": {"name": "mondrain"}}, "algorithm.name", "mondrian"),
    ({"algorithm": "mondrain"}, "algorithm", "mondrian"),
    ({"models": [{"type": "k-anonimity", "k": 2}]}, "models[0].type", "k-anonymity"),
    ({"algorithm": {"name": "mondrian", "relaxd": True}}, "algorithm.relaxd", "relaxed"),
    ({"columns": {"age": {"role": "quasi", "hierachy": {"intervals": [5]}}}}, "columns.age.hierachy", "hierarchy"),
])
def test_a_misspelling_gets_a_suggestion(change, field, suggestion):
    with pytest.raises(SpecError, match=f"did you mean '{suggestion}'") as err:
        load_spec({**GOOD, **change})
    assert err.value.field == field


def test_what_the_parser_accepts_the_schema_accepts():
    """The spellings the parser reads stay valid: a model type in capitals or with '_'."""
    spec = load_spec({**GOOD, "models": [{"type": "K_Anonymity", "k": 2}],
                      "algorithm": {"name": "full_domain", "levels": {"age": 0}}})
    assert spec.algorithm.name == "full-domain" and str(spec.models[0]) == "2-anonymity"


def test_anonymizer_schema_prints_a_valid_json_schema(tmp_path):
    result = run_cli("schema")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    Draft202012Validator.check_schema(schema)
    assert schema == spec_schema()
    assert "k-anonymity" in schema["properties"]["models"]["items"]["properties"]["type"]["enum"]
    written = tmp_path / "spec.schema.json"
    assert run_cli("schema", "--output", written).exit_code == 0
    assert json.loads(written.read_text()) == schema


def test_the_json_failure_lists_every_error(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("release: r\nsource: t\ncolumns: {a: quasy}\nmodels: [{type: k-anonymity, k: 0}]\n")
    result = run_cli("validate", path, "--json")
    assert result.exit_code == 2
    error = json.loads(result.output.splitlines()[-1])["error"]   # click 8.1 mixes stderr into stdout
    assert [e["field"] for e in error["errors"]] == ["columns.a", "models[0].k"]


def test_log_format_json_writes_json_lines(tmp_path):
    """Progress, the public seed's warning and the failure are JSON lines on stderr."""
    db = tmp_path / "w.duckdb"
    assert run_cli("demo", "--db", db, "--quiet").exit_code == 0
    spec = tmp_path / "spec.yml"
    spec.write_text("release: seeded\nsource: adult\ndefault_role: insensitive\ncolumns: {age: quasi, sex: quasi}\n"
                    "models: [{type: k-anonymity, k: 5}]\nalgorithm: {name: mondrian, seed: 7}\n")
    result = run_cli("--log-format", "json", "run", spec, "--db", db)
    assert result.exit_code == 0, result.output
    # click 8.1 (the floor) mixes stderr into the output: its JSON lines beside the summary
    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) <= {"time", "level", "logger", "message",
                                                                              "phase", "seconds", "rows"}
                         for line in lines)
    # a progress line carries what its message says as fields: the phase, its seconds, its rows
    done = [line for line in lines if line["message"].startswith("algorithm: done in")]
    assert len(done) == 1 and done[0]["phase"] == "algorithm" and done[0]["seconds"] >= 0
    assert any(line.get("phase") == "algorithm" and line.get("rows", 0) > 30000 for line in lines)
    assert " · " not in result.output   # no text progress line
    assert any(line["logger"] == "anonymizer.progress" and line["message"].startswith("release seeded")
               for line in lines)
    assert any(line["level"] == "WARNING" and "algorithm.seed 7" in line["message"] for line in lines)
    failed = run_cli("--log-format", "json", "validate", tmp_path / "missing.yml")
    assert failed.exit_code == 2
    assert json.loads(failed.output.splitlines()[-1])["level"] == "ERROR"


def test_log_format_text_keeps_todays_lines(tmp_path):
    result = run_cli("validate", tmp_path / "missing.yml")
    assert result.exit_code == 2 and result.output.startswith("error: spec: no such file")


def test_every_model_type_describes_itself_from_its_class():
    """Each spec type names the model class it builds, whose docstring the schema shows (a
    text given in its place would show str's own docstring)."""
    from anonymizer.models.catalog import MODEL_TYPES
    for kind, how in MODEL_TYPES.items():
        assert how.model is not None and how.doc and not how.doc.startswith("str("), kind
