"""The families beyond generalization on local Spark (issue 38): an LGB release (paper 000,
LGB_MDP and LGB_NCP), an MSB anatomy release (paper 002, every greedy key with and
without MSLF) and an identity-reserved release (paper 004, DAnonyIR and GeneIR) give the
same tables as on DuckDB with the same seed: the same groups, buckets, privacy figures and
utility, and the same published rows. Marked ``spark``."""

from __future__ import annotations

import duckdb
import pytest
import yaml

from anonymizer.api import anonymize
from anonymizer.datasets.flagged import experiment_spec, flagged_adult
from anonymizer.datasets.patients import patients
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.conftest import ARX, DATA, flat

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def flagged(spark):
    """Adult with paper 000's semi-sensitive flags, one row in 16 (1,885 rows: LGB's statements grow
    with its groups), in DuckDB and in Spark."""
    con = duckdb.connect()
    flagged_adult(con, "adult_all", density=0.2)
    con.execute("CREATE TABLE adult_flagged AS SELECT * FROM adult_all WHERE __row % 16 = 0")
    copy_from_duckdb(spark, con, "adult_flagged", "adult_flagged")
    return con


def rows(frame) -> list[tuple]:
    return sorted(tuple(str(v) for v in r) for r in frame)


@pytest.fixture(scope="module")
def arx_adult(spark):
    """ARX's Adult (30,162 rows) as ``arx_adult`` in DuckDB and in Spark."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE arx_adult AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    copy_from_duckdb(spark, con, "arx_adult", "arx_adult")
    return con


@pytest.mark.parametrize("algorithm", ["lgb-mdp", "lgb-ncp"])
def test_an_lgb_release_is_the_same_on_spark(spark, flagged, algorithm):
    spec = experiment_spec(algorithm=algorithm, k=5, l=4, t=0.2)
    spec["output"] = {"view": f"lgb_{algorithm.replace('-', '_')}"}
    assert_same(spark, flagged, spec)


@pytest.mark.parametrize("algorithm", ["mbf", "mmdcf-mslf"])
def test_an_msb_release_is_the_same_on_spark(spark, arx_adult, algorithm):
    """The example release (three sensitive attributes with security levels, L_sl-diversity)
    by the baseline greedy and by MSLF with MMDCF's key: both views agree row for row."""
    spec = yaml.safe_load((DATA.parents[1] / "examples" / "adult_msb.yml").read_text())
    name = f"msb_{algorithm.replace('-', '_')}"
    spec.update(release=name, source={"table": "arx_adult"}, output={"view": name},
                suppression_limit=0.5, algorithm={**spec["algorithm"], "name": algorithm, "seed": 7})
    assert_same(spark, arx_adult, spec)
    part = f"published.{spec['output']['view']}_sensitive"
    assert rows(spark.sql(f"SELECT * FROM {part}").collect()) == rows(arx_adult.execute(f"SELECT * FROM {part}").fetchall())


@pytest.fixture(scope="module")
def patient_records(spark):
    """300 generated patients with their diagnosis records in DuckDB and in Spark."""
    con = duckdb.connect()
    patients(con, "patients", individuals=300, seed=1)
    copy_from_duckdb(spark, con, "patients", "patients")
    return con


@pytest.mark.parametrize("algorithm", ["danonyir", "geneir"])
def test_an_identity_reserved_release_is_the_same_on_spark(spark, patient_records, algorithm):
    """The example releases (DAnonyIR under EIR l-diversity, l = 6; GeneIR under IR
    (6,6)-anonymity with taxonomy trees from CSV files and intervals): the same classes,
    suppressed individuals, figures and rows (later versions: tests/privacy/test_versions_spark.py)."""
    path = DATA.parents[1] / "examples" / f"patients_{algorithm}.yml"
    spec = yaml.safe_load(path.read_text())
    for column in spec["columns"].values():   # the taxonomy files, from the example's folder
        if "csv" in (column.get("hierarchy") or {}):
            column["hierarchy"]["csv"] = str((path.parent / column["hierarchy"]["csv"]).resolve())
    spec["algorithm"]["seed"] = 3
    assert_same(spark, patient_records, spec)


def test_danonyir_over_cells_is_the_same_on_spark(spark, patient_records, monkeypatch):
    """DAnonyIR's grid (danonyir/cells.py: cell_assign, cell_live, cell_batch and
    cell_candidates.sql.j2), forced on for the 300 patients: the same release on both engines."""
    from anonymizer.families.identity_reserved.danonyir import cells
    monkeypatch.setattr(cells, "BATCH_FROM", 0)
    monkeypatch.setattr(cells, "RESCAN_FROM", 0)
    spec = yaml.safe_load((DATA.parents[1] / "examples" / "patients_danonyir.yml").read_text())
    spec["algorithm"]["seed"] = 3
    assert_same(spark, patient_records, spec)


def assert_same(spark, con, spec: dict) -> None:
    """The release of ``spec`` on both engines: the same figures and published rows."""
    on_duckdb = anonymize(spec, con)
    on_spark = run_release(load_spec(spec), spark)
    assert (on_spark.classes, on_spark.rows_out, on_spark.suppressed) == \
        (on_duckdb.classes, on_duckdb.rows_out, on_duckdb.suppressed)
    assert [m["model"] for m in on_spark.models] == [m["model"] for m in on_duckdb.models]
    assert [m["figure"] for m in on_spark.models] == pytest.approx([m["figure"] for m in on_duckdb.models])
    for ours, theirs in ((on_spark.measures, on_duckdb.measures), (on_spark.utility, on_duckdb.utility)):
        ours, theirs = flat(ours), flat(theirs)
        assert ours.keys() == theirs.keys()
        for key, value in theirs.items():
            assert ours[key] == (pytest.approx(value, rel=1e-9) if isinstance(value, float) else value), key
    view = f"published.{spec['output']['view']}"
    assert rows(spark.sql(f"SELECT * FROM {view}").collect()) == rows(con.execute(f"SELECT * FROM {view}").fetchall())


def test_the_identity_reserved_constructs_read_alike_on_both_engines(spark):
    """What DAnonyIR's statements needed on Spark, through each engine's execute and cursor:
    the n least by a key (``arg_min(x, key, n)``, a list), a table's row as a value
    (``list(t)``), a 64-bit word of bits (``UBIGINT``, bound at 2^63 and above) and its
    ``bit_count``, and structs read back as dicts."""
    from anonymizer.engine.backend import engine_for
    from anonymizer.families.identity_reserved.danonyir.columns import words
    sql = ("SELECT arg_min(struct_pack(d := d, pid := pid), (d, pid), 4) AS top, list(t) AS everyone, "
           "bit_count($w::UBIGINT | (1::UBIGINT << 62)) AS bits "
           "FROM (VALUES (5, 1.0), (3, 0.5), (9, 0.5), (1, 2.0), (7, 0.25), (2, 1.0)) AS t(pid, d)")
    word = 2 ** 64 - 2 ** 63 + 5   # bits 63, 2 and 0
    answers = []
    for engine in (engine_for(duckdb.connect()), engine_for(spark)):
        (top, everyone, bits), = engine.execute(sql, {"w": word}).fetchall()
        column = engine.execute("SELECT $w::UBIGINT AS w0_0", {"w": word}).fetchnumpy()["w0_0"]
        answers.append((top, sorted(everyone, key=lambda r: r["pid"]), bits, words(column).tolist()))
    assert answers[0] == answers[1]
    assert [r["pid"] for r in answers[0][0]] == [7, 3, 9, 2] and answers[0][2] == 4 and answers[0][3] == [word]
