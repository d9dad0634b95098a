"""Issue 36 for identity-reserved releases (paper 004's table): individuals with several
records, an adversary who holds every version, knows each target's QIs and, at its
strongest, the target's class in each version. What a version shows of an individual is
its list of diagnoses (its records' values, under a fresh Id_num), so the attacks read
lists: a person's candidates are the lists of their class. The test reads a person's class
from the release's private state, copied after each night, and first checks that state
against what the version published (each published class, as a multiset of its
individuals' lists, is its group's multiset). The attacks (:mod:`tests.privacy.adversary`)
share no code with the gate:

- intersection: a person's candidate lists, over the versions where their list stood, intersect;
- difference: for two versions in which a person's list stood, the multiset difference of
  their two classes is what joiners and leavers brought or took.
"""

from __future__ import annotations

import json

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer.api import anonymize
from anonymizer.datasets.patients import patients, patients_spec
from anonymizer.errors import UnsupportedError
from tests.privacy.adversary import (group_difference_attack, group_intersection_attack, keep_state, patients_night,
                                     publish_nights)

L = 2
#: a patient table whose lists repeat (1 to 3 of 6 codes), so joiners can take leavers' places
SMALL = {"codes": 6, "mean_records": 1.6, "max_records": 3}


def spec(guarantee: str, name: str = "danonyir", qis: int = 3, **changes) -> dict:
    """Paper 004's patients on their first ``qis`` QIs (month and year of birth, gender)."""
    s = patients_spec("patients", qis=qis, model={"type": "eir-l-diversity", "l": L},
                      algorithm={"name": name}, release="ir")
    return s | {"history": {"guarantee": guarantee, "person": "patient_id"}, "suppression_limit": 0.1} | changes


def nights(guarantee: str, versions: int = 4, back: bool = False, size: int = 400, algorithm: str = "danonyir",
           qis: int = 3, **churn) -> tuple[duckdb.DuckDBPyConnection, list]:
    """``versions`` nightly versions of a changing patient table; the truth of a night is
    each patient's list of diagnoses; the private state of each version is copied aside."""
    con = duckdb.connect()
    patients(con, "patients", size, seed=churn.pop("seed", 1), **SMALL)
    con.execute("CREATE VIEW lists AS SELECT patient_id AS pid, to_json(list(diagnosis ORDER BY diagnosis))::VARCHAR "
                "AS diagnosis FROM patients GROUP BY patient_id")
    published = publish_nights(con, lambda: anonymize(spec(guarantee, algorithm, qis), con), "lists", versions, back,
                               lambda night, r: keep_state(con, "ir", night, r), night=patients_night,
                               **{"joiners": 20, **churn}, **SMALL)
    return con, published


def classes_as_published(con, published) -> None:
    """Every version's published classes, each the multiset of its individuals' lists (what
    a reader sees: records grouped by Id_num, counterfeits included), are its private
    groups' multisets."""
    for night, (r, _) in enumerate(published):
        shown, kept = con.execute(f"""
            WITH ind AS (SELECT ec_id, to_json(list(diagnosis ORDER BY diagnosis))::VARCHAR AS lst
                         FROM _anon_releases."ir__v{r.version}" GROUP BY ec_id, id_num),
            pub AS (SELECT list(lst ORDER BY lst) AS c FROM ind GROUP BY ec_id),
            st AS (SELECT list(g.value ORDER BY g.value) AS c FROM groups_{night} g, range(g.n) GROUP BY g.gid)
            SELECT (SELECT list(c ORDER BY c) FROM pub), (SELECT list(c ORDER BY c) FROM st)""").fetchone()
        assert shown == kept


@pytest.mark.slow
def test_independent_ir_versions_narrow_people_and_the_audit_says_so():
    con, published = nights("independent")
    assert len(published) == 4
    classes_as_published(con, published)
    assert group_intersection_attack(con, published, L) > 0 and group_difference_attack(con, published, L) > 0
    gates = [json.loads(f)["combination"] for (f,) in
             con.execute("SELECT figures FROM _anon_releases._audit ORDER BY version").fetchall()]
    assert gates[-1]["compared"] == [1, 2, 3] and gates[-1]["intersection"]["below"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["danonyir", "geneir"])
def test_invariant_ir_versions_hold_against_both_attacks(algorithm):
    con, published = nights("invariant", algorithm=algorithm)
    assert [r.version for r, _ in published] == [1, 2, 3, 4]
    classes_as_published(con, published)
    assert group_intersection_attack(con, published, L) == 0 and group_difference_attack(con, published, L) == 0
    for r, truth in published:   # at least 90 % of the real records published; counterfeits counted per class
        (records,) = con.execute(f"SELECT sum(json_array_length(diagnosis)) FROM {truth}").fetchone()
        assert r.suppressed <= 0.1 * records
        inv = r.algorithm.get("invariance") or {}
        fakes = con.execute(f'SELECT coalesce(sum(counterfeits), 0) FROM (SELECT DISTINCT ec_id, counterfeits '
                            f'FROM _anon_releases."ir__v{r.version}")').fetchone()[0] if inv else 0
        assert fakes == inv.get("counterfeits", 0)
    steps = [r.algorithm["invariance"] for r, _ in published[1:]]
    assert steps[-1]["counterfeits"] > 0 and all(s["new_rows"] > 0 for s in steps)


def test_joiners_with_a_leavers_list_and_qis_take_the_leavers_place():
    """Patients leave whose class keeps a member with their very QIs (one per list), and as many new ones
    join with a leaver's QIs and diagnoses: each takes a leaver's place (inside the range of
    the class's members who stayed, with the same list), so the version publishes no
    counterfeit and forms no class."""
    con = duckdb.connect()
    patients(con, "patients", 600, seed=4, **SMALL)
    first = anonymize(spec("invariant"), con)
    con.execute("""
        CREATE TABLE gone AS
        WITH p AS (SELECT DISTINCT patient_id, month_of_birth, year_of_birth, gender, s.gid, s.value
                   FROM patients JOIN _anon_state.ir__people AS s ON s.pid = patient_id AND s.version = 1),
        twins AS (SELECT DISTINCT a.patient_id, a.value
                  FROM p AS a JOIN p AS b USING (gid, month_of_birth, year_of_birth, gender)
                  WHERE b.patient_id < a.patient_id)
        SELECT * FROM patients WHERE patient_id IN (   -- one leaver per list: no two clones want one place
            SELECT any_value(patient_id) FROM twins GROUP BY value)""")
    leavers = con.execute("SELECT count(DISTINCT patient_id) FROM gone").fetchone()[0]
    con.execute("DELETE FROM patients WHERE patient_id IN (SELECT patient_id FROM gone)")
    con.execute("INSERT INTO patients SELECT * REPLACE ('clone-' || patient_id AS patient_id) FROM gone")
    second = anonymize(spec("invariant"), con)
    inv = second.algorithm["invariance"]
    assert leavers >= 3
    assert (inv["placed"], inv["counterfeits"], inv["new_rows"], second.classes) == (leavers, 0, 0, first.classes)


@pytest.mark.slow
def test_a_new_class_on_an_earlier_label_is_merged_not_published_apart():
    """On one QI (month of birth) a class formed of new individuals can show the very labels
    a class of the previous version showed with other lists; the gate would read their
    difference, so the class is merged with its neighbour first (here once, by the seeded
    draws), and the version publishes with no difference isolating anyone."""
    con = duckdb.connect()
    patients(con, "patients", 300, seed=1, **SMALL)
    monthly = spec("invariant", qis=1, suppression_limit=0.5, algorithm={"name": "danonyir", "seed": 2})
    anonymize(monthly, con)
    patients_night(con, 1, joiners=30, leave=0.2, seed=2, **SMALL)
    second = anonymize(monthly, con)
    assert second.algorithm["invariance"]["merges"] == 1
    gate = json.loads(con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 2").fetchone()[0])
    assert gate["combination"]["compared"] == [1] and gate["combination"]["isolated"] == 0


def test_what_the_ir_gate_cannot_follow_is_refused_under_invariant():
    """The gate follows individuals: a person key that is not the individual column, passed-
    through columns or Id_num in the source's order are refused before any work; without a
    person key, a changed source is refused."""
    con = duckdb.connect()
    patients(con, "patients", 200, seed=2, **SMALL)
    con.execute("CREATE VIEW keyed AS SELECT *, hash(patient_id) AS other_key FROM patients")
    other = spec("invariant", source={"table": "keyed"}, history={"guarantee": "invariant", "person": "other_key"})
    other["columns"] = dict(other["columns"], other_key={"role": "identifier"})
    with pytest.raises(UnsupportedError, match="set history.person to the individual column"):
        anonymize(other, con)
    unkeyed = spec("invariant", release="nk", output={"view": "nk"}, history={"guarantee": "invariant"})
    anonymize(unkeyed, con)
    con.execute("DELETE FROM patients WHERE patient_id IN (SELECT DISTINCT patient_id FROM patients LIMIT 5)")
    with pytest.raises(UnsupportedError, match="gate follows individuals"):
        anonymize(unkeyed, con)
    passed = spec("invariant", release="pt", output={"view": "pt"})
    passed["columns"] = dict(passed["columns"], race={"role": "insensitive"})
    with pytest.raises(UnsupportedError, match="passed-through column"):
        anonymize(passed, con)
    appearance = spec("invariant", release="ap", output={"view": "ap"},
                      algorithm={"name": "danonyir", "renumber": "appearance", "seed": 3})
    with pytest.raises(UnsupportedError, match="renumber: appearance"):
        anonymize(appearance, con)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(80, 300), seed=st.integers(1, 10_000), leave=st.floats(0.0, 0.25),
       joiners=st.integers(0, 40), change=st.floats(0.0, 0.2), back=st.booleans(), qis=st.integers(2, 3))
def test_random_nights_publish_invariant_ir_versions_or_nothing(size, seed, leave, joiners, change, back, qis):
    """Random tables and nights: each version publishes with every stood person's class
    multiset unchanged (both attacks find no one), or is refused and publishes nothing."""
    con, published = nights("invariant", 3, back, size, qis=qis, leave=leave, joiners=joiners, change=change,
                            seed=seed)
    if published:
        classes_as_published(con, published)
        assert group_intersection_attack(con, published, L) == 0 and group_difference_attack(con, published, L) == 0


def gained_pairs(con, version: int, before: str, after: str) -> tuple[int, int]:
    """The attack on individuals who gained a record (an adversarial review found it): the
    adversary knows that a target gained one record between versions ``version - 1`` and
    ``version`` and knows its QIs; its old list is one of the lists of the classes whose labels
    hold those QIs in the earlier version, its new list one of the later version's, and the
    new list is the old one plus one value. Returns how many targets the truth tables
    ``before``/``after`` say gained a record, and for how many the pairs that fit leave the
    true lists among no more than ``L`` candidates."""
    def published(v: int):
        t = f'_anon_releases."ir__v{v}"'
        lists = {}
        for ec, lst in con.execute(f"SELECT ec_id, list(diagnosis ORDER BY diagnosis) FROM {t} "
                                   "GROUP BY ec_id, id_num").fetchall():
            lists.setdefault(ec, []).append(tuple(lst))
        boxes = con.execute(f"SELECT DISTINCT ec_id, month_of_birth_low, month_of_birth_high, year_of_birth_low, "
                            f"year_of_birth_high, gender_values FROM {t}").fetchall()
        return lists, boxes

    def candidates(pub, m, y, g):
        lists, boxes = pub
        return {x for ec, ml, mh, yl, yh, gv in boxes if ml <= m <= mh and yl <= y <= yh and g in gv for x in lists[ec]}

    def plus_one(a, b):
        return len(b) == len(a) + 1 and set(a) < set(b)

    early, late = published(version - 1), published(version)
    gainers = con.execute(f"""
        SELECT p.month_of_birth, p.year_of_birth, p.gender, a.diagnosis, b.diagnosis
        FROM {before} AS a JOIN {after} AS b USING (pid)
        JOIN (SELECT DISTINCT patient_id, month_of_birth, year_of_birth, gender FROM patients) AS p ON p.patient_id = a.pid
        WHERE json_array_length(b.diagnosis) = json_array_length(a.diagnosis) + 1""").fetchall()
    narrowed = 0
    for m, y, g, old, new in gainers:
        old, new = tuple(json.loads(old)), tuple(json.loads(new))
        olds = {a for a in candidates(early, m, y, g) if any(plus_one(a, b) for b in candidates(late, m, y, g))}
        news = {b for b in candidates(late, m, y, g) if any(plus_one(a, b) for a in olds)}
        narrowed += old in olds and new in news and min(len(olds), len(news)) <= L
    return len(gainers), narrowed


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["danonyir", "geneir"])
def test_individuals_who_gain_a_record_keep_their_list_and_the_pairing_attack_finds_nothing(algorithm):
    """Paper 004's realistic patients (619 codes, about 9 records each: lists do not repeat).
    Under invariant, a patient who gained a record keeps the list the previous version
    published and the new record is held back (counted as suppressed); pairing their old
    class's lists with their new class's then finds no one's true lists. Independent
    versions give most of them away."""
    found = {}
    for guarantee in ("independent", "invariant"):
        con = duckdb.connect()
        patients(con, "patients", 300, seed=1)
        con.execute("CREATE VIEW lists AS SELECT patient_id AS pid, to_json(list(diagnosis ORDER BY diagnosis))::VARCHAR "
                    "AS diagnosis FROM patients GROUP BY patient_id")
        ir = spec(guarantee, algorithm) | {"models": [{"type": "eir-l-diversity", "l": L + 1, "sensitive": "diagnosis"}]}
        published = publish_nights(con, lambda: anonymize(ir, con), "lists", 2, night=patients_night, leave=0.05,
                                   joiners=30, change=0.05)
        assert len(published) == 2
        gainers, found[guarantee] = gained_pairs(con, 2, "truth_0", "truth_1")
        assert gainers >= 10
        if guarantee == "invariant":
            second = published[1][0]
            assert second.algorithm["invariance"]["held_records"] == gainers and second.suppressed >= gainers
    assert found["invariant"] == 0 and found["independent"] >= 5


def test_the_audit_tells_no_record_count_of_who_left():
    """An adversarial review: with one patient leaving in a night, the change of the source's
    record count (the audit's rows_in, the count in the fingerprint, a count of counterfeit
    records) was that patient's number of diagnoses, and the class whose counterfeits rose
    held one list that long. Under invariant the audit's rows are what the version shows
    (published, counterfeits included, and held back), the fingerprint a digest."""
    import re
    con = duckdb.connect()
    patients(con, "patients", 300, seed=1)
    ir = spec("invariant") | {"models": [{"type": "eir-l-diversity", "l": L + 1, "sensitive": "diagnosis"}]}
    first = anonymize(ir, con)
    (leaver, records), = con.execute("SELECT patient_id, count(*) FROM patients GROUP BY patient_id "
                                     "ORDER BY count(*) DESC, patient_id LIMIT 1").fetchall()
    con.execute("DELETE FROM patients WHERE patient_id = ?", [leaver])
    second = anonymize(ir, con)
    assert records > 1 and second.algorithm["invariance"]["counterfeits"] == 1
    assert second.rows_in == first.rows_in - records   # the operator's summary tells the truth
    rows = con.execute("SELECT rows_in, rows_out, suppressed, source_fingerprint, parameters "
                       "FROM _anon_releases._audit ORDER BY version").fetchall()
    assert rows[0][:3] == rows[1][:3] == (first.rows_in, first.rows_in, 0)   # the night shows as nothing
    assert rows[0][3] != rows[1][3] and all(re.fullmatch(r"[0-9a-f]{32}", r[3]) for r in rows)
    assert "counterfeit_records" not in rows[1][4]
