"""A release promotes only a view it owns, or a new one (issue 15, defect 8).

The owner of a view is the release whose latest audit row names it, and only while the view
still reads that row's snapshot. Another release's view, a view or table the anonymizer did
not create, and a release's own view repointed by hand are refused, before any work and
again inside the publishing transaction, and nothing already published changes.

The tests expect :class:`AnonymizerError` with the message, not the new error class, so that
on code without the check they fail on what happens, not on an import.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.cli import main
from anonymizer.errors import AnonymizerError, PrivacyCheckFailed
from anonymizer.release.publish import unchanged
from anonymizer.plan import spec_fingerprint
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.conftest import load_table1, table1_spec


def people_spec(release: str, k: int, view: str | None = None) -> dict:
    return {"release": release, "source": {"table": "people"},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "zip": "quasi", "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": k}],
            "output": {"view": view or release}}


BASE = people_spec("base_k5", 5, "people_k5")
OTHER = people_spec("other_k2", 2, "people_k5")


def make_people(con, rows: int = 120) -> None:
    con.execute(f"""
        CREATE TABLE people AS
        SELECT 18 + (i * 37) % 60 AS age, 'z' || ((i * 11) % 13)::VARCHAR AS zip,
               ['flu', 'cold', 'hiv', 'cancer'][1 + (i * 7) % 4] AS disease
        FROM range({rows}) t(i)""")


def smallest_class(con, view: str) -> int:
    return con.execute(f"SELECT min(n) FROM (SELECT count(*) AS n FROM {view} GROUP BY eq_class)").fetchone()[0]


def content(con, relation: str) -> tuple:
    return con.execute(f"SELECT count(*), sum(hash(t)) FROM {relation} AS t").fetchone()


def view_sql(con, schema: str, view: str) -> str | None:
    row = con.execute("SELECT sql FROM duckdb_views() WHERE schema_name = $s AND view_name = $v",
                      {"s": schema, "v": view}).fetchone()
    return row and row[0]


def snapshots(con) -> list[str]:
    return [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = '_anon_releases' "
                                      "AND table_name NOT IN ('_audit', '_classes') ORDER BY 1").fetchall()]


def audit(con) -> list[tuple]:
    return con.execute("SELECT release, version, view_name FROM _anon_releases._audit ORDER BY created_at, version"
                       ).fetchall()


def is_unchanged(con, spec: dict) -> bool:
    """What the release's own idempotency test says, asked directly."""
    from anonymizer.engine.session import Engine
    from anonymizer.plan import resolve_columns
    from anonymizer.source_profile import fingerprint
    parsed = load_spec(spec)
    engine = Engine(con)
    parsed = resolve_columns(parsed, engine.columns("people"), "people")
    return unchanged(engine, parsed.target, spec_fingerprint(parsed),
                     fingerprint(engine, parsed.columns, "people")[1]) is not None


def test_a_release_cannot_take_over_another_releases_view(con):
    make_people(con)
    base = anonymize(BASE, con)
    assert base.view == "published.people_k5" and smallest_class(con, "published.people_k5") >= 5
    before, definition = content(con, "published.people_k5"), view_sql(con, "published", "people_k5")
    said: list[str] = []
    with pytest.raises(AnonymizerError, match="view published.people_k5 belongs to release base_k5; "
                                              "choose another output.view") as refused:
        anonymize(OTHER, con, progress=said.append)
    assert not isinstance(refused.value, PrivacyCheckFailed)
    assert not any("mondrian" in m for m in said), f"refused only after the work: {said}"
    assert view_sql(con, "published", "people_k5") == definition
    assert content(con, "published.people_k5") == before
    assert content(con, '_anon_releases."base_k5__v1"')[0] == before[0]
    assert smallest_class(con, "published.people_k5") >= 5
    assert snapshots(con) == ["base_k5__v1", "base_k5__v1__classes"] and audit(con) == [("base_k5", 1, "published.people_k5")]
    assert anonymize(BASE, con).unchanged


def test_rerun_says_unchanged_only_while_the_view_is_its_own(con):
    make_people(con)
    anonymize(BASE, con)
    other = anonymize(people_spec("other_k2", 2, "people_k2"), con)   # a view of its own: allowed
    assert other.version == 1 and smallest_class(con, "published.people_k2") < 5
    assert anonymize(BASE, con).unchanged and is_unchanged(con, BASE)
    definition = view_sql(con, "published", "people_k5")
    # what the old promotion did: repoint base_k5's view at other_k2's 2-anonymous snapshot
    con.execute('CREATE OR REPLACE VIEW published.people_k5 AS SELECT * FROM _anon_releases."other_k2__v1"')
    assert not is_unchanged(con, BASE)
    for force in (False, True):
        with pytest.raises(AnonymizerError, match="view published.people_k5 of release base_k5 was changed "
                                                  "outside the anonymizer"):
            anonymize(BASE, con, force=force)
    assert content(con, "published.people_k5") == content(con, '_anon_releases."other_k2__v1"')   # left as found
    # the same two snapshots, joined as promotion did but with rows left out: not the release's
    restore = definition.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1)
    con.execute(restore.rstrip().rstrip(";") + " WHERE r.eq_class > 1")
    assert not is_unchanged(con, BASE)
    with pytest.raises(AnonymizerError, match="was changed outside the anonymizer"):
        anonymize(BASE, con, force=True)
    con.execute(restore)
    assert is_unchanged(con, BASE) and anonymize(BASE, con).unchanged   # its own again
    con.execute("DROP VIEW published.people_k5")
    again = anonymize(BASE, con)   # a dropped view is new again: the release publishes it afresh
    assert not again.unchanged and again.version == 2 and smallest_class(con, "published.people_k5") >= 5


@pytest.mark.parametrize("name", ["people_k5", "PEOPLE_K5"])
def test_a_users_own_view_is_refused_and_left_untouched(con, name):
    make_people(con)
    con.execute(f'CREATE SCHEMA published; CREATE VIEW published."{name}" AS SELECT 42 AS answer')
    definition = view_sql(con, "published", name)
    with pytest.raises(AnonymizerError, match="published.people_k5 exists and was not created by a release audited "
                                              r"in snapshot schema _anon_releases \(a view of the database: another "
                                              r"snapshot schema's, or none's\); drop it, choose another output.view"):
        anonymize(BASE, con)
    assert view_sql(con, "published", name) == definition
    assert con.execute("SELECT * FROM published.people_k5").fetchall() == [(42,)]
    assert snapshots(con) == [] and not con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = '_audit'").fetchone()[0]


def test_a_table_of_that_name_is_refused(con):
    make_people(con)
    con.execute("CREATE SCHEMA published; CREATE TABLE published.people_k5 AS SELECT 7 AS x")
    with pytest.raises(AnonymizerError, match="published.people_k5 exists and was not created by a release "
                                              r"audited in snapshot schema _anon_releases \(a table of the database"):
        anonymize(BASE, con)
    assert con.execute("SELECT * FROM published.people_k5").fetchall() == [(7,)]
    assert snapshots(con) == []


def test_a_view_taken_during_the_run_is_refused_at_publication(con):
    """The check inside the publishing transaction: the view appears after the first check."""
    make_people(con)

    def meanwhile(message: str) -> None:
        if "mondrian" in message:
            con.execute("CREATE SCHEMA IF NOT EXISTS published; CREATE VIEW published.people_k5 AS SELECT 1 AS mine")

    with pytest.raises(AnonymizerError, match="published.people_k5 exists and was not created by a release"):
        anonymize(BASE, con, progress=meanwhile)
    assert con.execute("SELECT * FROM published.people_k5").fetchall() == [(1,)]
    assert snapshots(con) == [] and audit(con) == []


def test_anatomy_part_views_are_owned_too(con):
    load_table1(con)
    con.execute("CREATE TABLE people AS SELECT Age AS age, Zipcode::VARCHAR AS zip, Disease AS disease FROM t1")
    # a generalized release holds published.t1_sensitive: anatomy release t1 may not take it
    anonymize(dict(people_spec("g", 2, "t1_sensitive")), con)
    held = content(con, "published.t1_sensitive")
    with pytest.raises(AnonymizerError, match="view published.t1_sensitive belongs to release g"):
        anonymize(table1_spec("t1"), con)
    assert content(con, "published.t1_sensitive") == held
    assert view_sql(con, "published", "t1") is None and audit(con) == [("g", 1, "published.t1_sensitive")]
    # published under another name, the anatomy release owns both of its views
    spec = dict(table1_spec("t1"), output={"view": "t1b"})
    first = anonymize(spec, con)
    assert first.views == ["published.t1b_sensitive"] and anonymize(spec, con).unchanged
    with pytest.raises(AnonymizerError, match="view published.t1b_sensitive belongs to release t1; "):
        anonymize(people_spec("h", 2, "t1b_sensitive"), con)
    # its part view repointed by hand: the re-run is refused, not "unchanged"
    con.execute('CREATE OR REPLACE VIEW published.t1b_sensitive AS SELECT * FROM _anon_releases."t1__v1__sensitive" '
                'WHERE count > 0')
    with pytest.raises(AnonymizerError, match="view published.t1b_sensitive of release t1 was changed outside"):
        anonymize(spec, con)
    assert audit(con)[-1] == ("t1", 1, "published.t1b")


def test_cli_refusal_exits_2(tmp_path):
    db = tmp_path / "w.duckdb"
    csv = tmp_path / "people.csv"
    csv.write_text("age,zip,disease\n" + "".join(f"{18 + (i * 37) % 60},z{(i * 11) % 13},{['a', 'b', 'c'][i % 3]}\n"
                                                 for i in range(120)))
    specs = {}
    for release, k in (("base_k5", 5), ("other_k2", 2)):
        specs[release] = tmp_path / f"{release}.yml"
        specs[release].write_text(f"release: {release}\nsource: {{path: {csv}, table: people}}\n"
                                  "columns: {age: quasi, zip: quasi, disease: sensitive}\n"
                                  f"models: [{{type: k-anonymity, k: {k}}}]\noutput: {{view: people_k5}}\n")
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(specs["base_k5"]), "--db", str(db)]).exit_code == 0
    refused = runner.invoke(main, ["run", str(specs["other_k2"]), "--db", str(db)])
    assert refused.exit_code == 2, refused.output
    assert "view published.people_k5 belongs to release base_k5" in refused.output
    again = runner.invoke(main, ["run", str(specs["base_k5"]), "--db", str(db), "--json"])
    assert again.exit_code == 0 and '"unchanged": true' in again.output
