"""A spec's files (issue 38): a local file or a folder of Parquet parts, named by a path or a
``file://`` URI; a URI of another scheme, Spark reader options and a Spark table layout
(``output.format``, ``output.partition_by``) are Spark's, refused on DuckDB before any work
with a message that says so."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.errors import SpecError, UnsupportedError
from anonymizer.spec.parse import load_spec

ROWS = ("SELECT 18 + (i * 37) % 60 AS age, (i * 13) % 16 AS edu, ['flu', 'cold', 'hiv', 'ulcer'][1 + (i * 7) % 4] "
        "AS disease FROM range({start}, 300, {step}) t(i)")


def spec(path, **source) -> dict:
    return {"release": "people", "source": {"path": str(path), "table": "people", **source},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "edu": {"role": "quasi", "type": "numeric"},
                        "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 5}], "algorithm": {"name": "mondrian", "seed": 1}}


@pytest.fixture
def files(tmp_path):
    """The same 300 rows as one Parquet file and as a folder of three parts."""
    con = duckdb.connect()
    con.sql(ROWS.format(start=0, step=1)).write_parquet(str(tmp_path / "people.parquet"))
    (tmp_path / "parts").mkdir()
    for i in range(3):
        con.sql(ROWS.format(start=i, step=3)).write_parquet(str(tmp_path / "parts" / f"part-{i:05d}.snappy.parquet"))
    return tmp_path


def published(result) -> list:
    return sorted(result.con.execute(f"SELECT * FROM {result.view}").fetchall())


def test_a_folder_of_parts_by_uri_publishes_what_the_one_file_does(files):
    one = anonymize(spec(files / "people.parquet"))
    folder = anonymize(spec((files / "parts").as_uri(), format="parquet"))
    assert (folder.rows_out, folder.classes) == (one.rows_out, one.classes) == (300, one.classes)
    assert published(folder) == published(one)
    assert load_spec(spec((files / "parts").as_uri())).source.reader == "parquet"   # a folder: Parquet parts
    duckdb.connect().execute(f"COPY (SELECT * FROM '{files / 'people.parquet'}') TO '{files / 'people.json'}'")
    assert published(anonymize(spec(files / "people.json"))) == published(one)   # JSON lines, by the ending


@pytest.mark.parametrize("output", [{"format": "delta"}, {"partition_by": "disease"}])
def test_a_spark_table_layout_is_refused_on_duckdb_before_any_work(files, output):
    con = duckdb.connect()
    with pytest.raises(UnsupportedError, match="output.format and output.partition_by lay out a Spark"):
        anonymize({**spec(files / "people.parquet"), "output": {"view": "people", **output}}, con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchone()[0] == 0


@pytest.mark.parametrize("source, error, message", [
    ({"path": "s3a://bucket/people/", "format": "parquet"}, UnsupportedError, "the URI s3a://bucket/people/: Spark"),
    ({"options": {"mergeSchema": "true"}}, UnsupportedError, r"reader options \(source.options\): Spark"),
    ({"format": "delta"}, UnsupportedError, "format delta: Spark"),
])
def test_what_only_spark_reads_is_refused_on_duckdb(files, source, error, message):
    given = spec(files / "parts", **{k: v for k, v in source.items() if k != "path"})
    given["source"]["path"] = source.get("path", given["source"]["path"])
    with pytest.raises(error, match=message):
        anonymize(given, duckdb.connect())


def test_a_file_whose_name_hides_its_format_needs_one(files):
    (files / "people.dat").write_bytes((files / "people.parquet").read_bytes())
    with pytest.raises(SpecError, match="source.format: is needed: people.dat"):
        load_spec(spec(files / "people.dat"))
    assert anonymize(spec(files / "people.dat", format="parquet")).rows_out == 300
    for nonsense in ("parquet; DROP TABLE t", float("nan"), ""):
        with pytest.raises(SpecError, match="source.format: must (be a format name|be a string|not be empty)"):
            load_spec(spec(files / "people.dat", format=nonsense))
    with pytest.raises(SpecError, match="source.path: no such file or folder"):
        load_spec(spec(files / "missing"))


def test_a_hierarchy_uri_is_kept_as_written_for_spark(files):
    """``s3a://b/x`` stays a URI (a path would collapse its ``//``); a ``file://`` URI names a
    local file, which must exist."""
    given = spec(files / "people.parquet")
    given["columns"]["disease"] = "sensitive"
    given["columns"]["edu"] = {"role": "quasi", "hierarchy": {"csv": "s3a://bucket/trees/edu.csv"}}
    hierarchy = load_spec(given).columns[1].hierarchy
    assert (hierarchy.uri, hierarchy.path, hierarchy.location) == ("s3a://bucket/trees/edu.csv", None,
                                                                   "s3a://bucket/trees/edu.csv")
    given["columns"]["edu"]["hierarchy"]["csv"] = (files / "edu.csv").as_uri()
    with pytest.raises(SpecError, match="no such file"):
        load_spec(given)
