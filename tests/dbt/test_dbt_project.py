"""The example dbt-duckdb project (examples/dbt) run end to end by dbt itself, its release a
model materialized ``anonymized`` by the anonymizer's dbt package installed from git.

A copy of the project (:mod:`tests.dbt_runs`) installs the package with ``dbt deps`` from a
git repository made in the temporary folder (``packages.yml``: ``git:`` its ``file://``
URL, ``subdirectory: integrations/dbt``, ``revision:`` a tag), as a user installs it from the
project's repository, and is built twice with ``dbt build``: seed -> staging model ->
``adult_release`` (the materialization: the model's SQL is the release's source, the
published view is the model's relation) -> marts over ``ref('adult_release')``, with the
package's generic tests, which call the SQL macros the profile's plugin
(``anonymizer.dbt_plugin``) installs; the release tests read k, the QIs and l from the
``_anon_dbt_releases`` row the materialization wrote. The checks read the DuckDB file
afterwards and compare with the Python engine: the published rows are the ones
``anonymizer.anonymize`` publishes for the same spec and data, the marts are computed from
the published view, a second build publishes nothing new, failing tests report as many
failing rows as the engine counts failing classes, and a release that fails fails the model
with the anonymizer's summary and publishes nothing. ``dbt deps`` of the example as shipped
installs the package from its local path.

One project is built per module (fixture ``built``); the negative tests then add tests to
its property files and run ``dbt test`` on them alone; the failure tests change its spec.
"""

from __future__ import annotations

import json
import re

import duckdb
import pytest
import yaml

from anonymizer import anonymize, load_spec
from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine
from anonymizer.measure import measure_table
from anonymizer.models import KAnonymity
from anonymizer.models.catalog import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonymizer.models.check import evaluate_all
from tests.dbt_runs import (QIS, SEED_ROWS, connect, copy_example, dbt, git_repository, message_lines, offline,
                            problems, results_by_name)

pytestmark = pytest.mark.slow   # a module-wide fixture takes seconds (the fast tier leaves it out)

VIEW = ("main", "adult_release")   # the model's relation: the published view


def snapshot_state(db) -> dict:
    """What the release left in the database."""
    with connect(db) as con:
        return {
            "audit": con.execute("SELECT release, version, view_name, spec_hash, source_fingerprint, rows_in, rows_out, "
                                 "suppressed FROM _anon_releases._audit ORDER BY version").fetchall(),
            "tables": sorted(con.execute("SELECT schema_name || '.' || table_name FROM duckdb_tables() "
                                         "WHERE table_name NOT IN ('_audit', '_classes')").fetchall()),
            "view_sql": con.execute("SELECT sql FROM duckdb_views() WHERE schema_name = 'main' "
                                    "AND view_name = 'adult_release'").fetchall(),
            "privacy": con.execute("SELECT * FROM main._anon_dbt_releases").fetchall(),
        }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The example project with the package from a git repository, ``dbt deps``, then built
    twice with ``dbt build`` (on a database holding a table at the model's name, which the
    materialization replaces); the runs' results and the release's state after each."""
    root = tmp_path_factory.mktemp("dbt")
    project = copy_example(root)
    url = git_repository(root / "anonymizer-repo", "v0.1.0")
    (project / "packages.yml").write_text(yaml.safe_dump(
        {"packages": [{"git": url, "subdirectory": "integrations/dbt", "revision": "v0.1.0"}]}))
    db = root / "warehouse.duckdb"
    with connect(db) as con:   # the table a Python release step of the same name left (the earlier form)
        con.execute("CREATE TABLE main.adult_release AS SELECT 'adult_k5' AS release, 1 AS version")
    with pytest.MonkeyPatch.context() as mp:
        offline(mp, db)
        deps = dbt(project, "deps")
        first = dbt(project, "build")
        state1 = snapshot_state(db) if first.success else None
        second = dbt(project, "build")
        state2 = snapshot_state(db) if second.success else None
        yield {"project": project, "db": db, "url": url, "deps": deps, "first": first, "second": second,
               "state1": state1, "state2": state2}


@pytest.mark.slow
def test_deps_installs_the_package_from_git(built):
    """``dbt deps`` offline from a git URL: the package's folder of the tagged commit."""
    assert built["deps"].success, built["deps"].exception
    installed = built["project"] / "dbt_packages" / "anonymizer"
    assert installed.is_dir() and not installed.is_symlink()
    assert yaml.safe_load((installed / "dbt_project.yml").read_text())["name"] == "anonymizer"
    assert (installed / "macros" / "materializations" / "anonymized.sql").is_file()
    (lock,) = yaml.safe_load((built["project"] / "package-lock.yml").read_text())["packages"]
    assert lock["git"] == built["url"] and lock["subdirectory"] == "integrations/dbt"
    assert re.fullmatch(r"[0-9a-f]{40}", lock["revision"])   # the tag, resolved to its commit


def test_deps_installs_the_local_package(tmp_path, monkeypatch):
    """The example as shipped: ``packages.yml`` names the package by its local path, which
    ``dbt deps`` links."""
    project = copy_example(tmp_path)
    offline(monkeypatch, tmp_path / "unused.duckdb")
    assert dbt(project, "deps").success
    link = project / "dbt_packages" / "anonymizer"
    assert link.is_symlink() and link.resolve() == (tmp_path / "integrations" / "dbt").resolve()


def test_build_succeeds_with_every_node(built):
    res = built["first"]
    assert res.success, problems(res)
    by_name = results_by_name(res)
    assert {"adult_sample", "stg_adult", "adult_release", "adult_people", "income_by_age_band",
            "published_adult_k5_is_k_anonymous", "published_adult_k5_is_l_diverse",
            "adult_people_is_5_anonymous", "adult_people_is_2_diverse_in_occupation"} <= set(by_name)
    assert by_name["adult_release"].node.config.materialized == "anonymized"
    # the anonymizer's tests ran after the model that publishes the view they read
    order = [r.node.name for r in res.result.results]
    assert order.index("adult_release") < order.index("published_adult_k5_is_k_anonymous")


def test_plugin_installed_the_macros(built):
    with connect(built["db"]) as con:
        names = {r[0] for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name IN ('anon_classes', 'anon_l_classes')"
        ).fetchall()}
    assert names == {"anon_classes", "anon_l_classes"}


def test_published_view_holds_the_engines_release(built):
    """The model's relation is the published view, and it holds exactly what the Python
    API publishes for the same spec and rows; it is 5-anonymous and 2-diverse by the
    engine's own measure."""
    project = built["project"]
    spec_path = project / "releases" / "adult_k5.yml"
    data = yaml.safe_load(spec_path.read_text())
    assert "source" not in data and "output" not in data   # the model says both
    data["source"] = {"table": "stg_adult"}
    with duckdb.connect() as ref:
        ref.execute(f"""CREATE TABLE stg_adult AS SELECT person_id, age::INTEGER AS age, sex, race,
            "marital-status" AS marital_status, education, "native-country" AS native_country, workclass,
            occupation, "salary-class" AS salary_class
            FROM read_csv('{project / 'seeds' / 'adult_sample.csv'}', header = true)""")
        expected = anonymize(load_spec(data, base_dir=spec_path.parent), con=ref)
        ref_rows = ref.execute(f"SELECT * EXCLUDE (eq_class) FROM {expected.view}").fetchall()
        ref_cols = [d[0] for d in ref.execute(f"SELECT * FROM {expected.view} LIMIT 0").description]
    with connect(built["db"]) as con:
        cols = [d[0] for d in con.execute("SELECT * FROM main.adult_release LIMIT 0").description]
        rows = con.execute("SELECT * EXCLUDE (eq_class) FROM main.adult_release").fetchall()
        measured = measure_table(con, VIEW, QIS, ["occupation"])
    assert cols == ref_cols and "person_id" not in cols
    assert sorted(rows, key=repr) == sorted(ref_rows, key=repr)
    assert len(rows) == expected.rows_out and expected.rows_out + expected.suppressed == SEED_ROWS
    assert 0 < expected.suppressed <= 0.05 * SEED_ROWS
    assert measured["rows"] == len(rows) and measured["k"] >= 5
    assert measured["sensitive"]["occupation"]["distinct_l"] >= 2


def test_audit_row_and_the_specs_figures_recorded(built):
    """One audit row, the snapshot under the view, the model's rows dropped after the
    release, and the spec's figures (read here from the YAML by hand) in the row of
    ``_anon_dbt_releases`` that the release tests read; they ran with those figures."""
    state = built["state1"]
    (audit,) = state["audit"]
    release, version, view_name, _hash, _fp, rows_in, rows_out, suppressed = audit
    assert (release, version, view_name, rows_in) == ("adult_k5", 1, "main.adult_release", SEED_ROWS)
    assert rows_out + suppressed == rows_in
    assert "adult_k5__v1 AS r" in state["view_sql"][0][0]   # the view replaced the table at its name
    assert state["tables"] == [("_anon_releases.adult_k5__v1",), ("_anon_releases.adult_k5__v1__classes",),
                               ("main._anon_dbt_releases",), ("main.adult_people",), ("main.adult_sample",),
                               ("main.income_by_age_band",)]   # no main.adult_release__anon_source
    spec = yaml.safe_load((built["project"] / "releases" / "adult_k5.yml").read_text())
    qis = [name for name, c in spec["columns"].items() if isinstance(c, dict) and c["role"] == "quasi"]
    ((view, release2, version2, privacy),) = state["privacy"]
    assert (view, release2, version2) == ("adult_release", "adult_k5", 1)
    assert json.loads(privacy) == {
        "view": '"main"."adult_release"', "quasi_identifiers": qis == QIS and QIS, "sensitive": ["occupation"],
        "k": spec["models"][0]["k"], "l_diversity": [{"kind": "distinct", "sensitive": "occupation", "l": 2, "c": None}]}
    by_name = results_by_name(built["first"])
    k_sql = by_name["published_adult_k5_is_k_anonymous"].node.compiled_code
    l_sql = by_name["published_adult_k5_is_l_diverse"].node.compiled_code
    qi_list = "[" + ", ".join(f"'{q}'" for q in QIS) + "]"
    assert "'\"main\".\"adult_release\"'" in k_sql and qi_list in k_sql and "where size < 5" in k_sql
    assert qi_list in l_sql and "['occupation']" in l_sql and "where distinct_l < 2" in l_sql


def test_marts_computed_from_the_published_view(built):
    with connect(built["db"]) as con:
        mart = con.execute("SELECT age_band, people, high_income FROM main.income_by_age_band ORDER BY age_low").fetchall()
        expected = con.execute("""SELECT age, count(*), count(*) FILTER (WHERE salary_class = '>50K')
                                  FROM main.adult_release GROUP BY age ORDER BY min(age_low)""").fetchall()
        published = con.execute("SELECT count(*) FROM main.adult_release").fetchone()[0]
        people = con.execute("SELECT count(*) FROM main.adult_people").fetchone()[0]
    assert mart == expected and len(mart) >= 5
    assert sum(r[1] for r in mart) == published == people
    assert all(band.startswith("[") and band.endswith("]") for band, _, _ in mart)  # 10-year labels


def test_second_build_is_idempotent(built):
    res = built["second"]
    assert res.success, problems(res)
    assert built["state2"] == built["state1"]  # same audit row, version, snapshot, view, figures


def _add_tests(path, name: str, tests: list) -> None:
    """Append ``tests`` to the data_tests of the model ``name`` in the properties file ``path``."""
    doc = yaml.safe_load(path.read_text())
    entry = next(e for e in doc["models"] if e["name"] == name)
    entry.setdefault("data_tests", []).extend(tests)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.fixture(scope="module")
def negative(built):
    """Failing tests added to the built project and run alone with ``dbt test``."""
    project = built["project"]
    raw_qis = ["age", "sex", "race", "marital_status", "education"]
    neg = {"config": {"tags": ["negative"]}}
    _add_tests(project / "models" / "staging" / "_staging.yml", "stg_adult", [
        {"anonymizer.k_anonymous": {"name": "stg_adult_is_5_anonymous", **neg,
                                    "arguments": {"quasi_identifiers": raw_qis, "k": 5}}},
        {"anonymizer.k_anonymous": {"name": "stg_adult_unknown_column", **neg,
                                    "arguments": {"quasi_identifiers": ["age", "it's"], "k": 5}}},
        # the release's own figures (k = 5, distinct 2-diversity) and QIs, on the raw data
        {"anonymizer.release_k_anonymous": {"name": "stg_adult_is_release_k_anonymous", **neg,
                                            "arguments": {"release": "ref('adult_release')"}}},
        {"anonymizer.release_l_diverse": {"name": "stg_adult_is_release_l_diverse", **neg,
                                          "arguments": {"release": "ref('adult_release')"}}}])
    published = {"quasi_identifiers": QIS, "sensitive": ["occupation"]}
    _add_tests(project / "models" / "releases" / "_releases.yml", "adult_release", [
        {"anonymizer.l_diverse": {"name": "published_is_distinct_6_diverse", **neg, "arguments": {**published, "l": 6}}},
        {"anonymizer.l_diverse": {"name": "published_is_entropy_3_diverse", **neg,
                                  "arguments": {**published, "l": 3, "kind": "entropy"}}},
        {"anonymizer.l_diverse": {"name": "published_is_recursive_3_diverse", **neg,
                                  "arguments": {**published, "l": 3, "kind": "recursive", "c": 2}}}])
    with pytest.MonkeyPatch.context() as mp:
        offline(mp, built["db"])
        res = dbt(project, "test", "--select", "tag:negative")
    return {"res": res, "raw_qis": raw_qis}


def test_k_anonymous_on_raw_staging_fails_by_the_engines_count(built, negative):
    res = negative["res"]
    assert not res.success and res.exception is None  # failing tests, not a crash
    r = results_by_name(res)["stg_adult_is_5_anonymous"]
    assert str(r.status) == "fail"
    with connect(built["db"]) as con:
        measured = measure_table(con, ("main", "stg_adult"), negative["raw_qis"])
        engine = evaluate_all(Engine(con), [KAnonymity(5)], table("main", "stg_adult"),
                              [ident(q) for q in negative["raw_qis"]], {})
    sizes = measured["class_sizes"]
    assert not any(s["min_size"] < 5 <= s["max_size"] for s in sizes if s["min_size"] != s["max_size"])
    small = sum(s["classes"] for s in sizes if s["max_size"] < 5)
    assert measured["k"] < 5 and small > 0
    assert r.failures == small == engine[0].failing
    assert f"Got {small} result" in r.message


def test_column_names_are_string_literals(negative):
    """A name with a quote reaches the macro as a string literal: the macro's own error
    names it (no SQL syntax error, nothing built from it)."""
    r = results_by_name(negative["res"])["stg_adult_unknown_column"]
    assert str(r.status) == "error"
    assert "qis: unknown column(s) it's in table" in r.message


def test_l_diverse_with_too_large_l_fails_by_the_engines_count(built, negative):
    by_name = results_by_name(negative["res"])
    assert set(by_name) == {"stg_adult_is_5_anonymous", "stg_adult_unknown_column", "stg_adult_is_release_k_anonymous",
                            "stg_adult_is_release_l_diverse", "published_is_distinct_6_diverse",
                            "published_is_entropy_3_diverse", "published_is_recursive_3_diverse"}
    models = {"published_is_distinct_6_diverse": DistinctLDiversity(6, "occupation"),
              "published_is_entropy_3_diverse": EntropyLDiversity(3, "occupation"),
              "published_is_recursive_3_diverse": RecursiveCLDiversity(2.0, 3, "occupation")}
    with connect(built["db"]) as con:
        measured = measure_table(con, VIEW, QIS, ["occupation"])["sensitive"]["occupation"]
        found = evaluate_all(Engine(con), list(models.values()), table(*VIEW),
                             [ident(q) for q in QIS], {"occupation": ident("occupation")})
    assert measured["distinct_l"] < 6 and measured["entropy_l"] < 3 and measured["recursive_l"] < 3
    for (name, _model), engine in zip(models.items(), found):
        r = by_name[name]
        assert str(r.status) == "fail", name
        assert not engine.holds and r.failures == engine.failing > 0, (name, r.failures, engine)


def test_release_tests_on_another_table_fail_by_the_engines_count(built, negative):
    """release_k_anonymous and release_l_diverse with ``release: ref('adult_release')`` test
    the raw staging table with the spec's k, QIs and l: as many failing rows as the engine
    counts failing classes for 5-anonymity and distinct 2-diversity over the 7 QIs."""
    by_name = results_by_name(negative["res"])
    with connect(built["db"]) as con:
        found = evaluate_all(Engine(con), [KAnonymity(5), DistinctLDiversity(2, "occupation")],
                             table("main", "stg_adult"), [ident(q) for q in QIS], {"occupation": ident("occupation")})
    for name, engine in zip(("stg_adult_is_release_k_anonymous", "stg_adult_is_release_l_diverse"), found):
        r = by_name[name]
        assert str(r.status) == "fail", (name, r.message)
        assert not engine.holds and r.failures == engine.failing > 100, (name, r.failures, engine)


def test_failed_release_fails_the_model_and_publishes_nothing(built, negative):
    """A spec whose checks cannot pass fails the model with the anonymizer's summary as
    dbt's message; dbt skips what depends on it; the view, its snapshot, the audit and the
    recorded figures stay as they were, and the model's rows are not left behind. First 1%
    suppression allowed where 4.25% is needed (verification fails), then k above the rows
    (the spec is refused). Runs after the negative tests (it changes the shared project)."""
    project, before = built["project"], snapshot_state(built["db"])
    spec = project / "releases" / "adult_k5.yml"
    text = spec.read_text()
    with pytest.MonkeyPatch.context() as mp:
        offline(mp, built["db"])
        spec.write_text(text.replace("suppression_limit: 0.05", "suppression_limit: 0.01"))
        failed = dbt(project, "build", "--select", "adult_release+", "--exclude", "tag:negative")
        after_failed = snapshot_state(built["db"])
        spec.write_text(text.replace("{type: k-anonymity, k: 5}", "{type: k-anonymity, k: 2001}"))
        refused = dbt(project, "run", "--select", "adult_release")
    spec.write_text(text)
    assert not failed.success and failed.exception is None
    by_name = results_by_name(failed)
    assert str(by_name["adult_release"].status) == "error"
    lines = message_lines(by_name["adult_release"])
    assert lines[0] == "Runtime Error in model adult_release (models/releases/adult_release.sql)"
    suppressed = before["audit"][-1][-1]
    assert suppressed > SEED_ROWS // 100
    assert lines[1].startswith(
        f"ReleaseFailed: release adult_k5: 5-anonymity does not hold: {suppressed} rows would need suppression "
        f"({suppressed} in classes failing 5-anonymity), but suppression_limit allows 20 rows, ")
    classes = re.fullmatch(r".*, (\d+) equivalence class\(es\) fail; nothing was published; "
                           r"main\.adult_release keeps version 1", lines[1])
    assert classes and suppressed / 4 <= int(classes[1]) <= suppressed   # a failing class has 1 to 4 rows
    assert {"adult_people", "income_by_age_band", "published_adult_k5_is_k_anonymous"} <= {
        n for n, r in by_name.items() if str(r.status) == "skipped"}
    assert after_failed == before
    assert not refused.success
    lines = message_lines(results_by_name(refused)["adult_release"])
    assert lines[1] == "SpecError: models: k=2001 is larger than the table (2000 rows) (got 2001)"
    assert snapshot_state(built["db"]) == before
