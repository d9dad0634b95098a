"""Every template is rendered by a real run here, and every statement executed parses with
sqlglot (DuckDB dialect). Template names are collected by wrapping the jinja environment's
``get_template`` (model templates are composed into larger statements), executed SQL by
wrapping ``Engine.execute``."""

from __future__ import annotations

import dataclasses

import pytest
import sqlglot

from anonymizer import anonymize
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs
from anonymizer.families.generalized.top_down import top_down
from anonymizer.demo import data_path, demo_spec, load_adult
from anonymizer.spec.parse import load_spec
from anonymizer.engine import rendering as engine_module
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import list_templates
from anonymizer.families.generalized.lattice.evaluate import evaluate_spec
from anonymizer.datasets.churn import churn, people
from anonymizer.datasets.flagged import experiment_spec, flagged_adult, flagged_synthetic
from anonymizer.datasets.patients import patients, patients_spec
from anonymizer.reproduce.p004_identity_reserved.experiment import evaluate as ir_evaluate
from anonymizer.families.identity_reserved.danonyir import cells as dn_cells, search as dn_search
from anonymizer.reproduce.p000_lgb.experiment import evaluate, l_caps
from anonymizer.families import build_model
from anonymizer.families.identity_reserved.verify import verify as ir_verify, vulnerable as ir_vulnerable
from anonymizer.engine.capabilities import DUCKDB
from anonymizer.plan import prepare, resolve_columns
from anonymizer.source_profile import profile_source
from anonymizer.measure import measure_table, record_risk
from anonymizer.release.history import history, prune, rollback
from anonymizer.release.run import run_release
from tests.conftest import arx_hierarchy
from tests.template_contexts import Recorded, keep_current
from tests.families.identity_reserved.test_danonyir import HANDLE_ROWS
from tests.privacy.adversary import patients_night
from tests.privacy.test_versions import collision
from tests.privacy.test_versions_ir import SMALL as IR_SMALL
from tests.release.test_release import WEIRD, make_weird

EXEMPT = {  # rendered by the benchmark command only; its tests live in tests/families/generalized.
    "bench/",
    "hierarchy/",  # every builder is rendered and parsed by tests/hierarchy/test_sql_parses.py
    "dialects/",   # Spark's forms: rendered below and run by tests/engine/test_spark.py
    "dbt/",        # the dbt releases' tables: rendered and run by tests/test_dbt.py and tests/dbt/
}


class _Rendering:
    """A loaded template whose renders are recorded (parameters and text) in ``recorded``."""

    def __init__(self, template, name: str, recorded: Recorded):
        self._template, self._name, self._recorded = template, name, recorded

    def render(self, *args, **kwargs):
        text = self._template.render(*args, **kwargs)
        self._recorded.add(self._name, kwargs, text)
        return text

    def __getattr__(self, attr):
        return getattr(self._template, attr)


def collect(monkeypatch) -> tuple[set[str], dict[str, list[str]], Recorded]:
    """Record, for the rest of the test, the templates loaded, the statements executed (by
    template) and each render's parameters and text (see tests/template_contexts.py)."""
    rendered: set[str] = set()
    executed: dict[str, list[str]] = {}
    recorded = Recorded()
    original, get_template = Engine.execute, engine_module._ENV.get_template

    def recording(self, text, params=None, *, template="<inline>"):
        executed.setdefault(template, []).append(text)
        return original(self, text, params, template=template)

    def loading(name, *args, **kwargs):
        rendered.add(name)
        return _Rendering(get_template(name, *args, **kwargs), name, recorded)

    monkeypatch.setattr(Engine, "execute", recording)
    monkeypatch.setattr(engine_module._ENV, "get_template", loading)
    return rendered, executed, recorded


@pytest.mark.slow
def test_every_template_renders_and_parses(con, monkeypatch, tmp_path):
    rendered, executed, recorded = collect(monkeypatch)
    load_adult(con)
    run_release(demo_spec(k=20), con)
    make_weird(con)
    anonymize(WEIRD, con)
    anonymize(WEIRD, con)   # a re-run: the view stands, its owner is looked up (publish/view_owner)
    anonymize(dict(WEIRD, models=[{"type": "k-anonymity", "k": 4}, *WEIRD["models"][1:]]), con)   # v2
    _audit_trail(con)
    _values_profile(con)
    with monkeypatch.context() as patched:   # Spark's way of publishing (publish/settle, form/candidate in place)
        patched.setattr(Engine, "capabilities", dataclasses.replace(Engine.capabilities, publishes_in_place=True))
        anonymize(dict(WEIRD, release="w in place"), con)
    with monkeypatch.context() as patched:   # and Spark's cells of the vectors, nothing passed through: base is
        patched.setattr(Engine, "capabilities",   # not written, the candidate codes the source (base_rows.py)
                        dataclasses.replace(Engine.capabilities, publishes_in_place=True, aggregates_apart=True))
        anonymize(dict(WEIRD, release="w coded", columns={**WEIRD["columns"], "note": "identifier"}), con)
    with monkeypatch.context() as patched:   # Spark's way of collapsing to cells (mondrian/cells_of_vectors)
        patched.setattr(Engine, "capabilities", dataclasses.replace(Engine.capabilities, aggregates_apart=True))
        anonymize(dict(WEIRD, release="w vectors"), con)
    anonymize(dict(WEIRD, output={"view": "my view", "database": str(tmp_path / "my db.duckdb"),   # publish/export
                                  "export": str(tmp_path / "my view.csv")}), con)
    anonymize(dict(WEIRD, release="w_fd", algorithm={"name": "full-domain", "levels": {"select": 1, "my col": 1}},
                   suppression_limit=1.0), con)
    anonymize(dict(WEIRD, release="w_opt_t", algorithm={"name": "optimal"}, suppression_limit=0.3,   # bounds
                   models=[{"type": "k-anonymity", "k": 2}, {"type": "t-closeness", "t": 0.5, "sensitive": 'a"b'}]),
              con)
    anonymize(dict(WEIRD, release="w_pop", algorithm={"name": "optimal"}, suppression_limit=0.5, models=[   # populations
        {"type": "k-map", "k": 2, "population": "my table"},
        {"type": "delta-presence", "dmin": 0, "dmax": 1, "population": "my table"}]), con)
    anonymize(dict(WEIRD, release="w_t", models=[
        {"type": "recursive-cl-diversity", "c": 3, "l": 2, "sensitive": 'a"b'},
        {"type": "alpha-k-anonymity", "alpha": 0.8, "k": 2, "sensitive": 'a"b'},
        {"type": "entropy-l-diversity", "l": 1.5, "sensitive": 'a"b'},
        {"type": "t-closeness", "t": 0.9, "sensitive": 'a"b', "distance": "ordered"}]), con)
    anonymize(dict(WEIRD, release="w_pf2", algorithm={"name": "privacyfrost2", "scoring": "eta", "d": 2,
                                                      "partial": True, "presample": {"levels": 0, "k": 2}},
                   suppression_limit=0.5), con)
    # SafePub (safepub/ templates), with the entropy score's per-QI squares, on names that need quoting
    con.execute('CREATE TABLE "dp table" AS SELECT w.* FROM "my table" AS w, range(100)')
    files = {"select": "\n".join(f"{v};{v // 10 * 10}s;*" for v in range(20, 60)),
             "my col": "\n".join(f"z{i};*" for i in range(7)), 'a"b': "flu;*\ncold;*\nhiv;*\ncancer;*"}
    for name, text in files.items():   # SafePub takes hierarchy files only
        (tmp_path / f"{name}.csv").write_text(text + "\n", encoding="utf-8")
    safepub = {k: v for k, v in WEIRD.items() if k not in ("models", "suppression_limit", "history")}
    safepub["columns"] = {**WEIRD["columns"], "note": "identifier",   # SafePub publishes quasi-identifiers only
                          **{name: {"role": "quasi", "hierarchy": {"csv": str(tmp_path / f"{name}.csv")}} for name in files}}
    anonymize(dict(safepub, release="w_dp", source={"table": "dp table"}, algorithm={"name": "safepub", "epsilon": 2, "delta": 1e-3, "steps": 5,
                                                       "score": "entropy", "selection": "best"}, budget={"epsilon": 4, "delta": 1e-2}), con)
    aggregates = {"source": {"table": "dp table"}, "budget": {"epsilon": 4, "delta": 1e-2},
                  "columns": {"my col": "quasi", 'a"b': "quasi", "select": {"role": "sensitive", "type": "numeric"},
                              "ssn": "individual", "note": "identifier"}}
    for keys in ("private", {"my col": ["z0", "z1"], 'a"b': ["flu", "cold"]}):   # dp-aggregates (aggregates/)
        anonymize(dict(aggregates, release="w agg", algorithm={
            "name": "dp-aggregates", "epsilon": 1, "delta": 1e-4, "keys": keys, "groups_per_person": 2,
            "measures": ["count", {"mean": "select", "bounds": [0, 100]}]}, output={"view": "w agg"}), con)
    anonymize(dict(safepub, release="w_dp", source={"table": "dp table"}, algorithm={     # the ledger read again
        "name": "safepub", "epsilon": 2, "delta": 1e-3, "steps": 5, "score": "classification", "target": 'a"b'},
        budget={"epsilon": 4, "delta": 1e-2}), con)
    # paper 002's MSB (msb/ templates), on names that need quoting, seeded and in vector order
    for name, seed in (("mmdcf-mslf", 3), ("msdcf", None)):
        anonymize(dict(WEIRD, release=f"w_{name}", suppression_limit=1.0,
                       columns=dict(WEIRD["columns"], **{'a"b': {"role": "sensitive", "security": {
                           "default": 1, "values": {"hiv": 2, "cold": 0}}}}),
                       models=[{"type": "lsl-diversity", "l": [1, 2, 3]}],
                       algorithm={"name": name, "seed": seed}), con)
    # paper 000's LGB (lgb/ templates) on names that need quoting: flags, t-closeness, both algorithms
    con.execute('CREATE TABLE "flag table" AS SELECT *, ("select" % 5 = 0) AS "my flag", '
                '(ssn % 4 = 1) AS "fl""ag" FROM "my table"')
    for name in ("lgb-mdp", "lgb-ncp"):
        anonymize(dict(WEIRD, release=f"w_{name}", source={"table": "flag table"}, suppression_limit=1.0,
                       columns=dict(WEIRD["columns"], **{"select": {"role": "quasi", "type": "numeric",
                                                                    "flag": "my flag"},
                                                         "my col": {"role": "quasi", "flag": 'fl"ag'}}),
                       models=[{"type": "k-anonymity", "k": 3}, {"type": "l-unique", "l": 2},
                               {"type": "t-closeness", "t": 0.5, "sensitive": "my col"}],
                       algorithm={"name": name, "seed": 1}), con)
    # issue 36: two nightly versions of a changing table, m-invariance and the cross-version gate
    people(con, "my people", 600)
    nightly = {"release": "w night", "source": {"table": "my people"}, "suppression_limit": 0.5,
               "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"},
               "models": [{"type": "k-anonymity", "k": 3}, {"type": "distinct-l-diversity", "l": 2,
                                                             "sensitive": "diagnosis"}],
               "history": {"person": "pid"}}
    grouped = dict(nightly, release="w groups", algorithm={"name": "mbf"},   # anatomy's m-invariance (signed, ...)
                   models=[{"type": "multi-l-diversity", "l": 2}])
    buckets = dict(nightly, release="w buckets", algorithm={"name": "lgb-mdp"},   # LGB's (signed, private_*, ...)
                   models=[{"type": "k-anonymity", "k": 3}, {"type": "l-unique", "l": 2}])
    anonymize(nightly, con)
    anonymize(grouped, con)
    anonymize(buckets, con)
    anonymize(dict(nightly, release="w fresh", history="invariant"), con)   # no person key: no state
    churn(con, "my people", night=1, leave=0.1, joiners=60, change=0.05)
    anonymize(nightly, con)
    anonymize(grouped, con)
    anonymize(buckets, con)
    anonymize(dict(nightly, release="w fresh"), con)   # signatures start (invariance/as_groups)
    con.execute('CREATE TABLE "key map" AS SELECT pid AS "old key", pid AS "new key" FROM "my people"')
    churn(con, "my people", night=2, leave=0.05, joiners=0)   # the state read under new keys (versions/remap, ...)
    anonymize(dict(nightly, history={"person": "pid", "key_map": {"table": "key map", "old": "old key",
                                                                  "new": "new key"}}), con)
    anonymize(collision(con, "w tiny"), con)   # a new group on an earlier box: merged (invariance/merge)
    flagged_synthetic(con, "lgb_syn", 300)
    flagged_adult(con, "adult_flagged")
    caps = {a: c["cap"] for a, c in l_caps(con, "adult_flagged").items()}
    evaluate(con, experiment_spec("adult_flagged", "lgb-mdp", k=10, l=3, l_caps=caps), queries=20)
    con.execute("CREATE TABLE outliers AS SELECT CASE WHEN range < 5 THEN 1000 + range ELSE range % 40 END AS v "
                "FROM range(100)")
    anonymize({"release": "opt", "source": {"table": "outliers"}, "models": [{"type": "k-anonymity", "k": 2}],
               "columns": {"v": {"role": "quasi", "hierarchy": {"intervals": [10, 100]}}},
               "algorithm": {"name": "optimal"}, "suppression_limit": 0.2}, con)
    occ = {"role": "sensitive", "hierarchy": {"csv": arx_hierarchy("occupation")}}
    hier_t = dict(demo_spec().raw, release="hier_t", output={"view": "hier_t"},   # published.adult is the demo's
                  columns=dict(demo_spec().raw["columns"], occupation=occ),
                  models=[{"type": "t-closeness", "t": 0.9, "sensitive": "occupation", "distance": "hierarchical"}])
    anonymize(load_spec(hier_t, base_dir=data_path(".")), con)
    con.execute("CREATE TABLE ages AS SELECT range % 50 AS age, 'x' AS s FROM range(100)")
    anonymize({"release": "iv", "source": {"table": "ages"}, "columns": {
        "age": {"role": "quasi", "hierarchy": {"intervals": [10, 20]}}, "s": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 2}], "algorithm": {"name": "full-domain", "levels": {"age": 2}}}, con)
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n" + "".join(f"{i},{i % 2}\n" for i in range(10)))
    anonymize({"release": "csv", "source": {"path": str(csv), "table": "fromcsv"}, "columns": {
        "a": "quasi", "b": {"role": "quasi", "order": ["1", "0"]}}, "models": [{"type": "k-anonymity", "k": 2}]}, con)
    _identity_reserved(con)
    measure_table(con, "published.adult", ["age", "sex"], ["occupation", "income"])
    measure_table(con, "published.adult", ["age", "sex"], population="published.adult", risky_classes=3,
                  sampling_fraction=0.5)   # risk, k-map, delta-presence, population uniqueness
    record_risk(con, "published.adult", ["age", "sex"], population="published.adult").limit(1).fetchall()
    evaluate_spec(con, load_spec(WEIRD))   # lattice_eval/, on column names that need quoting
    evaluate_spec(con, load_spec(WEIRD), name="weird_rollup", loop="recursive")   # lattice_eval/node_rollup
    _recursive_mondrian(con)
    _top_down(con)
    _report(con)
    missing = [t for t in list_templates() if t not in rendered and not t.startswith(tuple(EXEMPT))]
    assert not missing, f"templates never rendered by the test runs: {missing}"
    for template, texts in executed.items():
        for text in texts:
            try:
                sqlglot.parse(text, read="duckdb")
            except sqlglot.errors.ParseError as exc:  # pragma: no cover - the message is the point
                raise AssertionError(f"{template} renders SQL sqlglot cannot parse: {exc}\n{text}") from exc
    keep_current(recorded, executed)   # the parameters tests/engine/test_template_parse.py renders them with


def _values_profile(con) -> None:
    """The source's profile in the pass over its QI vectors (Spark's way; tests/release/test_profile.py)."""
    apart = Engine(con)
    apart.capabilities = dataclasses.replace(DUCKDB, aggregates_apart=True)
    apart.open_work()
    try:
        spec = load_spec(WEIRD)
        profile_source(apart, resolve_columns(spec, apart.columns('"my table"'), "my table"), '"my table"')
    finally:
        apart.close_work()


def _audit_trail(con) -> None:
    """history, rollback and prune (publish/audit_rows, repoint, audit_rollback, drop_snapshot, ...)."""
    engine = Engine(con)
    rollback(engine, "_anon_releases", "weird", 1)
    assert history(engine, "_anon_releases", "weird")["current"] == 3
    assert anonymize(WEIRD, con).version == 4   # v1's spec again: published anew after a rollback
    assert [d["version"] for d in prune(engine, "_anon_releases", "weird", 1)["dropped"]] == [1, 2]


def _report(con) -> None:
    """The HTML report (report/): a published version, read through its recorded view, and a
    dry run's candidate, read through its join."""
    from anonymizer.cli.report import _audit_table, _versions
    from anonymizer.report import DryRun, release_page
    rows = _versions(con, _audit_table(con, "db", "_anon_releases"), "db", "adult_demo", None)
    release_page(con, rows, rows[-1], str(data_path("demo.yml")))
    run_release(demo_spec(k=20), con, dry_run=True, inspect=DryRun("spec"))


def _recursive_mondrian(con) -> None:
    """Mondrian's rounds as recursive statements (families/generalized/mondrian/rounds, mondrian/batch_*), a round a
    statement, on names that need quoting: strict along a hierarchy, relaxed, and strict by
    the least-loss cut (mondrian/candidates_loss, frequency_order, reorder), with
    l-diversity and t-closeness."""
    columns = dict(WEIRD["columns"], select={"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10]}})
    models = WEIRD["models"] + [{"type": "t-closeness", "t": 0.9, "sensitive": 'a"b'}]
    for algorithm in ({"relaxed": False}, {"relaxed": True}, {"labels": "values", "split": "loss"}):
        engine = Engine(con)
        with engine.workspace():
            spec = load_spec(dict(WEIRD, columns=columns, models=models,
                                  algorithm={"name": "mondrian", "seed": 1, **algorithm}))
            assert mondrian(engine, (p := prepare(engine, spec)), mondrian_inputs(p), loop="recursive", batch=1).notes["loop"] == "recursive"


def _top_down(con) -> None:
    """Top-down specialization (families/generalized/top_down/) on names that need quoting, a
    pass a statement and a round a statement, with l-diversity and t-closeness; a remainder
    suppressed, and one merged into a class (WEIRD at k=4 leaves one)."""
    columns = dict(WEIRD["columns"], select={"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10]}})
    models = WEIRD["models"] + [{"type": "t-closeness", "t": 0.9, "sensitive": 'a"b'}]
    for loop, limit in (("recursive", 0.0), ("python", 0.0), ("recursive", 1.0)):
        engine = Engine(con)
        with engine.workspace():
            spec = load_spec(dict(WEIRD, columns=columns, models=models, suppression_limit=limit,
                                  algorithm={"name": "top-down", "seed": 1}))
            assert top_down(engine, prepare(engine, spec), loop=loop).notes["loop"] == loop


def _identity_reserved(con) -> None:
    """Paper 004 (ir/, danonyir/, geneir/, datasets/, models/ir_*, reproduce/p004/) on names that
    need quoting: DAnonyIR and GeneIR with residuals (EIR alpha-beta), the models' checks on a class SQL cannot decide, and the experiment's metrics on generated patients."""
    con.execute('CREATE TABLE "ir table" ("my id" VARCHAR, "select" INTEGER, "my col" VARCHAR, "a""b" VARCHAR)')
    con.executemany('INSERT INTO "ir table" VALUES (?, ?, ?, ?)', [list(r) for r in HANDLE_ROWS])
    columns = {"my id": "individual", "select": {"role": "quasi", "type": "numeric"}, "my col": "quasi",
               'a"b': "sensitive"}
    default, dn_search.CANDIDATES = dn_search.CANDIDATES, 0   # the plain scan here; the patients below prune
    try:
        anonymize({"release": "w_danonyir", "source": {"table": "ir table"}, "columns": columns,
                   "suppression_limit": 1.0, "algorithm": {"name": "danonyir", "seed": 0},
                   "models": [{"type": "eir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0.5, "sensitive": 'a"b'}]}, con)
    finally:
        dn_search.CANDIDATES = default
    anonymize({"release": "w_geneir", "source": {"table": "ir table"}, "suppression_limit": 1.0,
               "columns": dict(columns, select={"role": "quasi", "type": "numeric",
                                                "hierarchy": {"intervals": [10, 20]}}),
               "models": [{"type": "eir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0.5, "sensitive": 'a"b'}],
               "algorithm": {"name": "geneir", "seed": 0}}, con)   # five residuals, four join a class
    con.execute('CREATE TABLE "ir sets" ("ec id" INTEGER, "id num" INTEGER, "a""b" VARCHAR)')
    con.execute('INSERT INTO "ir sets" VALUES (1, 1, \'a\'), (1, 1, \'b\'), (1, 2, \'a\'), (1, 2, \'c\'), '
                '(1, 3, \'b\'), (1, 3, \'c\')')
    engine, cols = Engine(con), ('"ec id"', '"id num"', '"a""b"')
    ir_verify(engine, [build_model({"type": "eir-l-diversity", "l": 3, "sensitive": 'a"b'}, "m")], '"ir sets"', *cols)
    ir_vulnerable(engine, build_model({"type": "ir-kl-anonymity", "k": 2, "l": 3, "sensitive": 'a"b'}, "m"),
                  '"ir sets"', *cols)
    patients(con, "ir patients", individuals=120, seed=2)
    # batches, then rescans (candidates.sql.j2); over D's cells while 60 individuals or more remain
    # (cell_batch.sql.j2, cell_candidates.sql.j2), over all of D after
    default, dn_search.CANDIDATES = dn_search.CANDIDATES, 4
    grid = dn_cells.BATCH_FROM, dn_cells.RESCAN_FROM
    dn_cells.BATCH_FROM = dn_cells.RESCAN_FROM = 60
    try:
        ir_evaluate(con, patients_spec("ir patients", qis=4, suppression_limit=1.0, algorithm={"name": "danonyir", "seed": 0},
                                       model={"type": "ir-kl-anonymity", "k": 3, "l": 3, "sensitive": "diagnosis"}),
                    queries=20)
    finally:
        dn_search.CANDIDATES = default
        dn_cells.BATCH_FROM, dn_cells.RESCAN_FROM = grid
    # issue 36: an identity-reserved release's second version keeps its individuals' lists
    # (identity_reserved/invariance/), on one QI, where a new class's labels repeat an earlier
    # version's and are merged (colliding)
    patients(con, "patients", individuals=300, seed=1, **IR_SMALL)
    nightly = patients_spec("patients", qis=1, model={"type": "eir-l-diversity", "l": 2}, release="w ir night",
                            algorithm={"name": "danonyir", "seed": 2}, suppression_limit=0.5)
    anonymize(dict(nightly, history={"person": "patient_id"}), con)
    patients_night(con, 1, joiners=30, leave=0.2, seed=2, **IR_SMALL)
    anonymize(dict(nightly, history={"person": "patient_id"}), con)


def test_the_spark_forms_render_and_transpile():
    """Each ``templates/dialects/spark/`` form renders (in DuckDB's dialect, as every template)
    and transpiles to Spark SQL; tests/engine/test_spark.py runs them on Spark."""
    from anonymizer.engine.rendering import render
    from anonymizer.engine.transpile import to_spark
    forms = [t for t in list_templates() if t.startswith("dialects/spark/")]
    assert forms
    context = {"schema": '"_anon_releases"', "audit": '"_anon_releases"."_audit"',   # publish/
               "columns": [('"spec_text"', "VARCHAR")],
               "hist": '"w"."hist"', "glob": '"w"."glob"', "p": "m0",                  # models/
               "target": '"w"."assign"', "base": '"w"."base"', "buckets": '"w"."b"',   # families/anatomy/
               "runs": '"w"."runs"', "sens": ['"s0"', '"s1"'],
               "cells": '"w"."cells"', "qis": ['"q0"', '"q1"']}                      # families/generalized/mondrian/
    for form in forms:
        text = render(form.removeprefix("dialects/spark/"), "spark", **context)
        assert text == render(form, "duckdb", **context)   # the Spark form is what a Spark engine renders
        statements = to_spark(text, lambda table: [])
        assert statements and all(":" in s or "CREATE" in s or "ALTER" in s or s.startswith("DROP TABLE IF EXISTS")
                                  for s in statements), form


def test_a_row_as_a_value_is_a_struct_on_spark_and_a_column_of_that_name_stays():
    """DuckDB reads a bare table name as the table's row (``list(r)``), Spark as a column: the
    transpiler spells out ``struct(r.*)``, unless a CTE of that name has a column of that name
    (DuckDB reads the column then)."""
    from anonymizer.engine.transpile import to_spark
    assert to_spark("SELECT list(r), arg_min(r, r.d, 2) FROM t AS r", lambda table: []) == \
        ["SELECT COLLECT_LIST(STRUCT(r.*)), TRANSFORM(SLICE(ARRAY_SORT(COLLECT_LIST(STRUCT(r.d AS k0, STRUCT(r.*) AS v))), "
         "1, 2), s -> s.v) FROM t AS r"]
    assert to_spark("WITH top AS (SELECT 1 AS top) SELECT list(top) FROM top", lambda table: []) == \
        ["WITH top AS (SELECT 1 AS top) SELECT COLLECT_LIST(top) FROM top"]


def test_a_column_added_if_missing_is_added_on_spark_only_where_missing():
    """Spark has no ``ADD COLUMN IF NOT EXISTS``: the transpiler asks the catalog and keeps the
    columns the table lacks; a table not there yet is created, with them, by the statement before."""
    from anonymizer.engine.transpile import to_spark
    sql = ('ALTER TABLE "s"."p" ADD COLUMN IF NOT EXISTS member VARCHAR; '
           'ALTER TABLE "s"."p" ADD COLUMN IF NOT EXISTS seen INTEGER')
    assert to_spark(sql, lambda table: ["pid", "MEMBER"]) == ["ALTER TABLE `s`.`p` ADD COLUMN seen INT"]

    def no_table(table):
        raise LookupError(table.name)
    assert to_spark(sql, no_table) == []
