"""``anonymizer history``, ``rollback`` and ``prune`` on a database file (issue 19)."""

from __future__ import annotations

import json

import duckdb

from tests.release.test_history import yaml_spec
from tests.release.test_view_ownership import make_people


def test_history_rollback_prune_from_the_command_line(invoke, tmp_path):
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    make_people(con, 300)
    con.close()
    for k in (5, 10, 3):
        spec = tmp_path / f"s{k}.yml"
        spec.write_text(yaml_spec(k))
        assert invoke("run", spec, "--db", db, "-q").exit_code == 0
    shown = invoke("history", "people", "--db", db)
    assert shown.exit_code == 0 and "* v3  publish" in shown.stdout and "node      age" in shown.stdout
    back = invoke("rollback", "people", "--to", 1, "--db", db, "--json")
    assert json.loads(back.stdout) == {"ok": True, "release": "people", "version": 4, "rolled_back_to": 1,
                                       "snapshot": "_anon_releases.people__v1",
                                       "views": ["published.people", "published.people_classes"]}
    found = json.loads(invoke("history", "people", "--db", db, "--json").stdout)
    assert [(v["version"], v["event"], v["current"]) for v in found["versions"]] == [
        (1, "publish", False), (2, "publish", False), (3, "publish", False), (4, "rollback", True)]
    pruned = invoke("prune", "people", "--keep", 1, "--db", db)
    assert "keeps v1, v3; dropped 1 version(s)" in pruned.stdout and "v2: _anon_releases.people__v2," in pruned.stdout
    refused = invoke("rollback", "people", "--to", 2, "--db", db)
    assert refused.exit_code == 2 and "pruned" in refused.output
    assert invoke("report", "people", "--version", 4, "--db", db).stdout.count("spec (as written") == 1
