"""Issue 55: a person key that no longer names the people it named is refused before any work.

A release with ``history: {guarantee: invariant, person: KEY}`` follows each person across
versions by the key's text. A key read back in another type, re-encoded, regenerated or
permuted by a reload makes everyone look new: the gate would find no one to follow, and an
adversary who follows people by their quasi-identifiers would intersect the versions on both
sides. Each way is refused (DataError naming the column, exit 2 on the command line) in every
family, and nothing published changes; a legitimate churn of a few per cent publishes; with
``history.key_map`` the version publishes and the adversary who intersects the versions by
QIs finds no one below l (the attacks of ``test_versions.py`` and ``test_versions_anatomy.py``,
which share no code with the check, :mod:`anonymizer.versions.keys`).
"""

from __future__ import annotations

import json

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.datasets import patients as ir_data
from anonymizer.datasets.churn import churn, people
from anonymizer.errors import DataError
from tests.privacy import test_versions, test_versions_anatomy

#: family -> (release, key column, spec on table ``src``); small tables: each test runs one or two versions
SMALL = {"codes": 6, "mean_records": 1.6, "max_records": 3}
PEOPLE_COLUMNS = {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"}
FAMILIES = {
    "generalized": ("dx", "pid", {"release": "dx", "source": {"table": "src"}, "columns": PEOPLE_COLUMNS,
                                  "models": [{"type": "k-anonymity", "k": 5},
                                             {"type": "distinct-l-diversity", "l": 3, "sensitive": "diagnosis"}]}),
    "anatomy": ("an", "pid", {"release": "an", "source": {"table": "src"}, "columns": PEOPLE_COLUMNS,
                              "algorithm": {"name": "mbf"}, "models": [{"type": "multi-l-diversity", "l": 3}],
                              "suppression_limit": 0.02}),
    "lgb": ("lg", "pid", {"release": "lg", "source": {"table": "src"}, "columns": PEOPLE_COLUMNS,
                          "algorithm": {"name": "lgb-mdp"}, "suppression_limit": 0.05,
                          "models": [{"type": "k-anonymity", "k": 5}, {"type": "l-unique", "l": 3}]}),
    "identity_reserved": ("ir", "patient_id", ir_data.patients_spec(
        "src", qis=3, model={"type": "eir-l-diversity", "l": 2}, algorithm={"name": "danonyir"}, release="ir")
        | {"suppression_limit": 0.1}),
}


def spec(family: str, **history) -> dict:
    release, key, s = FAMILIES[family]
    return s | {"history": {"guarantee": "invariant", "person": key, **history}}


def first_version(family: str, key_type: str | None = "BIGINT") -> duckdb.DuckDBPyConnection:
    """Table ``src`` (its person key of ``key_type``, or ``None``: as the data set makes it;
    a copy as ``orig``) and its version 1."""
    con = duckdb.connect()
    if family == "identity_reserved":
        ir_data.patients(con, "patients", 200, seed=1, **SMALL)
        key = "patient_id" if key_type is None else f"CAST(substr(patient_id, 2) AS BIGINT)::{key_type}"
        con.execute(f"CREATE TABLE orig AS SELECT * REPLACE ({key} AS patient_id) FROM patients")
    else:
        people(con, "people", 600)
        con.execute(f"CREATE TABLE orig AS SELECT * REPLACE (pid::{key_type or 'BIGINT'} AS pid) FROM people")
    con.execute("CREATE TABLE src AS SELECT * FROM orig")
    assert anonymize(spec(family), con).version == 1
    return con


#: how a key changes between two runs: (key type of version 1, the new key from the old one ``k``, what the error says)
CHANGES = {
    "double": ("BIGINT", "{k}::DOUBLE", "is DOUBLE in src now and was BIGINT"),
    "re-encoded": ("VARCHAR", "lpad({k}, 12, '0')", "found again in src by their QI and sensitive values"),
    "regenerated": ("BIGINT", "{k} + 1000000", "found again in src by their QI and sensitive values"),
    "permuted": ("BIGINT", "(SELECT max({k}) FROM orig) - {k}", "found again in src by their QI and sensitive values"),
    "churn": ("BIGINT", None, "have no key in src now (history.max_churn 0.5)"),
}


def published_state(con, release: str) -> tuple:
    """What a refusal must leave as it was: the audit, the views, the snapshots and the private state."""
    audit = con.execute("SELECT * FROM _anon_releases._audit ORDER BY version").fetchall()
    views = con.execute("SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL").fetchall()
    tables = con.execute("SELECT schema_name, table_name, estimated_size FROM duckdb_tables() "
                         "WHERE schema_name IN ('_anon_releases', 'published', '_anon_state') ORDER BY ALL").fetchall()
    state = con.execute(f"SELECT count(*), sum(hash(version, pid)) FROM _anon_state.{release}__people").fetchone()
    return audit, views, tables, state


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_changed_person_key_is_refused_before_any_work(family, change):
    key_type, new_key, says = CHANGES[change]
    release, key, _ = FAMILIES[family]
    con = first_version(family, key_type)
    before = published_state(con, release)
    if new_key is None:   # two thirds leave at once: no key of theirs in the source
        con.execute(f"DELETE FROM src WHERE hash({key}) % 3 <> 0")
    else:
        con.execute(f"CREATE OR REPLACE TABLE src AS SELECT * REPLACE ({new_key.format(k=key)} AS {key}) FROM orig")
    with pytest.raises(DataError, match=f"history.person {key}") as refused:
        anonymize(spec(family), con)
    assert says in str(refused.value) and "history.key_map" in str(refused.value)
    assert published_state(con, release) == before   # nothing published, the state as it was


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_dry_run_refuses_a_changed_key_too(family):
    """A dry run says before the night what the night would refuse; with a key map (which
    rewrites the state) it says the check waits for the run that publishes."""
    release, key, _ = FAMILIES[family]
    con = first_version(family, "BIGINT")
    con.execute(f"CREATE OR REPLACE TABLE src AS SELECT * REPLACE ({key} + 1000000 AS {key}) FROM orig")
    before = published_state(con, release)
    with pytest.raises(DataError, match=f"history.person {key}"):
        anonymize(spec(family), con, publish=False)
    con.execute(f"CREATE TABLE key_map AS SELECT {key} AS old, {key} + 1000000 AS new FROM orig")
    said = []
    assert anonymize(spec(family, key_map={"table": "key_map", "old": "old", "new": "new"}), con, publish=False,
                     progress=said.append).dry_run
    assert any("history.key_map is applied, and the person key checked, only when" in m for m in said)
    assert published_state(con, release) == before


def test_the_command_line_refuses_a_changed_key_with_exit_2(tmp_path):
    from click.testing import CliRunner
    from anonymizer.cli import main
    db = tmp_path / "db.duckdb"
    con = duckdb.connect(str(db))
    people(con, "src", 300)
    con.close()
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(spec("generalized")))
    run = lambda: CliRunner().invoke(main, ["run", str(spec_path), "--db", str(db)], prog_name="anonymizer")  # noqa: E731
    assert run().exit_code == 0
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * REPLACE (pid::DOUBLE AS pid) FROM src")
    res = run()
    assert res.exit_code == 2 and "history.person pid" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("family", ["generalized", "anatomy", "lgb"])
@pytest.mark.parametrize("how", ["permuted", "renumbered, age read as DOUBLE"])
def test_keys_reassigned_among_people_whose_values_repeat_are_refused(family, how):
    """Review of issue 55: where QI and sensitive values repeat, permuted keys land on people
    with the same values often enough that chance explains the people found again under
    another key; and a column read in another type changes every person's values, so no one
    is found again at all. Both leave the keys returning with other values, which is refused."""
    release, key, _ = FAMILIES[family]
    con = duckdb.connect()
    people(con, "people", 600)
    con.execute("CREATE TABLE orig AS SELECT * REPLACE (age // 40 * 40 AS age, 10000 + zip % 2 AS zip) FROM people")
    con.execute("CREATE TABLE src AS SELECT * FROM orig")
    assert anonymize(spec(family), con).version == 1
    before = published_state(con, release)
    new = ("(SELECT max(pid) FROM orig) - pid" if how == "permuted"
           else "row_number() OVER (ORDER BY hash(pid)) - 1")
    age = "age" if how == "permuted" else "age::DOUBLE"
    con.execute(f"CREATE OR REPLACE TABLE src AS SELECT * REPLACE ({new} AS pid, {age} AS age) FROM orig")
    with pytest.raises(DataError, match="came back with other QI or sensitive values"):
        anonymize(spec(family), con)
    assert published_state(con, release) == before


def test_a_key_widened_to_another_integer_type_names_the_same_people():
    """INTEGER read back as BIGINT (Parquet's int32 as int64) keeps the key's text: not refused."""
    con = first_version("generalized", "INTEGER")
    con.execute("CREATE OR REPLACE TABLE src AS SELECT * REPLACE (pid::BIGINT AS pid) FROM orig")
    assert anonymize(spec("generalized"), con, force=True).version == 2   # the same rows: forced


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_legitimate_churn_of_a_few_per_cent_publishes(family):
    con = first_version(family, None)
    if family == "identity_reserved":   # 5 % leave, 5 % join, 2 % gain a record
        ir_data.churn(con, "src", night=1, leave=0.05, joiners=10, change=0.02, **SMALL)
    else:
        churn(con, "src", night=1, leave=0.05, joiners=30, change=0.02)
    assert anonymize(spec(family), con).version == 2


def test_the_shares_are_options():
    """history.max_churn lets a release whose people really left publish."""
    con = first_version("generalized")
    con.execute("DELETE FROM src WHERE hash(pid) % 3 <> 0")
    with pytest.raises(DataError, match="max_churn"):
        anonymize(spec("generalized"), con)
    assert anonymize(spec("generalized", max_churn=0.8), con).version == 2


def _two_nights(family: str, new_key: str):
    """Version 1 on integer keys, then a night of 5 % churn after which a reload gave everyone
    a new key, ``new_key`` of the old ``pid`` (the old key of one may be the new key of
    another); the view ``src`` shows the new keys. The truth tables keep each person's
    original ``pid`` (the adversary knows people, not keys). Returns the connection and v1."""
    con = duckdb.connect()
    people(con, "people", 600)
    con.execute("CREATE VIEW src AS SELECT * FROM people")
    first = anonymize(spec(family), con)
    con.execute("CREATE TABLE truth_0 AS SELECT * FROM people")
    churn(con, "people", night=1, leave=0.05, joiners=30, change=0.02)
    con.execute("CREATE TABLE truth_1 AS SELECT * FROM people")
    con.execute(f"CREATE TABLE keymap AS SELECT pid AS old, {new_key} AS new FROM truth_0")
    con.execute(f"CREATE OR REPLACE VIEW src AS SELECT * REPLACE ({new_key} AS pid) FROM people")
    return con, first


def _intersection_attack(family: str, con, first, second) -> int:
    """People the adversary narrows below l by intersecting the two versions by their QIs."""
    if family == "generalized":
        return sum(test_versions.intersection_attack(con, [(1, "truth_0", first), (2, "truth_1", second)]))
    return test_versions_anatomy.intersection_attack(con, [(first, "truth_0"), (second, "truth_1")])


@pytest.mark.parametrize("family", ["generalized", "anatomy"])
def test_with_a_key_map_the_versions_hold_against_the_intersection_attack(family):
    con, first = _two_nights(family, "'P' || lpad((100000 - pid)::VARCHAR, 6, '0')")
    with pytest.raises(DataError):   # without the map: refused
        anonymize(spec(family), con)
    second = anonymize(spec(family, key_map={"table": "keymap", "old": "old", "new": "new"}), con)
    assert second.version == 2
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 2").fetchone()
    gate = json.loads(figures)["combination"]["intersection"]
    (stayed,) = con.execute("SELECT count(*) FROM truth_0 SEMI JOIN truth_1 USING (pid)").fetchone()
    assert gate["below"] == 0 and gate["followed"] >= stayed   # the gate followed the people who stayed
    assert _intersection_attack(family, con, first, second) == 0


@pytest.mark.parametrize("family", ["generalized", "anatomy"])
def test_the_defect_without_the_check_the_adversary_narrows_people(family):
    """Issue 55 itself: the checks turned off (both shares at 1), permuted keys publish as if
    everyone were new, the gate finds no one below l, and the adversary who follows people by
    their QIs does."""
    con, first = _two_nights(family, "100000 - pid")
    second = anonymize(spec(family, max_churn=1, max_rekeyed=1), con)
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 2").fetchone()
    assert json.loads(figures)["combination"]["intersection"]["below"] == 0
    assert _intersection_attack(family, con, first, second) > 0


@pytest.mark.parametrize("family", ["lgb", "identity_reserved"])
def test_with_a_key_map_the_state_is_read_under_the_new_keys(family):
    """LGB and identity-reserved: the gate follows the people under their new keys, and a
    map left in the spec is not applied twice."""
    release, key, _ = FAMILIES[family]
    con = first_version(family)
    con.execute(f"CREATE TABLE keymap AS SELECT {key} AS old, 'K' || ({key} * 7)::VARCHAR AS new FROM orig")
    con.execute(f"CREATE OR REPLACE TABLE src AS SELECT * REPLACE ('K' || ({key} * 7)::VARCHAR AS {key}) FROM orig")
    mapped = spec(family, key_map={"table": "keymap", "old": "old", "new": "new"})
    with pytest.raises(DataError):
        anonymize(spec(family), con)
    assert anonymize(mapped, con).version == 2
    con.execute(f"DELETE FROM src WHERE hash({key}) % 20 = 0")   # 5 % leave; the map stays in the spec
    assert anonymize(mapped, con).version == 3
    (pids,) = con.execute(f"SELECT count(*) FROM _anon_state.{release}__people WHERE pid NOT LIKE 'K%'").fetchone()
    assert pids == 0
    gates = [json.loads(f)["combination"]["intersection"] for (f,) in
             con.execute("SELECT figures FROM _anon_releases._audit ORDER BY version").fetchall()]
    assert all(g["below"] == 0 for g in gates) and gates[1]["followed"] > 0


def test_a_key_map_the_checks_refuse_leaves_the_private_state_as_it_was():
    """A map that sends each old key to a neighbour's new key: the people come back under the
    mapped keys with other values, the run is refused, and the state and the key record are
    those of version 1 (the map and the check run in one transaction)."""
    con, _ = _two_nights("generalized", "'P' || (100000 - pid)::VARCHAR")
    con.execute("CREATE TABLE wrong AS SELECT old, 'P' || (100001 - old)::VARCHAR AS new FROM keymap")
    before = con.execute("SELECT * FROM _anon_state.dx__people ORDER BY ALL").fetchall()
    with pytest.raises(DataError, match="found again in src by their QI and sensitive values under another key"):
        anonymize(spec("generalized", key_map={"table": "wrong", "old": "old", "new": "new"}), con)
    assert con.execute("SELECT * FROM _anon_state.dx__people ORDER BY ALL").fetchall() == before
    assert con.execute("SELECT version, map_print FROM _anon_state.dx__key_meta").fetchall() == [(1, None)]
    assert anonymize(spec("generalized", key_map={"table": "keymap", "old": "old", "new": "new"}), con).version == 2


@pytest.mark.parametrize("history, field", [
    ({"person": "pid", "max_churn": 1.5}, "history.max_churn"),
    ({"person": "pid", "max_rekeyed": -0.1}, "history.max_rekeyed"),
    ({"key_map": {"table": "m", "old": "a", "new": "b"}}, "history.key_map"),
    ({"person": "pid", "key_map": {"table": "m", "old": "a"}}, "history.key_map"),
    ({"person": "pid", "key_map": {"table": "m", "old": "a", "new": "a"}}, "history.key_map.new"),
    ({"person": "pid", "key_map": {"table": "m", "old": "a", "new": "b", "from": 1}}, "history.key_map"),
])
def test_the_spec_names_a_bad_history_field(history, field):
    from anonymizer.errors import SpecError
    from anonymizer.spec import load_spec
    with pytest.raises(SpecError) as bad:
        load_spec(FAMILIES["generalized"][2] | {"history": history})
    assert bad.value.field.startswith(field)


def test_a_key_map_table_that_maps_a_key_twice_is_refused():
    con = first_version("generalized")
    con.execute("CREATE TABLE keymap AS SELECT pid AS old, pid % 10 AS new FROM orig")
    with pytest.raises(DataError, match="history.key_map keymap: must map each old key to one new key"):
        anonymize(spec("generalized", key_map={"table": "keymap", "old": "old", "new": "new"}), con)
    with pytest.raises(DataError, match="history.key_map nowhere: cannot be read"):
        anonymize(spec("generalized", key_map={"table": "nowhere", "old": "old", "new": "new"}), con)
    with pytest.raises(DataError, match="history.key_map keymap: cannot be read .* no column 'newer'"):
        anonymize(spec("generalized", key_map={"table": "keymap", "old": "old", "new": "newer"}), con)
