"""anonymizer.dbt's release of an ``anonymized`` model (:func:`run_model`, which the dbt
plugin calls), on a plain DuckDB connection, without dbt: the spec it builds from the
model's config (:func:`model_spec`), what it publishes and records, and that the model's
rows never outlive it. The whole materialization, under dbt, is tested in ``tests/dbt/``."""

from __future__ import annotations

import json

import duckdb
import pytest

from anonymizer.dbt import PRIVACY_TABLE, ReleaseFailed, model_spec, run_model
from anonymizer.errors import SpecError

SPEC = {"release": "toy", "columns": {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [10]}},
                                      "disease": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 4}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}],
        "algorithm": {"name": "full-domain", "levels": {"age": 1}}}


@pytest.fixture
def warehouse():
    """A database with the schema ``marts`` and the model's rows in ``marts.toy__anon_source``
    (ages 21-24 and 41-44: two classes of four at 10-year bands, each 2-diverse)."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA marts")
    con.execute("""CREATE TABLE marts.toy__anon_source AS SELECT * FROM (VALUES (21, 'flu'), (22, 'cold'), (23, 'flu'),
                   (24, 'hiv'), (41, 'cold'), (42, 'flu'), (43, 'hiv'), (44, 'flu')) AS t(age, disease)""")
    yield con
    con.close()


def test_the_spec_reads_the_models_rows_and_publishes_at_the_models_relation(tmp_path):
    (tmp_path / "releases").mkdir()
    (tmp_path / "releases" / "toy.yml").write_text(json.dumps(SPEC))   # JSON is YAML
    from_file = model_spec("releases/toy.yml", tmp_path, "marts", "toy__anon_source", "toy")
    inline = model_spec(SPEC, tmp_path, "marts", "toy__anon_source", "toy")
    for spec in (from_file, inline):
        assert (spec.source.schema, spec.source.table) == ("marts", "toy__anon_source")
        assert (spec.output.schema, spec.output.view) == ("marts", "toy")
    assert from_file.spec_hash() == inline.spec_hash()


@pytest.mark.parametrize(("extra", "field"), [
    ({"source": {"table": "stg"}}, "source"),
    ({"output": {"view": "v"}}, "output.view"),
    ({"output": {"schema": "published", "snapshot_schema": "s"}}, "output.schema"),
    ({"output": {"database": "other.duckdb"}}, "output.database")])
def test_a_spec_naming_the_source_or_the_view_is_refused(tmp_path, extra, field):
    with pytest.raises(SpecError, match="the model's own relation marts.toy") as caught:
        model_spec({**SPEC, **extra}, tmp_path, "marts", "toy__anon_source", "toy")
    assert caught.value.field == field


def test_a_spec_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(SpecError, match="cannot read the release spec .*missing.yml"):
        model_spec("missing.yml", tmp_path, "marts", "s", "toy")
    with pytest.raises(SpecError, match="must name a YAML release spec"):
        model_spec(5, tmp_path, "marts", "s", "toy")   # type: ignore[arg-type]


def test_run_model_publishes_records_the_figures_and_drops_the_rows(warehouse, tmp_path):
    result = run_model(warehouse, SPEC, tmp_path, "marts", "toy__anon_source", "toy")
    assert (result.release, result.version, result.rows_out) == ("toy", 1, 8)
    assert warehouse.execute("SELECT DISTINCT age FROM marts.toy ORDER BY 1").fetchall() == [("[20, 29]",), ("[40, 49]",)]
    assert warehouse.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'toy__anon_source'").fetchone() == (0,)
    ((view, release, version, privacy),) = warehouse.execute(f"SELECT * FROM marts.{PRIVACY_TABLE}").fetchall()
    assert (view, release, version) == ("toy", "toy", 1)
    assert json.loads(privacy) == {"view": '"marts"."toy"', "quasi_identifiers": ["age"], "sensitive": ["disease"],
                                   "k": 4, "l_diversity": [{"kind": "distinct", "sensitive": "disease", "l": 2, "c": None}]}


def test_a_failed_release_publishes_nothing_and_drops_the_rows(warehouse, tmp_path):
    spec = {**SPEC, "models": [{"type": "k-anonymity", "k": 5}]}
    with pytest.raises(ReleaseFailed, match=r"^release toy: 5-anonymity does not hold: .*nothing was published; "
                                            r"marts\.toy does not exist yet$"):
        run_model(warehouse, spec, tmp_path, "marts", "toy__anon_source", "toy")
    assert warehouse.execute("SELECT table_name FROM duckdb_tables()").fetchall() == []
    assert warehouse.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall() == []
