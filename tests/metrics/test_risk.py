"""Re-identification risk (anonymizer.metrics.risk) against ARX's definitions
(org.deidentifier.arx.risk.RiskModelSampleSummary): a worked example computed by hand, random
tables against a pandas transcription of ARX's loops, per-record risk, and ``anonymizer check``."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from anonymizer.errors import DataError, SpecError
from anonymizer.measure import measure_table, record_risk

# The worked example. Sample: 10 records in 4 classes over (age, sex), ages already
# generalized to decades; population: the sample and 20 more records, at the same
# generalization (30 records, one class the sample does not have).
#   class           f (sample)   F (population)
#   (30-39, F)      4            8
#   (30-39, M)      3            6
#   (40-49, F)      2            5
#   (40-49, M)      1            2
#   (50-59, F)      -            9
SAMPLE = [("30-39", "F", 4), ("30-39", "M", 3), ("40-49", "F", 2), ("40-49", "M", 1)]
EXTRA = [("30-39", "F", 4), ("30-39", "M", 3), ("40-49", "F", 3), ("40-49", "M", 1), ("50-59", "F", 9)]


def _rows(spec):
    return " UNION ALL ".join(f"SELECT '{a}' AS age, '{s}' AS sex, range AS i FROM range({n})" for a, s, n in spec)


@pytest.fixture
def worked(con):
    con.execute(f"CREATE TABLE sample AS {_rows(SAMPLE)}")
    con.execute(f"CREATE TABLE population AS SELECT age, sex FROM sample UNION ALL SELECT age, sex FROM ({_rows(EXTRA)})")
    assert con.execute("SELECT (SELECT count(*) FROM sample), (SELECT count(*) FROM population)").fetchone() == (10, 30)
    return con


def test_worked_example_prosecutor(worked):
    risk = measure_table(worked, "sample", ["age", "sex"], threshold=0.3)["risk"]
    p = risk["prosecutor"]
    assert p["highest"] == 1.0                          # 1 / min f = 1/1
    assert p["lowest"] == 0.25                          # 1 / max f = 1/4
    assert p["average"] == pytest.approx(0.4)           # J / n = 4 / 10
    assert p["records_at_risk"] == 6                    # 1/f > 0.3 for f = 3, 2, 1: 3 + 2 + 1 records
    assert p["classes_at_risk"] == 3                    # (1/4 = 0.25 is not above 0.3)
    assert p["share_at_risk"] == pytest.approx(0.6)     # 6 / 10
    # the keys the prosecutor has always had stay at the top
    assert (risk["highest"], risk["average"], risk["threshold"], risk["records_at_risk"], risk["share_at_risk"]) == \
        (1.0, p["average"], 0.3, 6, p["share_at_risk"])


def test_worked_example_journalist_and_marketer(worked):
    risk = measure_table(worked, "sample", ["age", "sex"], population="population")["risk"]
    j, m = risk["journalist"], risk["marketer"]
    assert j["population"] == m["population"] == "population"
    assert j["highest"] == 0.5                          # 1 / min F = 1/2
    assert j["lowest"] == 0.125                         # 1 / max F over the sample's classes = 1/8
    # ARX's rC = max(rC1, rC2): rC1 = J / sum F = 4 / (8 + 6 + 5 + 2) = 4/21 = 0.1905;
    # rC2 = sum(f/F) / n = (4/8 + 3/6 + 2/5 + 1/2) / 10 = 1.9 / 10 = 0.19. rC1 wins.
    assert j["average"] == pytest.approx(4 / 21)
    # 1/F > 0.2 only for F = 2 (1/5 = 0.2 is not above 0.2): the class of 1 sample record
    assert (j["records_at_risk"], j["classes_at_risk"], j["share_at_risk"]) == (1, 1, pytest.approx(0.1))
    assert m["average"] == pytest.approx(0.19)          # rC2 above: the expected share re-identified
    # the prosecutor ignores the population: 1/f > 0.2 for every class (f <= 4)
    assert (risk["prosecutor"]["records_at_risk"], risk["prosecutor"]["classes_at_risk"]) == (10, 4)


def test_worked_example_without_population_is_the_sample(worked):
    """ARX without a superset takes population = sample: F = f, so the journalist's figures
    are the prosecutor's and the marketer's is J/n = 0.4."""
    risk = measure_table(worked, "sample", ["age", "sex"])["risk"]
    journalist = dict(risk["journalist"])
    assert journalist.pop("population") == "sample"
    assert journalist == risk["prosecutor"]
    assert risk["marketer"] == {"population": "sample", "average": pytest.approx(0.4)}


def test_worked_example_risky_classes_and_records(worked):
    risk = measure_table(worked, "sample", ["age", "sex"], population="population", threshold=0.3,
                         risky_classes=2)["risk"]
    assert risk["risky_classes"] == [         # f = 1, then f = 2 (3 classes above 0.3, 2 listed)
        {"class": {"age": "40-49", "sex": "M"}, "size": 1, "population_size": 2, "prosecutor_risk": 1.0,
         "journalist_risk": 0.5},
        {"class": {"age": "40-49", "sex": "F"}, "size": 2, "population_size": 5, "prosecutor_risk": 0.5,
         "journalist_risk": 0.2}]
    per_row = record_risk(worked, "sample", ["age", "sex"], population="population")
    got = per_row.aggregate("age, sex, count(*) AS n, min(prosecutor_risk) AS p, max(prosecutor_risk) AS p2, "
                            "min(journalist_risk) AS j, max(journalist_risk) AS j2", "age, sex").order("age, sex")
    assert got.fetchall() == [("30-39", "F", 4, 0.25, 0.25, 0.125, 0.125),
                              ("30-39", "M", 3, 1 / 3, 1 / 3, 1 / 6, 1 / 6),
                              ("40-49", "F", 2, 0.5, 0.5, 0.2, 0.2),
                              ("40-49", "M", 1, 1.0, 1.0, 0.5, 0.5)]
    assert per_row.columns == ["age", "sex", "i", "prosecutor_risk", "journalist_risk"]


def test_a_population_that_does_not_hold_the_sample_is_refused(worked):
    # the roles swapped: every class of the 30 rows has more rows than the 10 hold (and 50-59 none)
    with pytest.raises(DataError, match=r"lacks, or holds fewer rows of, 5 of the sample's 5 classes \(30 of 30"):
        measure_table(worked, "population", ["age", "sex"], population="sample")
    worked.execute("CREATE TABLE ungeneralized AS SELECT 35 AS age, sex FROM population")   # other labels
    with pytest.raises(SpecError, match="column 'age' of table ungeneralized is INTEGER, the measured table's is "
                                        "VARCHAR: give the population at the same generalization"):
        record_risk(worked, "sample", ["age", "sex"], population="ungeneralized")
    worked.execute("CREATE TABLE finer AS SELECT '35' AS age, sex FROM population")   # finer labels, same type
    with pytest.raises(DataError, match="at its generalization"):
        record_risk(worked, "sample", ["age", "sex"], population="finer")
    with pytest.raises(SpecError, match=r"population: unknown column\(s\) 'i' in table population"):
        measure_table(worked, "sample", ["i", "sex"], population="population")


def test_bad_options(worked):
    with pytest.raises(SpecError, match="threshold"):
        measure_table(worked, "sample", ["age"], threshold=1.5)
    with pytest.raises(SpecError, match="risky_classes"):
        measure_table(worked, "sample", ["age"], risky_classes=-1)
    worked.execute("CREATE TABLE scored AS SELECT *, 0.5 AS prosecutor_risk FROM sample")
    with pytest.raises(SpecError, match="already has a column 'prosecutor_risk'"):
        record_risk(worked, "scored", ["age"])


# ------------------------------------------------------------------ ARX's loops in pandas


def arx_summary(sample: pd.DataFrame, population: pd.DataFrame | None, qis: list[str], t: float) -> dict:
    """RiskModelSampleSummary's three loops, transcribed over pandas group sizes."""
    f = sample.groupby(qis, dropna=False).size().rename("f").reset_index()
    if population is None:
        f["F"] = f["f"]
    else:
        big = population.groupby(qis, dropna=False).size().rename("F").reset_index()
        f = f.merge(big, on=qis, how="left")      # pandas matches NaN keys with NaN keys
    n, classes = f["f"].sum(), len(f)
    share = (f["f"] / f["F"]).sum() / n
    return {
        "prosecutor": {"highest": 1 / f["f"].min(), "lowest": 1 / f["f"].max(), "average": classes / n,
                       "records_at_risk": f["f"][1 / f["f"] > t].sum(), "classes_at_risk": (1 / f["f"] > t).sum()},
        "journalist": {"highest": 1 / f["F"].min(), "lowest": 1 / f["F"].max(),
                       "average": max(classes / f["F"].sum(), share),
                       "records_at_risk": f["f"][1 / f["F"] > t].sum(), "classes_at_risk": (1 / f["F"] > t).sum()},
        "marketer": {"average": share},
    }


@st.composite
def samples(draw):
    n = draw(st.integers(1, 60))
    extra = draw(st.integers(0, 80))
    value = st.one_of(st.none(), st.integers(0, 4))
    rows = draw(st.lists(st.tuples(value, st.sampled_from(["x", "y"]), value), min_size=n + extra,
                         max_size=n + extra))
    qis = draw(st.sampled_from([["a"], ["a", "b"], ["a", "b", "c"], ["c", "a"]]))
    t = draw(st.sampled_from([0.05, 0.2, 1 / 3, 0.5]))
    return pd.DataFrame(rows, columns=["a", "b", "c"]), n, qis, t, draw(st.booleans())


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(samples())
def test_random_tables_agree_with_arx_formulas(case):
    frame, n, qis, t, with_population = case
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute("CREATE TABLE pop AS SELECT a::INTEGER AS a, b, c::INTEGER AS c FROM frame")
    con.execute(f"CREATE TABLE sam AS SELECT * FROM pop LIMIT {n}")
    sample = con.execute("SELECT * FROM sam").df()
    want = arx_summary(sample, frame if with_population else None, qis, t)
    got = measure_table(con, "sam", qis, threshold=t, population="pop" if with_population else None)["risk"]
    for model, figures in want.items():
        for key, value in figures.items():
            assert got[model][key] == pytest.approx(value, rel=1e-12), (model, key)
    assert got["prosecutor"]["share_at_risk"] == pytest.approx(want["prosecutor"]["records_at_risk"] / n)
    con.close()


# ------------------------------------------------------------------ anonymizer check


def test_check_prints_every_model_and_the_risky_classes(tmp_path):
    from tests.cli.conftest import run_cli as invoke

    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(f"CREATE TABLE sample AS {_rows(SAMPLE)}")
        con.execute(f"CREATE TABLE population AS SELECT age, sex FROM sample UNION ALL "
                    f"SELECT age, sex FROM ({_rows(EXTRA)})")
    args = ["check", "--db", db, "--table", "sample", "--qi", "age,sex", "--population", "population",
            "--risk-threshold", "0.3", "--risky-classes", "1"]
    text = invoke(*args)
    assert text.exit_code == 0, text.output
    assert "  prosecutor risk: highest 1, average 0.4; 6 records (60.0%) in 3 classes with risk above 0.3" in text.output
    assert "  journalist risk (population population): highest 0.5, average 0.1905; 1 record (10.0%) in 1 " \
           "class with risk above 0.3" in text.output
    assert "  marketer risk (population population): 0.19 (expected share of records re-identified)" in text.output
    assert "  classes with prosecutor risk above 0.3: 3, the riskiest 1:\n" \
           "    age='40-49', sex='M': 1 rows (population 2), prosecutor 1, journalist 0.5\n  class sizes:" in text.output
    figures = json.loads(invoke(*args, "--json").output)["risk"]
    assert figures["journalist"]["average"] == pytest.approx(4 / 21) and figures["threshold"] == 0.3
    assert figures["marketer"]["average"] == pytest.approx(0.19)
    assert figures["risky_classes"][0]["class"] == {"age": "40-49", "sex": "M"}
    wrong = invoke("check", "--db", db, "--table", "population", "--qi", "age,sex", "--population", "sample")
    assert wrong.exit_code == 2 and "is not a population of population" in wrong.output
