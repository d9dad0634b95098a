"""Issue 36: an adversary who holds every version of a release, knows everyone's QIs and who
joined, left or changed between versions. The attacks below read only the published
snapshots and the source as it stood at each version (the adversary's background knowledge);
they share no code with the gate (:mod:`anonymizer.versions.combination`).

- difference: a class box published in two versions; the multiset difference of its
  sensitive values is what the joiners (or leavers) hold. A side with fewer than l distinct
  values or fewer than k rows narrows those people below the models.
- membership difference: the adversary who knows everyone's QIs knows who stood in each
  class whose box holds as many people as the class has real rows (its rows less the
  counterfeits it declares). Two such classes of two versions that share someone differ by
  the people in one and not the other: where one side's count of values equals its people
  (and counterfeits), those values are theirs, whatever the boxes (nested, shifted or equal).
- intersection: a person's candidate values in one version are the values of every class
  whose box covers their QIs; over the versions where their value stood, the candidates
  intersect. Fewer than l left narrows them below the models.
"""

from __future__ import annotations

import json
import logging

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.datasets.churn import churn, people
from anonymizer.errors import PrivacyCheckFailed
from tests.privacy.adversary import night_of_returns

K, L = 5, 3


def spec(guarantee: str) -> dict:
    return {"release": "dx", "source": {"table": "people"},
            "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"},
            "models": [{"type": "k-anonymity", "k": K}, {"type": "distinct-l-diversity", "l": L,
                                                          "sensitive": "diagnosis"}],
            "history": {"guarantee": guarantee, "person": "pid"}}


def nights(guarantee: str, versions: int = 4, change: float = 0.02) -> tuple[duckdb.DuckDBPyConnection, list, list]:
    """Publish ``versions`` nightly versions of a changing table; returns the connection, the
    versions published (each with the truth table of its night) and the refusals."""
    con = duckdb.connect()
    people(con, "people", 4000)
    published, refused = [], []
    for night in range(versions):
        if night:
            churn(con, night=night, leave=0.05, joiners=400, change=change)
        con.execute(f"CREATE TABLE truth_{night} AS SELECT * FROM people")
        try:
            r = anonymize(spec(guarantee), con)
            published.append((r.version, f"truth_{night}", r))
        except PrivacyCheckFailed as exc:
            refused.append((night, str(exc)))
    return con, published, refused


def difference_attack(con, published) -> tuple[int, int]:
    """(sides narrowing below k or l, people on sides with a single value) over every pair."""
    narrowing = single = 0
    for i, (va, _, _) in enumerate(published):
        for vb, _, _ in published[i + 1:]:
            n, s = con.execute(f"""
                WITH a AS ({_boxes(va)}), b AS ({_boxes(vb)}),
                shared AS (SELECT DISTINCT box FROM a SEMI JOIN b USING (box)),
                d AS (SELECT box, diagnosis, sum(n) AS d FROM (
                        SELECT box, diagnosis, n FROM b SEMI JOIN shared USING (box)
                        UNION ALL SELECT box, diagnosis, -n FROM a SEMI JOIN shared USING (box))
                      GROUP BY ALL HAVING sum(n) <> 0),
                sides AS (SELECT box, d > 0 AS joined, count(*) AS vals, sum(abs(d)) AS size FROM d GROUP BY ALL)
                SELECT count(*) FILTER (WHERE vals < {L} OR size < {K}),
                       coalesce(sum(size) FILTER (WHERE vals = 1), 0) FROM sides""").fetchone()
            narrowing, single = narrowing + n, single + s
    return narrowing, int(single)


def membership_difference_attack(con, published) -> tuple[int, int, int]:
    """(sides narrowing below l, people on them, pairs compared) over every pair of classes of
    two versions whose members the adversary knows and which share someone (module docstring)."""
    def counterfeits(v: int) -> str:
        cols = [r[0] for r in con.execute(f'DESCRIBE _anon_releases."dx__v{v}__classes"').fetchall()]
        return "c.counterfeits" if "counterfeits" in cols else "0"
    members = " UNION ALL ".join(f"""
        SELECT {v} AS v, c.eq_class AS cls, t.pid FROM {truth} AS t, _anon_releases."dx__v{v}__classes" AS c
        WHERE t.age BETWEEN c.age_low AND c.age_high AND t.zip BETWEEN c.zip_low AND c.zip_high
          AND (c.sex = '*' OR list_contains(c.sex_values, t.sex))""" for v, truth, _ in published)
    values = " UNION ALL ".join(f"""SELECT {v} AS v, eq_class AS cls, diagnosis, count(*) AS n
                                    FROM _anon_releases."dx__v{v}" GROUP BY ALL""" for v, _, _ in published)
    classes = " UNION ALL ".join(f"""
        SELECT {v} AS v, c.eq_class AS cls, any_value({counterfeits(v)}) AS fakes,
               count(*) - any_value({counterfeits(v)}) AS real
        FROM _anon_releases."dx__v{v}__classes" c JOIN _anon_releases."dx__v{v}" USING (eq_class) GROUP BY c.eq_class"""
                         for v, _, _ in published)
    narrowing, people, pairs = con.execute(f"""
        WITH m AS ({members}), vals AS ({values}), cls AS ({classes}),
        known AS (SELECT v, cls FROM m JOIN cls USING (v, cls) GROUP BY v, cls HAVING count(*) = any_value(cls.real)),
        known_m AS (SELECT m.* FROM m SEMI JOIN known USING (v, cls)),
        pairs AS (SELECT a.v AS va, a.cls AS ca, b.v AS vb, b.cls AS cb, count(*) AS shared
                  FROM known_m a JOIN known_m b ON a.pid = b.pid AND a.v < b.v GROUP BY ALL),
        delta AS (SELECT va, ca, vb, cb, diagnosis, sum(n) AS d FROM (
                    SELECT p.va, p.ca, p.vb, p.cb, x.diagnosis, x.n FROM pairs p JOIN vals x ON x.v = p.va AND x.cls = p.ca
                    UNION ALL
                    SELECT p.va, p.ca, p.vb, p.cb, x.diagnosis, -x.n FROM pairs p JOIN vals x ON x.v = p.vb AND x.cls = p.cb)
                  GROUP BY ALL HAVING sum(n) <> 0),
        sides AS (SELECT p.va, p.ca, p.vb, p.cb, true AS first, a.real - p.shared AS alone, a.fakes, d.d, d.diagnosis
                  FROM pairs p JOIN cls a ON a.v = p.va AND a.cls = p.ca
                  LEFT JOIN delta d ON (d.va, d.ca, d.vb, d.cb) = (p.va, p.ca, p.vb, p.cb) AND d.d > 0
                  UNION ALL
                  SELECT p.va, p.ca, p.vb, p.cb, false, b.real - p.shared, b.fakes, -d.d, d.diagnosis
                  FROM pairs p JOIN cls b ON b.v = p.vb AND b.cls = p.cb
                  LEFT JOIN delta d ON (d.va, d.ca, d.vb, d.cb) = (p.va, p.ca, p.vb, p.cb) AND d.d < 0),
        judged AS (SELECT any_value(alone) AS alone, count(diagnosis) AS vals FROM sides WHERE alone > 0
                   GROUP BY va, ca, vb, cb, first HAVING coalesce(sum(d), 0) = any_value(alone) + any_value(fakes))
        SELECT count(*) FILTER (WHERE vals < {L}), coalesce(sum(alone) FILTER (WHERE vals < {L}), 0),
               (SELECT count(*) FROM pairs) FROM judged""").fetchone()
    return narrowing, int(people), pairs


def _boxes(version: int) -> str:
    return (f'SELECT to_json([c.age, c.zip, c.sex]) AS box, r.diagnosis, count(*) AS n '
            f'FROM _anon_releases."dx__v{version}" r JOIN _anon_releases."dx__v{version}__classes" c USING (eq_class) '
            f'GROUP BY ALL')


def intersection_attack(con, published) -> tuple[int, int]:
    """(people whose candidates over the versions their value stood fall below l, of them with one left).
    Only candidates that still hold the person's value count: a person held back (suppressed)
    in a version where a class covers their QIs gets that class's values, which may miss
    theirs; the adversary is then misled, not informed."""
    parts = [f"""SELECT t.pid, t.diagnosis, {v} AS version, list(DISTINCT r.diagnosis) AS cand
                 FROM {truth} AS t, _anon_releases."dx__v{v}__classes" AS c
                 JOIN _anon_releases."dx__v{v}" AS r USING (eq_class)
                 WHERE t.age BETWEEN c.age_low AND c.age_high AND t.zip BETWEEN c.zip_low AND c.zip_high
                   AND (c.sex = '*' OR list_contains(c.sex_values, t.sex))
                 GROUP BY t.pid, t.diagnosis""" for v, truth, _ in published]
    below, single = con.execute(f"""
        WITH c AS ({' UNION ALL '.join(parts)}),
        joined AS (SELECT pid, diagnosis, list_reduce(list(cand), lambda x, y: list_intersect(x, y)) AS cand
                   FROM c GROUP BY pid, diagnosis)
        SELECT count(*) FILTER (WHERE len(cand) < {L}), count(*) FILTER (WHERE len(cand) = 1) FROM joined
        WHERE list_contains(cand, diagnosis)""").fetchone()
    return below, single


def test_independent_versions_disclose_in_combination_and_the_audit_says_so():
    con, published, refused = nights("independent")
    assert not refused and len(published) == 4
    narrowing, single = difference_attack(con, published)
    assert narrowing > 0 and single > 0            # the attack of issue 36 works on plain Mondrian
    assert membership_difference_attack(con, published)[1] > narrowing   # and more so through shifted boxes
    audit = con.execute("SELECT figures::JSON->'combination' FROM _anon_releases._audit ORDER BY version").fetchall()
    figures = [json.loads(a[0]) for a in audit]
    assert figures[0]["compared"] == [] and figures[-1]["compared"] == [1, 2, 3]
    assert sum(f["isolated"] for f in figures) > 0   # the gate measured what the attack found


def test_invariant_versions_hold_against_both_attacks(caplog):
    with caplog.at_level(logging.WARNING, logger="anonymizer"):
        con, published, refused = nights("invariant")
    assert not refused and [v for v, _, _ in published] == [1, 2, 3, 4]
    assert difference_attack(con, published) == (0, 0)
    narrowing, narrowed, pairs = membership_difference_attack(con, published)
    assert (narrowing, narrowed) == (0, 0) and pairs > 1000   # the classes whose members are known, compared
    assert intersection_attack(con, published) == (0, 0)
    for _, truth, r in published:   # every real row is published; counterfeits come on top
        (real,) = con.execute(f"SELECT count(*) FROM {truth}").fetchone()
        fakes = r.algorithm.get("invariance", {}).get("counterfeits", 0)
        assert r.rows_out - fakes == real and r.suppressed == 0
    (shown,) = con.execute('SELECT sum(counterfeits) FROM _anon_releases."dx__v4__classes"').fetchone()
    assert shown == published[-1][2].algorithm["invariance"]["counterfeits"] > 0   # published per class
    (thin,) = con.execute(f'SELECT count(*) FROM (SELECT eq_class, count(*) AS n FROM _anon_releases."dx__v4" GROUP BY 1) '
                          f'JOIN _anon_releases."dx__v4__classes" USING (eq_class) WHERE n - counterfeits < {K}').fetchone()
    assert thin == published[-1][2].algorithm["invariance"]["thin_classes"] > 0   # k counts counterfeits: the audit says how often
    # a version whose counterfeits pass a tenth of what it publishes says so
    shares = [r.algorithm.get("invariance", {}).get("counterfeits", 0) / r.rows_out for _, _, r in published]
    warned = [m for m in caplog.messages if "are counterfeits, the places of people who left" in m]
    assert len(warned) == sum(share > 0.1 for share in shares) > 0
    assert f"({round(100 * shares[-1])} %)" in warned[-1]


def test_without_a_person_key_the_gate_still_refuses_a_disclosing_difference():
    con = duckdb.connect()
    people(con, "people", 4000)
    s = dict(spec("invariant"), history={"guarantee": "invariant"})
    anonymize(s, con)
    churn(con, night=1, leave=0.05, joiners=400)
    with pytest.raises(PrivacyCheckFailed, match="across versions"):
        anonymize(s, con)
    assert con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone() == (1,)   # v1 only


@pytest.mark.parametrize("history, field", [("sometimes", "history"), ({"person": "age"}, "history.person"),
                                            ({"person": "nobody"}, "history.person"), (7, "history"),
                                            ({"guarantee": "invariant", "keep": 1}, "history")])
def test_history_options_reject_nonsense(history, field):
    from anonymizer.errors import SpecError
    from anonymizer.spec.parse import load_spec
    with pytest.raises(SpecError) as err:
        load_spec(dict(spec("invariant"), history=history))
    assert err.value.field.startswith(field)


def test_a_repeated_person_key_or_a_passed_through_column_publishes_nothing():
    from anonymizer.errors import DataError, UnsupportedError
    con = duckdb.connect()
    people(con, "people", 400)
    con.execute("UPDATE people SET pid = 0 WHERE pid < 3")
    with pytest.raises(DataError, match="history.person pid.*repeats"):
        anonymize(spec("invariant"), con)
    con.execute("CREATE OR REPLACE TABLE people AS SELECT row_number() OVER () AS pid, * EXCLUDE (pid) FROM people")
    s = spec("invariant")
    s["columns"] = dict(s["columns"], sex="insensitive")
    with pytest.raises(UnsupportedError, match="passed-through column"):
        anonymize(s, con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone() == (0,)


def collision(con, name: str = "tiny") -> dict:
    """Version 1 of ``name``: two people aged 30 (flu, cold) and two aged 40. Then the two
    aged 30 leave and two others aged 30 join (flu, hiv): their new group would publish box
    '30' again with {flu, hiv}, and the difference with v1's {flu, cold} would give one
    joiner's hiv away. Returns the spec (version 1 published)."""
    con.execute(f'CREATE TABLE "{name}" (pid INTEGER, age INTEGER, dx VARCHAR)')
    con.execute(f"""INSERT INTO "{name}" VALUES (1, 30, 'flu'), (2, 30, 'cold'), (3, 40, 'flu'), (4, 40, 'cold')""")
    s = {"release": name, "source": {"table": name}, "columns": {"pid": "identifier", "age": "quasi", "dx": "sensitive"},
         "models": [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "dx"}],
         "history": {"person": "pid"}}
    anonymize(s, con)
    con.execute(f"""DELETE FROM "{name}" WHERE pid <= 2; INSERT INTO "{name}" VALUES (5, 30, 'flu'), (6, 30, 'hiv')""")
    return s


def test_a_new_group_on_an_earlier_box_is_merged_not_published_apart():
    con = duckdb.connect()
    r = anonymize(collision(con), con)
    assert r.version == 2 and r.algorithm["invariance"]["merges"] == 1
    boxes = con.execute('SELECT age, class_size FROM _anon_releases."tiny__v2__classes"').fetchall()
    assert boxes == [("[30, 40]", 4)]                  # not '30' with {flu, hiv} beside v1's '30' with {flu, cold}
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 2").fetchone()
    gate = json.loads(figures)["combination"]
    assert gate["compared"] == [1] and gate["isolated"] == 0 and all(not d["failing"] for d in gate["difference"])


def test_history_and_the_report_show_what_versions_disclose_together(tmp_path):
    from anonymizer.cli.history import format_history
    from anonymizer.engine.session import Engine
    from anonymizer.release.history import history
    con, published, _ = nights("invariant", versions=3)
    found = history(Engine(con), "_anon_releases", "dx")
    last = found["versions"][-1]["combination"]
    assert last["guarantee"] == "invariant" and last["compared"] == [1, 2] and last["isolated"] == 0
    assert last["smallest"] >= L and last["counterfeits"] == published[-1][2].algorithm["invariance"]["counterfeits"]
    assert "0 people isolated by a difference; smallest candidate set" in format_history(found)


def test_signatures_start_after_versions_published_independent():
    """Two nights under independent (with the person key, so the private state follows each
    class), then invariant: the third version keeps the second's classes as groups; people
    whom the first two already narrowed are counted, and not narrowed further."""
    con = duckdb.connect()
    people(con, "people", 4000)
    results = []
    for night, guarantee in enumerate(("independent", "independent", "invariant", "invariant")):
        if night:
            churn(con, night=night, leave=0.05, joiners=400, change=0.02)
        results.append(anonymize(spec(guarantee), con))
    assert [r.version for r in results] == [1, 2, 3, 4]
    rows = con.execute("SELECT version, figures FROM _anon_releases._audit ORDER BY version").fetchall()
    gates = {v: json.loads(f)["combination"] for v, f in rows}
    assert gates[2]["isolated"] > 0                                     # measured, published anyway
    assert gates[3]["intersection"]["already_below"] > 0 and gates[3]["intersection"]["below"] == 0
    assert gates[3]["isolated"] == gates[4]["isolated"] == 0 and gates[4]["compared"] == [1, 2, 3]
    assert [r.algorithm["invariance"]["previous"] for r in results[2:]] == [2, 3]


def test_signatures_start_after_versions_without_a_person_key():
    """A first version without history.person leaves no state: the next, with it, keeps its
    own classes as groups and merges those whose box repeats the first version's."""
    con = duckdb.connect()
    people(con, "people", 4000)
    anonymize(dict(spec("invariant"), history="invariant"), con)
    churn(con, night=1, leave=0.05, joiners=400)
    r = anonymize(spec("invariant"), con)
    assert r.version == 2 and r.algorithm["invariance"]["merges"] >= 1   # plain Mondrian's classes, merged
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 2").fetchone()
    gate = json.loads(figures)["combination"]
    assert gate["difference"][0]["shared_boxes"] > 0 and not gate["difference"][0]["failing"]
    assert gate["intersection"]["followed"] == 0   # nobody was followed before: v1 kept no state


def test_state_that_would_not_outlive_the_run_is_refused_before_any_work(tmp_path):
    """The private state lives in the run's own database: in memory while the release goes to
    a database file, or read-only, it would be lost (the next version would follow no one)."""
    from anonymizer.errors import SpecError
    con = duckdb.connect()
    people(con, "people", 400)
    s = dict(spec("invariant"), output={"database": str(tmp_path / "out.duckdb")})
    with pytest.raises(SpecError, match="in memory while the release goes to output.database"):
        anonymize(s, con)
    anonymize(dict(s, history="independent"), con)   # nothing to keep: it publishes
    src = duckdb.connect(str(tmp_path / "src.duckdb"))
    people(src, "people", 400)
    src.close()
    ro = duckdb.connect(str(tmp_path / "src.duckdb"), read_only=True)
    with pytest.raises(SpecError, match="open read-only"):
        anonymize(dict(spec("invariant"), output={"database": str(tmp_path / "out2.duckdb")}), ro)


def test_a_lost_private_state_is_refused_not_started_afresh():
    """The state v1 wrote is gone (dropped by hand, or a run killed between the statements
    that rewrite it on Spark): v2 is refused before any work, naming the state, and nothing
    is published, rather than following no one across the gap."""
    from anonymizer.errors import DataError
    con = duckdb.connect()
    people(con, "people", 400)
    anonymize(spec("invariant"), con)
    con.execute('DROP TABLE _anon_state."dx__people"; DROP TABLE _anon_state."dx__groups"')
    churn(con, night=1, leave=0.05, joiners=40)
    with pytest.raises(DataError, match=r"_anon_state\.dx__people: is missing, though v1 of release dx kept"):
        anonymize(spec("invariant"), con)
    assert con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone() == (1,)
    assert anonymize(spec("independent"), con).version == 2   # measured, not kept: it publishes


def test_the_audit_fingerprint_tells_a_change_not_which_rows():
    """Two versions' fingerprints differ when the source did, and say nothing more: a digest,
    not a hash sum whose difference is the changed rows' hashes (a known person's value
    could be tested against it)."""
    import re
    con = duckdb.connect()
    people(con, "people", 400)
    s = dict(spec("independent"), release="fp")
    anonymize(s, con)
    con.execute("UPDATE people SET diagnosis = 'hiv' WHERE pid = 7")
    anonymize(s, con)
    prints = [p for (p,) in con.execute("SELECT source_fingerprint FROM _anon_releases._audit ORDER BY version").fetchall()]
    assert len(set(prints)) == 2 and all(re.fullmatch(r"[0-9a-f]{32}", p) for p in prints)   # no row count either


def test_two_sensitive_columns_are_refused_under_invariant_with_a_person_key():
    from anonymizer.errors import UnsupportedError
    con = duckdb.connect()
    people(con, "people", 400)
    s = spec("invariant")
    s["columns"] = dict(s["columns"], sex="sensitive")
    with pytest.raises(UnsupportedError, match="one sensitive column's signature"):
        anonymize(s, con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone() == (0,)


def test_people_who_leave_and_come_back_keep_their_signature():
    """Leavers of night 1 come back on night 2 with their values. One whose place a joiner
    took goes to a class publishing the same multiset as theirs did, or is held back
    (suppressed) that version; every version publishes and both attacks find no one."""
    con = duckdb.connect()
    people(con, "people", 4000)
    published = []
    for night in range(4):
        if night:
            night_of_returns(con, night)
        con.execute(f"CREATE TABLE truth_{night} AS SELECT * FROM people")
        r = anonymize(dict(spec("invariant"), suppression_limit=0.02), con)
        published.append((r.version, f"truth_{night}", r))
    back = published[2][2]
    assert back.algorithm["invariance"]["returners_held"] + back.algorithm["invariance"]["held_back"] == back.suppressed
    assert difference_attack(con, published) == (0, 0)
    narrowing, narrowed, pairs = membership_difference_attack(con, published)
    assert (narrowing, narrowed) == (0, 0) and pairs > 1000   # the classes whose members are known, compared
    assert intersection_attack(con, published) == (0, 0)


def test_the_memory_grows_with_what_changed_not_with_the_versions():
    """A box a version publishes again with the multiset the memory holds for it is not
    stored again (remember.sql.j2): re-publishing an unchanged table adds nothing, a night of
    churn adds only the boxes it changed, and the gate still compares with what was published."""
    con = duckdb.connect()
    people(con, "people", 1000)
    memory = 'SELECT count(*), count(DISTINCT version) FROM _anon_releases._classes'
    anonymize(spec("invariant"), con)
    (first, _), boxes = con.execute(memory).fetchone(), con.execute(
        "SELECT count(DISTINCT box) FROM _anon_releases._classes").fetchone()[0]
    anonymize(spec("invariant"), con, force=True)
    assert con.execute(memory).fetchone() == (first, 1)
    churn(con, night=1, leave=0.02, joiners=20, change=0.0)
    r = anonymize(spec("invariant"), con)
    rows, versions = con.execute(memory).fetchone()
    added = con.execute("SELECT count(DISTINCT box) FROM _anon_releases._classes WHERE version = 3").fetchone()[0]
    assert versions == 2 and 0 < added < boxes and rows > first
    (gate,) = con.execute("SELECT figures::JSON->'combination' FROM _anon_releases._audit WHERE version = 3").fetchone()
    assert json.loads(gate)["compared"] == [1] and r.version == 3


def test_full_domain_keeps_publishing_through_heavy_churn():
    """Issue 55: a full-domain release under invariant, 8 % joining, 4 % leaving and 2 %
    changing a night, was refused at its second or third version (its new rows, a sparse
    sample, left most of their cells at its levels under k). Mondrian groups them instead,
    and every version publishes within the suppression limit, the gate finding no one."""
    con = duckdb.connect()
    people(con, "people", 4000)
    columns = {"pid": "identifier", "age": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10, 20]}},
               "zip": {"role": "quasi", "hierarchy": {"masking": True}}, "sex": "quasi", "diagnosis": "sensitive"}
    fd = {**spec("invariant"), "columns": columns, "suppression_limit": 0.1,
          "models": [{"type": "k-anonymity", "k": 8}, {"type": "distinct-l-diversity", "l": L, "sensitive": "diagnosis"}],
          "algorithm": {"name": "full-domain", "levels": {"age": 2, "zip": 4, "sex": 0}}}
    for night in range(4):
        if night:
            (n,) = con.execute("SELECT count(*) FROM people").fetchone()
            churn(con, night=night, leave=0.04, joiners=round(0.08 * n), change=0.02)
        r = anonymize(fd, con)
        assert r.version == night + 1 and r.suppressed <= 0.1 * r.rows_in
        if night:
            assert r.algorithm["invariance"]["held_back"] == 0 and r.algorithm["invariance"]["new_rows"] > 0
    audit = con.execute("SELECT figures::JSON->'combination' FROM _anon_releases._audit ORDER BY version").fetchall()
    gates = [json.loads(a[0]) for a in audit]
    assert gates[-1]["compared"] == [1, 2, 3]
    assert all(g["isolated"] == 0 and g["intersection"]["below"] == 0 for g in gates)
