"""Lattice evaluation (paper 001, sec. III): every node's k, classes, DCP and distortion
ratio against a brute-force pandas computation over the rows; the command line."""

from __future__ import annotations

import itertools
import json
import random

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.families.generalized.lattice import evaluate as lattice_eval
from anonymizer.cli import main
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.demo import load_adult
from anonymizer.families.generalized.lattice.evaluate import LatticeTable, evaluate_lattice, evaluate_spec
from anonymizer.reproduce.p001_hierarchies.experiment import BUILDERS, experiment_spec
from anonymizer.reproduce.p001_hierarchies.plots import plot_lattice
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec

SPEC = {
    "release": "small",
    "source": {"table": "people"},
    "columns": {"age": {"role": "quasi", "hierarchy": {"cbgh": {"min_width": 5}}},
                "hours": {"role": "quasi", "hierarchy": {"dbgh": {"min_width": 4, "range": [1, 40]}}},
                "my col": {"role": "quasi", "hierarchy": {"masking": 2}},
                "disease": "sensitive"},
    # l-diversity makes the frequency set carry the sensitive column: several rows per QI combination
    "models": [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}],
}


def make_people(con, rows: int = 80) -> None:
    rng = random.Random(1)
    values = [(rng.randint(17, 60), rng.choice([8, 20, 25, 35, 38, 40]), f"z{rng.randint(10, 13)}",
               rng.choice(["flu", "cold", "hiv"])) for _ in range(rows)]
    con.execute('CREATE TABLE people (age INTEGER, hours INTEGER, "my col" VARCHAR, disease VARCHAR)')
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?)", values)


def brute_force(con, plan) -> dict[tuple[int, ...], tuple[int, int, int, float]]:
    """Per node (k, classes, dcp, distortion), from the source rows and the hierarchy tables."""
    rows = con.execute(f"SELECT * FROM {plan.source}").df()
    nodes, costs = [], []   # per QI: {level: node of each row}, {level: distortion of each row}
    for q in plan.qis:
        dom = con.execute(f"SELECT code, value FROM {q.dom}").df()
        codes = rows[[q.name]].merge(dom, left_on=q.name, right_on="value", how="left")["code"]
        hier = con.execute(f"SELECT code, level, lo, distortion FROM {q.hier}").df()
        at = {lv: h.set_index("code") for lv, h in hier.groupby("level")}
        nodes.append({lv: codes.map(h["lo"]).to_numpy() for lv, h in at.items()})
        costs.append({lv: codes.map(h["distortion"]).sum() for lv, h in at.items()})
    out = {}
    for node in itertools.product(*[range(q.height + 1) for q in plan.qis]):
        frame = rows.assign(**{f"n{i}": nodes[i][lv] for i, lv in enumerate(node)})
        sizes = frame.groupby([f"n{i}" for i in range(len(node))]).size()
        out[node] = (int(sizes.min()), len(sizes), int((sizes ** 2).sum()),
                     sum(costs[i][lv] for i, lv in enumerate(node)))
    return out


@pytest.mark.parametrize("loop", lattice_eval.LOOPS)
def test_every_node_equals_brute_force(con, loop):
    make_people(con)
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, load_spec(SPEC))
        lattice = evaluate_lattice(engine, plan, ("_anon_lattice", "small"), loop)
        expected = brute_force(con, plan)
    assert [q.height for q in plan.qis] == list(lattice.heights) and min(lattice.heights) >= 2
    assert len(lattice.nodes) == len(expected) == con.execute("SELECT count(*) FROM _anon_lattice.small").fetchone()[0]
    full = expected[tuple(lattice.heights)][3]
    for row in lattice.nodes:
        node = tuple(row[q] for q in ("age", "hours", "my col"))
        k, classes, dcp, distortion = expected[node]
        assert (row["k"], row["classes"], row["dcp"], row["height"]) == (k, classes, dcp, sum(node)), node
        assert row["distortion"] == pytest.approx(distortion)
        assert row["distortion_ratio"] == pytest.approx(distortion / full)
    assert lattice.nodes[0]["distortion_ratio"] == 0.0 and sum(lattice.nodes[0][q] for q in lattice.qis) == 0
    assert lattice.nodes[-1]["distortion_ratio"] == 1.0 and lattice.nodes[-1]["k"] == 80
    assert lattice.nodes[-1]["dcp"] == 80 ** 2 and lattice.nodes[-1]["classes"] == 1


FIGURES = ("height", "k", "classes", "dcp")


def same_nodes(python: LatticeTable, recursive: LatticeTable) -> None:
    """The two loops' node figures are identical; the distortion (step 1, shared) is a float
    sum whose last digits depend on DuckDB's threads."""
    assert len(python.nodes) == len(recursive.nodes)
    for a, b in zip(python.nodes, recursive.nodes):
        assert [a[c] for c in python.qis + FIGURES] == [b[c] for c in recursive.qis + FIGURES]
        assert a["distortion"] == pytest.approx(b["distortion"], rel=1e-12)
        assert a["distortion_ratio"] == pytest.approx(b["distortion_ratio"], rel=1e-12)


@pytest.mark.parametrize("builder", BUILDERS)
def test_recursive_and_python_loops_agree_on_adult(con, builder):
    # paper 001's lattices over the 32,561 Adult rows: DBGH's levels do not nest, so its
    # nodes roll up from level 0 of the raised QI, CGH's and CBGH's from the level below
    load_adult(con)
    spec = experiment_spec(builder)
    python = evaluate_spec(con, spec, name="p", loop="python")
    recursive = evaluate_spec(con, spec, name="r", loop="recursive")
    same_nodes(python, recursive)
    assert len(python.nodes) == {"iotf": 75, "cgh": 125, "dbgh": 300, "cbgh": 180}[builder]


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12), st.sampled_from("abcd")), min_size=2,
                     max_size=40),
       widths=st.tuples(st.integers(2, 6), st.integers(2, 5)))
def test_loops_agree_on_random_tables(rows, widths):
    with duckdb.connect() as con:
        con.execute('CREATE TABLE people (age INTEGER, hours INTEGER, "my col" VARCHAR)')
        con.executemany("INSERT INTO people VALUES (?, ?, ?)", rows)
        spec = load_spec({"release": "rand", "source": {"table": "people"}, "models": [{"type": "k-anonymity", "k": 2}],
                          "columns": {"age": {"role": "quasi", "hierarchy": {"intervals": [widths[0], 3 * widths[0]]}},
                                      "hours": {"role": "quasi", "hierarchy": {"dbgh": {"min_width": widths[1]}}},
                                      "my col": {"role": "quasi", "hierarchy": {"masking": 1}}}})
        same_nodes(evaluate_spec(con, spec, name="p", loop="python"),
                   evaluate_spec(con, spec, name="r", loop="recursive"))


def test_an_unknown_loop_is_refused(con):
    with pytest.raises(ValueError, match="loop must be one of"):
        evaluate_lattice(Engine(con), None, ("s", "t"), loop="sql")


def test_a_qi_named_like_a_figure_is_refused(con):
    con.execute("CREATE TABLE t AS SELECT range % 3 AS k FROM range(9)")
    spec = load_spec({"release": "t", "source": {"table": "t"}, "columns": {"k": "quasi"},
                      "models": [{"type": "k-anonymity", "k": 2}]})
    with pytest.raises(SpecError, match="columns.k: is named like a column of the lattice table"):
        evaluate_spec(con, spec)


def test_a_lattice_too_large_is_refused(con, monkeypatch):
    make_people(con)
    monkeypatch.setattr(lattice_eval, "MOST_NODES", 100)
    with pytest.raises(SpecError, match=r"6 \(age\) x 7 \(hours\) x 4 \(my col\) = 168 nodes, more than 100"):
        evaluate_spec(con, load_spec(SPEC))



def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.slow
def test_cli_writes_the_table_json_and_plot(tmp_path):
    db, spec, png = tmp_path / "l.duckdb", tmp_path / "small.yml", tmp_path / "l.png"
    with duckdb.connect(str(db)) as con:
        make_people(con)
    spec.write_text(json.dumps(SPEC))   # JSON is YAML
    res = invoke("hierarchy", "lattice", spec, "--db", db, "--plot", png, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["table"] is None and out["k"] == 2   # before: _anon_lattice.small, written into the source's database
    assert len(out["nodes"]) == (out["heights"][0] + 1) * (out["heights"][1] + 1) * (out["heights"][2] + 1)
    assert out["best"]["dcp"]["k"] >= 2 and out["best"]["distortion_ratio"]["k"] >= 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = invoke("hierarchy", "lattice", spec, "--db", db, "--table-name", "again", "--quiet")
    assert text.exit_code == 0 and "lattice table _anon_lattice.again" in text.output
    assert "least ratio" in text.output and "least DCP" in text.output
    with duckdb.connect(str(db)) as con:
        tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = '_anon_lattice' "
                             "ORDER BY 1").fetchall()
        assert tables == [("again",)]   # only the one asked for
        work = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchone()
        assert work == (0,)
    assert invoke("hierarchy", "lattice", "--db", db).exit_code == 2


@pytest.mark.slow
def test_cli_reproduces_paper_001_experiment(tmp_path):
    res = invoke("reproduce", "p001", "--db", tmp_path / "e.duckdb", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out.pop("ok") is True
    assert {b: (c["nodes"], c["max_height"]) for b, c in out["lattices"].items()} == {
        "iotf": (75, 10), "cgh": (125, 12), "dbgh": (300, 18), "cbgh": (180, 14)}
    assert [lv["nodes"] for lv in out["figures"]["iotf"]] == [24, 16, 4, 1]
    assert {f["id"]: f["holds"] for f in out["findings"]}["V-b"] == "does not hold"
    for c in out["lattices"].values():
        assert c["best"]["100"]["dcp"]["value"] > c["best"]["2"]["dcp"]["value"]


@pytest.mark.slow
def test_holds_is_the_specs_verdict_with_suppression(con):
    """Before: the lattice measured k alone, whatever the spec's l-diversity and suppression
    limit. Now each node's ``holds`` is what a full-domain release at its levels decides (it
    publishes, its failing classes suppressed within the limit, or is refused)."""
    from anonymizer import anonymize
    from anonymizer.errors import PrivacyCheckFailed
    make_people(con)
    spec = {**SPEC, "columns": {k: v for k, v in SPEC["columns"].items() if k != "my col"},
            "default_role": "identifier", "suppression_limit": 0.2,
            "models": [{"type": "k-anonymity", "k": 3}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}]}
    lattice = evaluate_spec(con, load_spec(spec))
    assert {n["holds"] for n in lattice.nodes} == {True, False}
    for node in lattice.nodes:
        levels = lattice.levels(node)
        try:
            result = anonymize({**spec, "release": "at_node", "algorithm": {"name": "full-domain", "levels": levels}},
                               con, publish=False)
            published = True
            assert result.suppressed == node["failing_rows"], levels
        except PrivacyCheckFailed:
            published = False
        assert node["holds"] == published, levels
    assert lattice.holding()["distortion_ratio"]["holds"]
