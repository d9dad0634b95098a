"""The earlier form of a release in dbt, still supported: a dbt Python model calling
``anonymizer.dbt.release``, whose table is the audit row of the version it published plus
the spec's figures (``privacy``), which the package's release tests read.

The example project (:mod:`tests.dbt_runs`, the package from its local path) gets such a
model, ``adult_release_py``, over ``stg_adult``, with a spec of its own that names its
source and its view (``published.adult_k5``), the release tests, and a pre-hook (so dbt
opens a transaction around the model: the release publishes on a cursor of its own all the
same). ``dbt build`` builds it with what it depends on; a spec whose checks cannot pass then
fails it with the summary on the line under dbt-duckdb's ``Python model failed:``.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from tests.dbt_runs import (QIS, SEED_ROWS, connect, copy_example, dbt, message_lines, offline, problems,
                            results_by_name)

MODEL = '''
import anonymizer.dbt


def model(dbt, session):
    dbt.ref("stg_adult")  # the lineage edge stg_adult -> adult_release_py (the spec's source)
    return anonymizer.dbt.release(dbt, session, "releases/adult_k5_py.yml")
'''


def state(db) -> dict:
    """What the release left in the database, and the model's table."""
    with connect(db) as con:
        return {
            "audit": con.execute("SELECT release, version, view_name, spec_hash, rows_in, rows_out, suppressed "
                                 "FROM _anon_releases._audit ORDER BY version").fetchall(),
            "view_sql": con.execute("SELECT sql FROM duckdb_views() WHERE schema_name = 'published' "
                                    "AND view_name = 'adult_k5'").fetchall(),
            "model": con.execute("SELECT release, version, spec_hash, privacy FROM main.adult_release_py").fetchall(),
        }


@pytest.fixture(scope="module")
def python_model(tmp_path_factory):
    """The project with the Python model, built up to it; then its spec made to fail and run."""
    root = tmp_path_factory.mktemp("dbt_python")
    project = copy_example(root)
    releases = project / "releases"
    spec = yaml.safe_load((releases / "adult_k5.yml").read_text())
    spec.update(release="adult_k5_py", source={"table": "stg_adult"}, output={"view": "adult_k5", "schema": "published"})
    (releases / "adult_k5_py.yml").write_text(yaml.safe_dump(spec, sort_keys=False))
    (project / "models" / "releases" / "adult_release_py.py").write_text(MODEL)
    (project / "models" / "releases" / "_python.yml").write_text(yaml.safe_dump({"version": 2, "models": [{
        "name": "adult_release_py", "config": {"pre_hook": "create or replace table main.hooked as select 1 as x"},
        "data_tests": [{"anonymizer.release_k_anonymous": {"name": "python_k_anonymous"}},
                       {"anonymizer.release_l_diverse": {"name": "python_l_diverse"}}]}]}))
    db = root / "warehouse.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        offline(mp, db)
        assert dbt(project, "deps").success
        built = dbt(project, "build", "--select", "+adult_release_py")
        before = state(db) if built.success else None
        log = (project / "logs" / "dbt.log").read_text().split("running dbt with arguments")[-1]
        (releases / "adult_k5_py.yml").write_text(yaml.safe_dump({**spec, "suppression_limit": 0.01}, sort_keys=False))
        failed = dbt(project, "run", "--select", "adult_release_py")
        yield {"built": built, "before": before, "log": log, "failed": failed, "after": state(db)}


def test_python_model_publishes_and_returns_its_audit_row(python_model):
    res = python_model["built"]
    assert res.success, problems(res)
    assert {"adult_release_py", "python_k_anonymous", "python_l_diverse"} <= set(results_by_name(res))
    before = python_model["before"]
    ((release, version, view, spec_hash, rows_in, rows_out, suppressed),) = before["audit"]
    assert (release, version, view, rows_in) == ("adult_k5_py", 1, "published.adult_k5", SEED_ROWS)
    assert rows_out + suppressed == rows_in
    assert "adult_k5_py__v1 AS r" in before["view_sql"][0][0]
    ((m_release, m_version, m_hash, privacy),) = before["model"]
    assert (m_release, m_version, m_hash) == (release, version, spec_hash)
    assert json.loads(privacy) == {
        "view": '"published"."adult_k5"', "quasi_identifiers": QIS, "sensitive": ["occupation"], "k": 5,
        "l_diversity": [{"kind": "distinct", "sensitive": "occupation", "l": 2, "c": None}]}


def test_python_model_publishes_inside_a_dbt_transaction(python_model):
    """The pre-hook made dbt open a transaction around the model; the release published."""
    assert "On model.anonymizer_example.adult_release_py: BEGIN" in python_model["log"]
    assert python_model["before"]["audit"]


def test_failed_python_model_prints_the_summary_first(python_model):
    """dbt's message: dbt-duckdb's header, then the summary line, then a short traceback;
    nothing published changes."""
    res = python_model["failed"]
    assert not res.success and res.exception is None
    lines = message_lines(results_by_name(res)["adult_release_py"])
    assert lines[0] == "Runtime Error in model adult_release_py (models/releases/adult_release_py.py)"
    summary = lines[lines.index("Python model failed:") + 1]
    suppressed = python_model["before"]["audit"][-1][-1]
    assert summary.startswith(
        f"anonymizer.dbt.ReleaseFailed: release adult_k5_py: 5-anonymity does not hold: {suppressed} rows would "
        f"need suppression ({suppressed} in classes failing 5-anonymity), but suppression_limit allows 20 rows, ")
    assert re.fullmatch(r".*, \d+ equivalence class\(es\) fail; nothing was published; "
                        r"published\.adult_k5 keeps version 1", summary)
    assert [line for line in lines if line][-1].startswith("anonymizer.errors.PrivacyCheckFailed: verification failed")
    assert python_model["after"] == python_model["before"]
