"""One loss for every tool's published table (:mod:`anonymizer.bench.published_loss`): on our
own releases it is the release's ``utility["loss"]``, whatever the labels (hierarchy nodes at
one level or at each class's, value sets and ranges), with suppressed rows and with values the
hierarchies hold that the data lacks."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import sqlglot

from anonymizer import anonymize
from anonymizer.bench import arx
from anonymizer.bench.arx import QIS, Config, export_published
from anonymizer.bench.published_loss import published_loss
from anonymizer.engine.rendering import render
from anonymizer.errors import DataError

HIERARCHIES = {q: arx._data(f"adult_hierarchy_{q}.csv") for q in QIS}


@pytest.fixture(scope="module")
def slice_csv(tmp_path_factory) -> Path:
    """The first 2,000 rows of ARX's Adult (ages 90 and some countries absent)."""
    path = tmp_path_factory.mktemp("loss") / "adult2000.csv"
    with duckdb.connect() as con:
        con.execute("COPY (SELECT * FROM read_csv($src, delim = ';', header = true) LIMIT 2000) "
                    "TO $out (FORMAT csv, HEADER true, DELIMITER ';')",
                    {"src": str(arx._data("adult.csv.gz")), "out": str(path)})
    return path


@pytest.mark.parametrize("models, algorithm, limit", [
    pytest.param([{"type": "k-anonymity", "k": 5}], {"name": "optimal"}, 0.02, id="full-domain-nodes-suppressed"),
    pytest.param([{"type": "k-anonymity", "k": 5}], arx.OURS_LOCAL, 0.0, id="value-sets-and-ranges"),
    pytest.param([{"type": "k-anonymity", "k": 5}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}],
                 {"name": "mondrian"}, 0.0, id="nodes-per-class"),
])
def test_the_measure_is_the_releases_loss(slice_csv, tmp_path, models, algorithm, limit):
    spec = Config("case", "local", models, algorithm, limit).spec()
    spec["source"]["path"] = str(slice_csv)
    db = tmp_path / "r.duckdb"
    with duckdb.connect(str(db)) as con:
        result = anonymize(spec, con)
    published = export_published(db, Config("case", "local", models, algorithm).view, tmp_path / "ours.csv")
    measured = published_loss(published, slice_csv, HIERARCHIES, delimiter=",")
    assert measured["suppressed"] == result.suppressed and measured["rows"] == 2000
    assert measured["loss"] == pytest.approx(result.utility["loss"], abs=1e-12)


def test_a_known_table(tmp_path):
    source = tmp_path / "s.csv"
    source.write_text("age;sex\n20;F\n21;M\n22;F\n23;M\n")
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    out = tmp_path / "out.csv"
    # ranges, a hierarchy node, a value set, a value; one suppressed row (ARX's _outlier)
    out.write_text("age;sex;_outlier\n[20, 21];*;0\n[20, 21];{F, M};0\n22;F;0\n*;*;1\n")
    got = published_loss(out, source, {"age": None, "sex": tmp_path / "sex.csv"})
    # age: 1/3, 1/3, 0 and 1 (suppressed); sex: 1, 1, 0 and 1
    assert got["loss"] == pytest.approx((2 / 3 + 1 + 2 + 1) / 8) and got["suppressed"] == 1
    out.write_text("age;sex\n[20, 21];F\nthirty;M\n")
    with pytest.raises(DataError, match="'thirty' of column 'age'"):
        published_loss(out, source, {"age": None, "sex": None})


def test_its_statements_parse():
    text = render("bench/published_loss/loss.sql.j2", published='"p"', source='"s"', outlier='"_outlier"',
                  qis=[{"col": '"age"', "hier": None}, {"col": '"sex"', "hier": '"h"'}])
    sqlglot.parse_one(text, read="duckdb")
    for name in ("text_csv", "hierarchy_nodes"):
        sqlglot.parse_one(render(f"bench/published_loss/{name}.sql.j2"), read="duckdb")
