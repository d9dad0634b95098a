"""Issue 36 for anatomy (paper 002's two tables): the adversary of ``test_versions.py`` reads
the QI tables (QIs as they are, a group id drawn anew each version) and the sensitive tables.
The attacks share no code with the gate:

- intersection: a person's candidate vectors in one version are those of every group with a
  QI row equal to their QIs; over the versions where their value stood, they intersect.
- difference: a group whose members' QI values a reader sees again in another version; the
  multiset difference of its sensitive records is what joiners or leavers hold.
"""

from __future__ import annotations

import json

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer.api import anonymize
from anonymizer.datasets.churn import churn, people
from tests.privacy.adversary import narrowed_since_change, night_of_returns, publish_nights

L = 3


def spec(guarantee: str, **changes) -> dict:
    return {"release": "an", "source": {"table": "patients"},
            "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive",
                        "treatment": "identifier"},
            "algorithm": {"name": "mbf"}, "models": [{"type": "multi-l-diversity", "l": L}],
            "history": {"guarantee": guarantee, "person": "pid"}} | changes


def nights(guarantee: str, versions: int = 4, **changes) -> tuple[duckdb.DuckDBPyConnection, list]:
    """``versions`` nightly versions; with ``changes`` (a spec naming ``treatment``), each
    person also holds a second sensitive value, their treatment, which never changes."""
    con = duckdb.connect()
    people(con, "people", 4000)
    con.execute("CREATE VIEW patients AS SELECT *, ['rest', 'drugs', 'surgery', 'therapy'][(hash(pid) % 4)::BIGINT + 1] "
                "AS treatment FROM people")
    published = []
    for night in range(versions):
        if night:
            churn(con, night=night, leave=0.05, joiners=400, change=0.02)
        con.execute(f"CREATE TABLE truth_{night} AS SELECT * FROM patients")
        published.append((anonymize(spec(guarantee, **changes), con), f"truth_{night}"))
    return con, published


def intersection_attack(con, published, attr: str = "diagnosis") -> int:
    """People whose candidates, over the versions since their diagnosis last changed (the
    adversary knows when it changed, not to what), fall below l."""
    parts = [f"""SELECT t.pid, t.diagnosis, {n} AS night, list(DISTINCT s.{attr}) AS cand
                 FROM {truth} AS t JOIN _anon_releases."an__v{r.version}" AS q USING (age, zip, sex)
                 JOIN _anon_releases."an__v{r.version}__sensitive" AS s USING (group_id)
                 GROUP BY t.pid, t.diagnosis""" for n, (r, truth) in enumerate(published)]
    return narrowed_since_change(con, parts, L)


def difference_attack(con, published, attr: str = "diagnosis") -> int:
    """Sides of a difference holding fewer than l values: for two versions, a group of each
    that one person whose diagnosis stood between them (the adversary knows who changed) is
    in, found by their QIs (held by no one else that night), is read as the same group, and
    the multiset difference as what joiners and leavers hold."""
    narrowing = 0
    for i, (a, ta) in enumerate(published):
        for j, (b, tb) in enumerate(published[i + 1:], i + 1):
            between = "".join(f" ANTI JOIN {t} AS m{n} ON m{n}.pid = x.pid AND m{n}.diagnosis <> x.diagnosis"
                              for n, (_, t) in enumerate(published[i + 1:j]))   # changed and back: known
            (n,) = con.execute(f"""
                WITH stood AS (SELECT x.pid, x.age AS a_age, x.zip AS a_zip, x.sex AS a_sex, y.age, y.zip, y.sex
                               FROM {ta} AS x JOIN {tb} AS y USING (pid, diagnosis){between}
                               SEMI JOIN ({_unique(ta)}) AS ux ON ux.pid = x.pid
                               SEMI JOIN ({_unique(tb)}) AS uy ON uy.pid = y.pid),
                pairs AS (SELECT DISTINCT qa.group_id AS ga, qb.group_id AS gb FROM stood AS s
                          JOIN _anon_releases."an__v{a.version}" AS qa
                            ON (qa.age, qa.zip, qa.sex) = (s.a_age, s.a_zip, s.a_sex)
                          JOIN _anon_releases."an__v{b.version}" AS qb ON (qb.age, qb.zip, qb.sex) = (s.age, s.zip, s.sex)),
                d AS (SELECT ga, gb, {attr}, sum(n) AS d FROM (
                        SELECT p.ga, p.gb, s.{attr}, s.count AS n FROM pairs AS p
                        JOIN _anon_releases."an__v{b.version}__sensitive" AS s ON s.group_id = p.gb
                        UNION ALL
                        SELECT p.ga, p.gb, s.{attr}, -s.count FROM pairs AS p
                        JOIN _anon_releases."an__v{a.version}__sensitive" AS s ON s.group_id = p.ga)
                      GROUP BY ALL HAVING sum(n) <> 0)
                SELECT count(*) FROM (SELECT ga, gb, d > 0, count(*) AS vals FROM d GROUP BY ALL) WHERE vals < {L}
                """).fetchone()
            narrowing += n
    return narrowing


def _unique(truth: str) -> str:
    """The people whose QI values no one else holds that night: for a twin, the adversary
    cannot tell which of two groups is the target's."""
    return f"SELECT pid FROM {truth} QUALIFY count(*) OVER (PARTITION BY age, zip, sex) = 1"


def test_independent_anatomy_versions_narrow_people_and_the_audit_says_so():
    con, published = nights("independent")
    assert intersection_attack(con, published) > 0 and difference_attack(con, published) > 0
    gates = [json.loads(f)["combination"] for (f,) in
             con.execute("SELECT figures FROM _anon_releases._audit ORDER BY version").fetchall()]
    assert gates[-1]["compared"] == [1, 2, 3] and gates[-1]["intersection"]["below"] > 0


def test_invariant_anatomy_versions_hold_against_both_attacks():
    con, published = nights("invariant")
    assert [r.version for r, _ in published] == [1, 2, 3, 4]
    assert intersection_attack(con, published) == 0
    assert difference_attack(con, published) == 0
    for r, truth in published:   # every real record is in the QI table; counterfeits only in the sensitive one
        (real,) = con.execute(f"SELECT count(*) FROM {truth}").fetchone()
        assert r.rows_out == real and r.suppressed == 0
    last = published[-1][0]
    fakes, records = con.execute(f'SELECT sum(counterfeits) FILTER (WHERE true), sum(count) FROM '
                                 f'(SELECT DISTINCT group_id, counterfeits, NULL AS count FROM _anon_releases."an__v{last.version}__sensitive" '
                                 f'UNION ALL SELECT NULL, NULL, count FROM _anon_releases."an__v{last.version}__sensitive")').fetchone()
    assert fakes == last.algorithm["invariance"]["counterfeits"] > 0 and records == last.rows_out + fakes


def test_invariant_anatomy_keeps_security_levels_and_refuses_two_signatures():
    """Under L_sl-diversity with hiv at the strictest level, the signature holds on every
    version; a second sensitive column is refused under invariant with a person key (a
    person whose diagnosis changes would restart their treatment's signature, which an
    adversary who knows what changed keeps intersecting)."""
    from anonymizer.errors import UnsupportedError
    levels = {"role": "sensitive", "security": {"default": 1, "values": {"hiv": 2}}}
    lsl = [{"type": "lsl-diversity", "l": [1, 2, 3]}]
    con, published = nights("invariant", models=lsl, columns={
        "pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "treatment": "identifier",
        "diagnosis": levels})
    assert [r.version for r, _ in published] == [1, 2, 3, 4] and all(r.suppressed == 0 for r, _ in published)
    assert difference_attack(con, published) == 0
    (worst,) = con.execute("""WITH s AS (SELECT * FROM _anon_releases."an__v4__sensitive"),
        sizes AS (SELECT group_id, sum(count) AS size FROM s GROUP BY group_id),
        per AS (SELECT group_id, diagnosis, sum(count) AS n FROM s GROUP BY ALL)
        SELECT max(n * CASE WHEN diagnosis = 'hiv' THEN 3 ELSE 2 END / size) FROM per JOIN sizes USING (group_id)
        """).fetchone()
    assert worst <= 1   # Definition 10 on the last version's sensitive table, counterfeits included
    two = spec("invariant", models=lsl, columns={"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi",
                                                "treatment": "sensitive", "diagnosis": levels})
    with pytest.raises(UnsupportedError, match="one sensitive column"):
        anonymize(dict(two, release="two"), con)


def test_people_who_leave_and_come_back_keep_their_candidates():
    """Leavers of night 1 return on night 2 with their values. One whose place a joiner took
    goes to a group publishing their own group's multiset, or opens one anew (counterfeits
    fill it), or, where their group no longer stands, is held back (suppressed) that
    version; no version is refused, and both attacks still find no one."""
    con = duckdb.connect()
    people(con, "people", 4000)
    con.execute("CREATE VIEW patients AS SELECT *, NULL::VARCHAR AS treatment FROM people")
    s = dict(spec("invariant"), suppression_limit=0.02)
    published = []
    for night in range(4):
        if night:
            night_of_returns(con, night)
        con.execute(f"CREATE TABLE truth_{night} AS SELECT * FROM patients")
        published.append((anonymize(s, con), f"truth_{night}"))
    back = published[2][0].algorithm["invariance"]
    assert back["returned"] > 0 and published[2][0].suppressed == back["returners_held"] + back["held_back"]
    assert back["reopened"] > 0   # whose place a joiner took: their group's multiset published anew
    assert intersection_attack(con, published) == 0 and difference_attack(con, published) == 0


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(150, 600), seed=st.integers(1, 10_000), leave=st.floats(0.0, 0.25),
       joiners=st.integers(0, 120), change=st.floats(0.0, 0.2), back=st.booleans())
def test_random_nights_publish_invariant_anatomy_versions_or_nothing(size, seed, leave, joiners, change, back):
    """Random tables and nights (people leave, join, change, come back): each version
    publishes and both attacks find no one, or it is refused and publishes nothing."""
    con = duckdb.connect()
    people(con, "people", size, seed=seed)
    con.execute("CREATE VIEW patients AS SELECT *, NULL::VARCHAR AS treatment FROM people")
    published = publish_nights(con, lambda: anonymize(dict(spec("invariant"), suppression_limit=0.2), con),
                               "patients", 3, back, leave=leave, joiners=joiners, change=change, seed=seed)
    assert not published or (intersection_attack(con, published) == 0 and difference_attack(con, published) == 0)


def test_the_memory_keeps_each_linked_box_once_under_its_latest_version():
    """Issue 55: anatomy's boxes are linked by their members, and the memory kept every
    version's copy of every box, so it and the difference check grew with the versions. Now a
    box published again with the same members and multiset keeps one copy, under the latest
    version (forget_copies.sql.j2): re-publishing an unchanged table adds nothing and moves the
    copies to the new version; a night of churn adds only the boxes it changed, and the gate
    still compares with the versions whose copies remain."""
    con = duckdb.connect()
    people(con, "people", 1000)
    con.execute("CREATE VIEW patients AS SELECT *, 'rest' AS treatment FROM people")
    memory = "SELECT count(*), count(DISTINCT box), count(DISTINCT version) FROM _anon_releases._classes"
    anonymize(spec("invariant", suppression_limit=0.05), con)
    rows, boxes, _ = con.execute(memory).fetchone()
    anonymize(spec("invariant", suppression_limit=0.05), con, force=True)
    assert con.execute(memory).fetchone() == (rows, boxes, 1)   # every copy moved to v2
    assert con.execute("SELECT DISTINCT version FROM _anon_releases._classes").fetchall() == [(2,)]
    churn(con, night=1, leave=0.02, joiners=20, change=0.0)
    r = anonymize(spec("invariant", suppression_limit=0.05), con)
    after, _, versions = con.execute(memory).fetchone()
    (changed,) = con.execute("SELECT count(DISTINCT box) FROM _anon_releases._classes WHERE version = 3").fetchone()
    (kept,) = con.execute("SELECT count(DISTINCT box) FROM _anon_releases._classes WHERE version = 2").fetchone()
    assert versions == 2 and 0 < kept < boxes and changed > 0 and after < 2 * rows
    (gate,) = con.execute("SELECT figures::JSON->'combination' FROM _anon_releases._audit WHERE version = 3").fetchone()
    assert json.loads(gate)["compared"] == [2] and r.version == 3 and json.loads(gate)["isolated"] == 0
