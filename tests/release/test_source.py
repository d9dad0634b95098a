"""What a release reads: a file with a header and no rows is refused as empty, and a release
name is bound to the table its versions come from."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer import anonymize
from anonymizer.errors import DataError, SpecError

SPEC = {"release": "r", "columns": {"a": {"role": "quasi", "type": "numeric"}, "s": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 2}], "history": "independent"}


def test_a_header_only_file_is_refused_as_empty(con, tmp_path):
    """Before: 'columns.a.type: is numeric but the column is VARCHAR' (an empty file's types)."""
    path = tmp_path / "people.csv"
    path.write_text("a,s\n")
    with pytest.raises(DataError, match="has no rows"):
        anonymize({**SPEC, "source": {"path": str(path)}}, con)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0] == 0


def test_a_release_name_stays_with_its_source_table(con):
    """Before: v2 was published from the other table without a word."""
    con.execute("CREATE TABLE t AS SELECT (i % 50)::INT AS a, (i % 3)::VARCHAR AS s FROM range(200) AS r(i)")
    con.execute("CREATE TABLE u AS SELECT (i % 40)::INT AS a, (i % 3)::VARCHAR AS s FROM range(200) AS r(i)")
    assert anonymize({**SPEC, "source": {"table": "t"}}, con).version == 1
    with pytest.raises(SpecError, match=r'release r was published from "t" \(v1\), and this spec reads "u"'):
        anonymize({**SPEC, "source": {"table": "u"}}, con)
    assert con.execute("SELECT list(version) FROM _anon_releases._audit").fetchone()[0] == [1]
    assert anonymize({**SPEC, "source": {"table": "u"}}, con, force=True).version == 2   # the table moved
    assert anonymize({**SPEC, "source": {"table": "u"}, "models": [{"type": "k-anonymity", "k": 3}]}, con).version == 3


def test_a_source_named_catalog_schema_table_is_read_in_that_database(con, tmp_path):
    """Before: a source could name a schema of the session's default database only."""
    con.execute(f"ATTACH '{tmp_path / 'warehouse.duckdb'}' AS warehouse")
    con.execute("CREATE SCHEMA warehouse.sales")
    con.execute("CREATE TABLE warehouse.sales.t AS SELECT (i % 50)::INT AS a, (i % 3)::VARCHAR AS s FROM range(200) r(i)")
    result = anonymize({**SPEC, "source": {"table": "t", "schema": "sales", "catalog": "warehouse"}}, con)
    assert result.version == 1 and result.classes >= 1
    assert con.execute("SELECT count(*) FROM published.r").fetchone()[0] == 200
    assert con.execute("SELECT count(*) FROM warehouse.sales.t").fetchone()[0] == 200   # the source is as it was


@pytest.mark.parametrize("name,content,reason", [
    ("bad.parquet", b"not parquet", r"cannot be read as parquet: File '.*' too small to be a Parquet file \("),
    ("latin.csv", b"a,s\n\xff\xfe1,x\n", r"cannot be read as csv: .*not utf-8 encoded"),
])
def test_an_unreadable_file_is_named_by_its_field(con, tmp_path, name, content, reason):
    """Before: exit 4 as our bug, 'template prepare/load_file.sql.j2: InvalidInputException ...'."""
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SpecError, match=reason) as err:
        anonymize({**SPEC, "source": {"path": str(path)}}, con)
    assert err.value.field == "source.path" and "template" not in str(err.value) and "LINE" not in str(err.value)


def test_a_missing_column_names_the_file_not_the_work_table(con, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("b,s\n1,x\n")
    with pytest.raises(SpecError, match=r"columns.a: is not a column of the file .*people.csv \(columns: b, s\)"):
        anonymize({**SPEC, "source": {"path": str(path)}}, con)


def test_the_published_view_comes_back_as_a_frame_of_its_connection(con, tmp_path):
    """``result.frame()``: the view as a relation of the connection it went to; a dry run has
    none, and a view in ``output.database`` is read from a connection to that file."""
    con.execute("CREATE TABLE t AS SELECT (i % 50)::INT AS a, (i % 3)::VARCHAR AS s FROM range(200) AS r(i)")
    result = anonymize({**SPEC, "source": {"table": "t"}}, con)
    frame = result.frame().df()
    assert len(frame) == result.rows_out == 200 and set(frame.columns) >= {"a", "s"}
    with pytest.raises(ValueError, match="was a dry run: it published no view"):
        anonymize({**SPEC, "release": "dry", "source": {"table": "t"}}, con, publish=False).frame()
    out = tmp_path / "out.duckdb"
    apart = anonymize({**SPEC, "release": "apart", "source": {"table": "t"}, "output": {"database": str(out)}}, con)
    with pytest.raises(ValueError, match=f"a connection to {out}"):
        apart.frame()
    assert len(apart.frame(duckdb.connect(str(out))).df()) == 200
