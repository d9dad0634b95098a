"""The optimal full-domain search against brute force over a whole (small) lattice: every
node released by the plain full-domain algorithm and measured by the metrics module."""

from __future__ import annotations

import itertools
import random

import pytest
from pycanon import anonymity

from anonymizer import anonymize, load_spec
from anonymizer.engine.session import Engine
from anonymizer.families.generalized.lattice.frequency_set import build_frequency_set
from anonymizer.families.generalized.lattice.lattice import Lattice, at_node, drop_failing, rows_loss
from anonymizer.families.generalized.lattice.optimal import _node_loss
from anonymizer.plan import prepare
from anonymizer.errors import PrivacyCheckFailed
from tests.release.test_oracle import ARX_QIS, adult_spec

QIS = ["age", "race", "marital-status"]
HEIGHTS = [4, 1, 2]


def brute_force(con, models, limit):
    """Least ARX loss over every node that the full-domain release accepts."""
    best = None
    for node in itertools.product(*[range(h + 1) for h in HEIGHTS]):
        spec = adult_spec(f"bf_{'_'.join(map(str, node))}", models, qis=QIS,
                          algorithm={"name": "full-domain", "levels": dict(zip(QIS, node))})
        try:
            r = anonymize(dict(spec, suppression_limit=limit), con)
        except PrivacyCheckFailed:
            continue
        if best is None or r.utility["loss"] < best[0] - 1e-12:
            best = (r.utility["loss"], node)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("limit,models", [
    (0.0, [{"type": "k-anonymity", "k": 50}, {"type": "distinct-l-diversity", "l": 3, "sensitive": "occupation"}]),
    (0.01, [{"type": "k-anonymity", "k": 100}]),
    (0.02, [{"type": "t-closeness", "t": 0.2, "sensitive": "occupation"}]),
    (0.05, [{"type": "k-anonymity", "k": 5}, {"type": "t-closeness", "t": 0.15, "sensitive": "occupation"}]),
    (0.03, [{"type": "t-closeness", "t": 0.12, "distance": "ordered", "sensitive": "occupation"}]),
], ids=["k50-l3", "k100-suppression", "t0.2-suppression", "k5-t0.15-suppression", "ordered-t0.12-suppression"])
def test_optimal_equals_brute_force(arx_adult, limit, models):
    con = arx_adult
    spec = adult_spec("opt", models, qis=QIS, algorithm={"name": "optimal"})
    r = anonymize(dict(spec, suppression_limit=limit), con)
    loss, node = brute_force(con, models, limit)
    assert r.utility["loss"] == pytest.approx(loss, abs=1e-9)
    assert r.algorithm["loss"] == pytest.approx(loss, abs=1e-9)
    assert tuple(r.algorithm["levels"][q] for q in QIS) == node
    assert r.algorithm["checks"] < 5 * 2 * 3   # pruning left nodes unchecked


def test_optimal_beats_or_ties_privacyfrost2(arx_adult):
    con = arx_adult
    models = [{"type": "k-anonymity", "k": 10}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}]
    opt = anonymize(adult_spec("o8", models, algorithm={"name": "optimal"}), con)
    pf2 = anonymize(adult_spec("p8", models, algorithm={"name": "privacyfrost2", "priorities": {"age": 5}}), con)
    assert opt.utility["loss"] <= pf2.utility["loss"] + 1e-12
    assert opt.algorithm["checks"] < opt.algorithm["lattice_nodes"] / 4
    df = con.execute(f"SELECT * FROM {opt.view}").df().reset_index(drop=True)     # the oracle
    assert anonymity.k_anonymity(df, ARX_QIS) == opt.measures["k"] >= 10
    assert anonymity.l_diversity(df, ARX_QIS, ["occupation"]) >= 2


def test_no_satisfying_node_is_a_clear_failure(arx_adult):
    spec = adult_spec("none", [{"type": "k-anonymity", "k": 40000}], qis=QIS, algorithm={"name": "optimal"})
    with pytest.raises(Exception) as info:
        anonymize(spec, arx_adult)
    assert "k=40000" in str(info.value) or "no node" in str(info.value)


@pytest.mark.parametrize("models", [
    [{"type": "t-closeness", "t": 0.2, "sensitive": "occupation"}],
    [{"type": "k-anonymity", "k": 5}, {"type": "t-closeness", "t": 0.15, "sensitive": "occupation"}],
], ids=["t0.2", "k5-t0.15"])
def test_a_hopeless_node_has_no_passing_finer_node(arx_adult, models):
    """The pruning rule under suppression, over the whole lattice of 4 QIs: when the rows no
    finer node can keep (``bound_rows``) exceed the budget, every finer node fails; and the
    bound is not the node's own failing rows (it prunes nodes that fail but could recover)."""
    qis = QIS + ["sex"]
    spec = load_spec(dict(adult_spec("bound", models, qis=qis, algorithm={"name": "optimal"}), suppression_limit=0.02),
                     base_dir=".")
    engine = Engine(arx_adult)
    with engine.workspace():
        plan = prepare(engine, spec)
        freq = build_frequency_set(engine, plan)
        budget = int(0.02 * plan.rows)
        lattice = Lattice(engine, plan, freq, budget, bounds=True)
        nodes = list(itertools.product(*[range(q.height + 1) for q in plan.qis]))
        found = {n: lattice.judge(n, "test") for n in nodes}
    hopeless = [n for n in nodes if found[n].bound_rows > budget]
    assert hopeless and any(found[n].bound_rows < found[n].failing_rows for n in hopeless)
    for n in hopeless:
        for finer in nodes:
            if all(a <= b for a, b in zip(finer, n)):
                assert found[finer].failing_rows > budget, (n, finer)
    assert all(found[n].bound_rows <= found[n].failing_rows for n in nodes)


@pytest.mark.parametrize("models", [
    [{"type": "k-anonymity", "k": 5}],
    [{"type": "k-anonymity", "k": 5}, {"type": "t-closeness", "t": 0.15, "sensitive": "occupation"}],
], ids=["k5", "k5-t0.15"])
def test_search_shortcuts_give_the_checked_figures(arx_adult, models):
    """The optimal search's shortcuts against the long way, node by node over a 4-QI lattice:
    a node's loss after suppression in one statement (``kept_loss``) equals suppressing its
    failing classes in a work table and measuring what is left (``rows_loss``), and every
    verdict ``Lattice.hopeless`` infers from checked nodes, asked in a shuffled order, equals
    the node's own check."""
    spec = load_spec(dict(adult_spec("short", models, qis=QIS + ["sex"], algorithm={"name": "optimal"}),
                          suppression_limit=0.02), base_dir=".")
    engine = Engine(arx_adult)
    with engine.workspace():
        plan = prepare(engine, spec)
        freq = build_frequency_set(engine, plan)
        budget = int(0.02 * plan.rows)
        nodes = list(itertools.product(*[range(q.height + 1) for q in plan.qis]))
        checked = Lattice(engine, plan, freq, budget, bounds=True)
        truth = {n: checked.judge(n, "test").bound_rows > budget for n in nodes}
        inferring = Lattice(engine, plan, freq, budget, bounds=True)
        asked = random.Random(7).sample(nodes, len(nodes))
        assert {n: inferring.hopeless(n, "test") for n in asked} == truth
        assert 0 < inferring.checks < len(nodes) // 2
        for n in nodes[::5]:
            rows = at_node(engine, freq, n)
            drop_failing(engine, plan, freq, rows, n)
            assert _node_loss(checked, n) == pytest.approx(rows_loss(engine, plan, rows), abs=1e-12), n
