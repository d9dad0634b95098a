"""The multi-record patient generator (paper 004, section 5, Table 5) and its release spec."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.datasets.patients import CARDINALITIES, QIS, patients, patients_spec, profile
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec


@pytest.fixture(scope="module")
def big():
    """The default table: 50,000 patients (about 460,000 records), generated once."""
    con = duckdb.connect()
    figures = patients(con)
    yield con, figures
    con.close()


def test_table5_cardinalities(big):
    con, figures = big
    counts = con.execute("SELECT " + ", ".join(f"count(DISTINCT {c})" for c in CARDINALITIES)
                         + " FROM patients").fetchone()
    assert dict(zip(CARDINALITIES, counts)) == CARDINALITIES
    assert figures["distinct"] == CARDINALITIES


def test_types_and_columns(big):
    con, _ = big
    types = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = 'patients' ORDER BY ordinal_position").fetchall())
    assert list(types) == ["patient_id", *QIS, "diagnosis"]
    assert {c for c, t in types.items() if t == "INTEGER"} == {"month_of_birth", "year_of_birth", "educ_year"}
    assert {c for c, t in types.items() if t == "VARCHAR"} == {"patient_id", "gender", "race", "marry", "poverty",
                                                               "hispanx", "diagnosis"}
    assert con.execute("SELECT count(*) FROM patients WHERE " + " OR ".join(f"{c} IS NULL" for c in types)
                       ).fetchone()[0] == 0


def test_row_counts_and_records_per_patient(big):
    con, figures = big
    records, persons, least, mean = con.execute(
        "SELECT sum(n), count(*), min(n), avg(n) FROM (SELECT count(*) AS n FROM patients GROUP BY patient_id)"
    ).fetchone()
    assert persons == figures["individuals"] == 50_000
    assert records == figures["records"] == con.execute("SELECT count(*) FROM patients").fetchone()[0]
    assert least == 1 and figures["records_per_individual"]["min"] == 1
    assert 9.0 < mean < 9.5                      # the paper: 456,767 / 49,384 = 9.25
    assert figures["records_per_individual"]["mean"] == pytest.approx(mean)
    assert 0.08 < figures["records_per_individual"]["single"] / persons < 0.14   # geometric, p = 1/9.25
    assert figures["records_per_individual"]["max"] <= 100


def test_contract_per_patient(big):
    """A patient's records share the QI values, and its diagnoses are distinct (checked here
    in plain SQL, independently of profile())."""
    con, figures = big
    mixed = con.execute("SELECT count(*) FROM (SELECT patient_id FROM patients GROUP BY patient_id HAVING "
                        + " OR ".join(f"count(DISTINCT {c}) > 1" for c in QIS) + ")").fetchone()[0]
    repeated = con.execute("SELECT count(*) FROM (SELECT patient_id, diagnosis FROM patients "
                           "GROUP BY ALL HAVING count(*) > 1)").fetchone()[0]
    assert mixed == repeated == 0 == figures["mixed"] == figures["repeated"]


def test_skewed_but_mild(big):
    con, figures = big
    shares = [r[0] for r in con.execute(
        "SELECT count(DISTINCT patient_id) / 50000 AS share FROM patients GROUP BY diagnosis ORDER BY share DESC"
    ).fetchall()]
    assert shares[0] == pytest.approx(figures["top_share"])
    assert 0.10 < shares[0] < 0.20               # Zipf-like, s = 0.5: the top code ~ 14 % of patients
    assert shares[-1] > 0.003                    # ... and every code is held by some patients
    assert shares[0] > 10 * shares[-1]
    assert figures["distinct_sets"] > 40_000


def test_deterministic_for_a_seed():
    con = duckdb.connect()
    patients(con, "a", individuals=3000, seed=7)
    patients(con, "b", individuals=3000, seed=7)
    patients(con, "c", individuals=3000, seed=8)
    diff = "SELECT count(*) FROM (SELECT * FROM {0} EXCEPT ALL SELECT * FROM {1})"
    assert con.execute(diff.format("a", "b")).fetchone()[0] == 0
    assert con.execute(diff.format("b", "a")).fetchone()[0] == 0
    assert con.execute(diff.format("a", "c")).fetchone()[0] > 0
    # the physical order too (ordered by patient, then draw)
    same = con.execute("SELECT (SELECT list(diagnosis) FROM a) = (SELECT list(diagnosis) FROM b)").fetchone()[0]
    assert same


def test_profile_against_pandas():
    con = duckdb.connect()
    figures = patients(con, "p", individuals=400, seed=3, skew=0.8)
    df = con.execute("SELECT * FROM p").df()
    per = df.groupby("patient_id")
    n = per.size()
    assert figures["records"] == len(df) and figures["individuals"] == len(n) == 400
    assert figures["records_per_individual"]["single"] == int((n == 1).sum())
    assert figures["records_per_individual"]["max"] == n.max()
    assert figures["top_share"] == pytest.approx(df.groupby("diagnosis")["patient_id"].nunique().max() / 400)
    assert figures["distinct_sets"] == per["diagnosis"].apply(lambda s: tuple(sorted(s))).nunique()
    assert figures["distinct"] == {c: df[c].nunique() for c in (*QIS, "diagnosis")}
    assert (per[list(QIS)].nunique() == 1).all().all()
    assert (per["diagnosis"].nunique() == n).all()
    # the marital status follows the year of birth: under 16 exactly when born in 1993 or later
    assert ((df["year_of_birth"] >= 1993) == (df["marry"] == "Under 16")).all()
    assert df["month_of_birth"].between(1, 12).all() and df["year_of_birth"].between(1922, 2003).all()


def test_generated_in_sql_only(monkeypatch):
    """The same statements (one to generate, one to profile) whatever the size: no row comes
    to Python."""
    seen: list[tuple[str, int]] = []
    original = Engine.execute

    def recording(self, text, params=None, *, template="<inline>"):
        cur = original(self, text, params, template=template)
        seen.append((template, len(text)))
        return cur

    monkeypatch.setattr(Engine, "execute", recording)
    con = duckdb.connect()
    patients(con, "small", individuals=50)
    small = list(seen)
    seen.clear()
    patients(con, "large", individuals=20_000)
    assert seen == small
    assert [t for t, _ in small] == ["datasets/patients.sql.j2", "datasets/profile.sql.j2"]


def test_skew_option_orders_the_top_share():
    con = duckdb.connect()
    tops = [patients(con, "z", individuals=5000, skew=s)["top_share"] for s in (0.0, 0.5, 1.0)]
    assert tops[0] < tops[1] < tops[2]
    assert tops[0] < 0.04                        # uniform: about 9.25 / 619 of the patients per code


@pytest.mark.parametrize("bad, field", [({"colour": 1}, "options.colour"), ({"skew": -1}, "options.skew"),
                                        ({"mean_records": 1}, "options.mean_records"),
                                        ({"max_records": 0}, "options.max_records")])
def test_bad_options(bad, field):
    with pytest.raises(SpecError) as err:
        patients(duckdb.connect(), individuals=10, **bad)
    assert err.value.field == field
    with pytest.raises(SpecError):
        patients(duckdb.connect(), individuals=0)


def test_spec_takes_the_front_qis():
    for d in range(1, 9):
        spec = patients_spec("t", qis=d, model={"type": "eir-l-diversity", "l": 4}, algorithm={"name": "geneir"})
        cols = spec["columns"]
        assert [c for c, v in cols.items() if v["role"] == "quasi"] == list(QIS[:d])
        assert all(cols[c]["role"] == "identifier" for c in QIS[d:])
        assert cols["patient_id"] == {"role": "individual"} and cols["diagnosis"] == {"role": "sensitive"}
        assert spec["models"] == [{"type": "eir-l-diversity", "l": 4, "sensitive": "diagnosis"}]
    with pytest.raises(SpecError):
        patients_spec(qis=9, model={"type": "ir-k-anonymity", "k": 2}, algorithm={"name": "geneir"})
    flat = patients_spec(qis=8, model={"type": "ir-k-anonymity", "k": 2}, algorithm={"name": "danonyir"},
                         hierarchies=False)
    assert not any("hierarchy" in v for v in flat["columns"].values())
    assert "sensitive" not in flat["models"][0]


def test_spec_prepares_with_nested_taxonomy_trees():
    """The spec validates, and every QI gets the taxonomy tree of the module docstring
    (heights), nested as GeneIR needs."""
    con = duckdb.connect()
    patients(con, "pt", individuals=3000)
    spec = load_spec(patients_spec("pt", qis=8, model={"type": "eir-l-diversity", "l": 4},
                                   algorithm={"name": "geneir"}))
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, spec)
        heights = {q.name: q.height for q in plan.qis}
        assert heights == {"month_of_birth": 3, "year_of_birth": 5, "gender": 1, "race": 2, "educ_year": 3,
                           "marry": 2, "poverty": 2, "hispanx": 1}
        assert all(q.nested for q in plan.qis)
        assert [q.numeric for q in plan.qis] == [q in ("month_of_birth", "year_of_birth", "educ_year") for q in QIS]
        race = con.execute(f"SELECT d.value, h.label FROM {plan.qis[3].hier} AS h JOIN {plan.qis[3].dom} AS d "
                           "USING (code) WHERE h.level = 1 ORDER BY d.value").fetchall()
        assert dict(race) == {"AmerIndian": "Other", "Asian": "Other", "Black": "Black", "Multiple": "Other",
                              "PacificIslander": "Other", "White": "White"}
        months = con.execute(f"SELECT DISTINCT h.label FROM {plan.qis[0].hier} AS h WHERE h.level = 1 "
                             "ORDER BY h.lo").fetchall()
        assert [m[0] for m in months] == ["[1, 3]", "[4, 6]", "[7, 9]", "[10, 12]"]


def test_profile_of_another_table():
    """profile() reads any multi-record table given its column names."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1, 'x'), ('a', 1, 'y'), ('b', 2, 'x'), "
                "('b', 3, 'x')) v(who, q, s)")
    f = profile(con, '"t"', person="who", sensitive="s", qis=("q",))
    assert (f["records"], f["individuals"], f["mixed"], f["repeated"], f["distinct_sets"]) == (4, 2, 1, 1, 2)
    assert f["top_share"] == 1.0 and f["distinct"] == {"q": 3, "s": 2}
