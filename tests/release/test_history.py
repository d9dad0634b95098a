"""The audit trail (issue 19): what a publication records, history, rollback and prune.

Each publication's audit row holds the spec as written (never its seed), the publish time,
the library's and DuckDB's versions, the chosen lattice node or the algorithm's parameters,
and per model the achieved figure. ``rollback`` re-points the views at an earlier
snapshot and is audited; ``prune`` drops old snapshots and marks their rows. Small
synthetic tables keep the tests fast."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace
from importlib.metadata import version as installed

import duckdb
import pandas as pd
import pytest

from anonymizer import anonymize
from anonymizer.engine.session import Engine
from anonymizer.errors import AnonymizerError, SpecError
from anonymizer.release.history import history, prune, rollback
from anonymizer.spec.text import spec_text
from anonymizer.spec.parse import load_spec
from tests.release.test_view_ownership import content, make_people, snapshots, view_sql

SCHEMA = "_anon_releases"


def yaml_spec(k: int, algorithm: str = "{name: optimal, seed: 7}", limit: float = 0.05) -> str:
    return f"""# people, generalized along hierarchies
release: people
source: {{table: people}}
columns:
  age: {{role: quasi, type: numeric, hierarchy: {{intervals: [5, 10, 20]}}}}
  zip: {{role: quasi, hierarchy: {{masking: true}}}}
  disease: {{role: sensitive}}
models:
  - {{type: k-anonymity, k: {k}}}
algorithm: {algorithm}
suppression_limit: {limit}
"""


@pytest.fixture
def people(con):
    make_people(con, 300)
    return con


def rows(con) -> list[dict]:
    cur = con.execute(f"SELECT * FROM {SCHEMA}._audit ORDER BY version")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def state(con) -> tuple:
    """Everything a refused command must leave as it was."""
    return (rows(con), snapshots(con), view_sql(con, "published", "people"), view_sql(con, "published", "people_classes"))


def test_a_publication_records_spec_text_time_versions_and_node(people):
    before = datetime.datetime.now()
    text = yaml_spec(5)
    anonymize(load_spec(text), people)
    (row,) = rows(people)
    assert "seed" not in row["spec_text"] and "# people, generalized" in row["spec_text"]   # as written, seed cut
    original = load_spec(text)
    assert load_spec(row["spec_text"]) == replace(original, algorithm=replace(original.algorithm, seed=None))
    assert row["engine_version"] == f"duckdb {duckdb.__version__}"
    assert row["library_version"] == installed("anonymizer")
    assert row["event"] == "publish" and row["rolled_back_to"] is None and row["pruned_at"] is None
    assert before - datetime.timedelta(seconds=1) <= row["published_at"] <= datetime.datetime.now()
    parameters, figures = json.loads(row["parameters"]), json.loads(row["figures"])
    assert set(parameters["chosen"]["levels"]) == {"age", "zip"}            # not {} as before
    assert parameters["algorithm"]["levels"] == {} and "seed" not in parameters["algorithm"]
    assert [(m["model"], m["figure"]) for m in figures["models"]] == [("5-anonymity", 5)]


def test_a_dict_spec_is_recorded_as_json_without_its_seed():
    spec = load_spec({"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi"},
                      "models": [{"type": "k-anonymity", "k": 2}], "algorithm": {"name": "mondrian", "seed": 3}})
    assert json.loads(spec_text(spec)) == {**spec.raw, "algorithm": {"name": "mondrian"}}
    flow_first = load_spec(yaml_spec(2, "{seed: 9, name: optimal}"))
    block = load_spec(yaml_spec(2, "\n  name: optimal\n  seed: 11"))
    for parsed in (flow_first, block):
        assert "seed" not in spec_text(parsed) and load_spec(spec_text(parsed)).algorithm.name == "optimal"


def test_the_chosen_node_reproduces_the_optimal_release(people):
    """Full-domain generalization of the source at the node the audit names gives the rows
    optimal published, and the classes are k-anonymous (counted by pandas)."""
    r = anonymize(load_spec(yaml_spec(5, limit=0.0)), people)
    levels = json.loads(rows(people)[0]["parameters"])["chosen"]["levels"]
    again = anonymize(load_spec(yaml_spec(5, f"{{name: full-domain, levels: {json.dumps(levels)}}}", 0.0)
                                .replace("release: people", "release: again")
                                .replace("limit: 0.0", "limit: 0.0\noutput: {view: again}")), people)
    cols = "age, zip, disease"
    ours = people.execute(f"SELECT {cols} FROM {r.view} ORDER BY ALL").fetchall()
    assert ours == people.execute(f"SELECT {cols} FROM {again.view} ORDER BY ALL").fetchall()
    sizes = pd.DataFrame(ours, columns=["age", "zip", "disease"]).groupby(["age", "zip"]).size()
    assert len(ours) == 300 and sizes.min() >= 5


@pytest.mark.parametrize("algorithm,keys", [("{name: privacyfrost2}", {"levels", "score"}),
                                            ("{name: full-domain, levels: {age: 2, zip: 1}}", {"levels"}),
                                            ("{name: mondrian}", {"cells", "rounds", "relaxed"})])
def test_every_family_records_what_it_chose(people, algorithm, keys):
    anonymize(load_spec(yaml_spec(5, algorithm, 0.2)), people)
    chosen = json.loads(rows(people)[0]["parameters"])["chosen"]
    assert keys <= set(chosen) and "trace" not in chosen and not [k for k in chosen if "seconds" in k]
    if "full-domain" in algorithm:
        assert chosen["levels"] == {"age": 2, "zip": 1}


def three_versions(con) -> list[tuple]:
    """Publish k = 5, 10, 3; return each version's view content."""
    seen = []
    for k in (5, 10, 3):
        anonymize(load_spec(yaml_spec(k)), con)
        seen.append(content(con, "published.people"))
    return seen


def test_rollback_repoints_both_views_audits_and_a_later_run_publishes_anew(people):
    seen = three_versions(people)
    engine = Engine(people)
    done = rollback(engine, SCHEMA, "people", 1)
    assert done["version"] == 4 and done["views"] == ["published.people", "published.people_classes"]
    assert content(people, "published.people") == seen[0]
    assert content(people, "published.people_classes") == content(people, f'{SCHEMA}."people__v1__classes"')
    last = rows(people)[-1]
    assert (last["event"], last["rolled_back_to"], last["snapshot"]) == ("rollback", 1, f"{SCHEMA}.people__v1")
    assert history(engine, SCHEMA, "people")["current"] == 4
    r = anonymize(load_spec(yaml_spec(5)), people)   # v1's spec: a rollback is not "unchanged"
    assert (r.version, r.unchanged) == (5, False) and r.snapshot == f"{SCHEMA}.people__v5"
    assert content(people, "published.people") == seen[0]
    assert anonymize(load_spec(yaml_spec(5)), people).unchanged   # now it is
    assert history(engine, SCHEMA, "people")["current"] == 5


def test_prune_drops_all_but_the_newest_and_never_what_the_view_reads(people):
    three_versions(people)
    engine = Engine(people)
    rollback(engine, SCHEMA, "people", 1)
    before = snapshots(people)
    v2_rows = sum(content(people, f'{SCHEMA}."{t}"')[0] for t in ("people__v2", "people__v2__classes"))
    assert prune(engine, SCHEMA, "people", 1, dry_run=True)["dropped"][0]["version"] == 2
    assert snapshots(people) == before                                    # a dry run drops nothing
    done = prune(engine, SCHEMA, "people", 1)
    assert done["kept"] == [1, 3] and [d["version"] for d in done["dropped"]] == [2]
    assert done["rows"] == v2_rows and done["bytes_freed"] >= 0
    assert snapshots(people) == ["people__v1", "people__v1__classes", "people__v3", "people__v3__classes"]
    assert [r["version"] for r in rows(people) if r["pruned_at"] is not None] == [2]
    assert len(rows(people)) == 4
    with pytest.raises(SpecError, match="pruned"):
        rollback(engine, SCHEMA, "people", 2)
    anonymize(load_spec(yaml_spec(10)), people)                           # v5
    prune(engine, SCHEMA, "people", 1)
    assert snapshots(people) == ["people__v5", "people__v5__classes"]


def test_refusals_change_nothing(people):
    three_versions(people)
    engine = Engine(people)
    rollback(engine, SCHEMA, "people", 2)      # v4
    kept = state(people)
    for release, to, match in (("nobody", 1, "not a release"), ("people", 9, "not a version"),
                               ("people", 4, "is a rollback"), ("people", 2, "already reads")):
        with pytest.raises(SpecError, match=match):
            rollback(engine, SCHEMA, release, to)
        assert state(people) == kept
    people.execute(f'CREATE OR REPLACE VIEW published.people AS SELECT * FROM {SCHEMA}."people__v3"')
    kept = state(people)
    with pytest.raises(AnonymizerError, match="changed outside"):
        rollback(engine, SCHEMA, "people", 1)
    assert state(people) == kept and history(engine, SCHEMA, "people")["current"] is None


def test_an_old_audit_table_is_upgraded_and_its_rows_read(people):
    """A release published before the audit trail (the columns dropped again by hand), then
    published again: its row reads, ownership holds, and the new row has every field."""
    anonymize(load_spec(yaml_spec(5)), people)
    for name in ("spec_text", "published_at", "library_version", "engine_version", "event", "rolled_back_to",
                 "pruned_at"):
        people.execute(f"ALTER TABLE {SCHEMA}._audit DROP COLUMN {name}")
    engine = Engine(people)
    old = history(engine, SCHEMA, "people")
    assert old["current"] == 1 and old["versions"][0]["event"] == "publish"
    assert old["versions"][0]["published_at"] is not None      # the old row's created_at
    r = anonymize(load_spec(yaml_spec(10)), people)
    assert r.version == 2
    first, second = rows(people)
    assert first["spec_text"] is None and first["event"] is None and second["event"] == "publish"
    rollback(engine, SCHEMA, "people", 1)
    assert [v["event"] for v in history(engine, SCHEMA, "people")["versions"]] == ["publish", "publish", "rollback"]
