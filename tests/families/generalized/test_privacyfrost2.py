"""PrivacyFrost2 (paper 003): scoring functions on a table whose best node is worked out by
hand, the skip rule, minimum levels, pre-sampling, partial-domain de-generalization, and
outputs re-measured with pycanon."""

from __future__ import annotations

import itertools
import math

import pytest
from pycanon import anonymity

from anonymizer import anonymize
from anonymizer.families.generalized.lattice.frequency_set import build_frequency_set, distinct_counts
from anonymizer.families.generalized.full_domain import check_levels
from anonymizer.families.generalized.lattice.scoring import Scoring
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec
from tests.release.test_oracle import ARX_QIS, adult_spec

# Rows (a, b). a has the hierarchy a1,a2 -> a12; a3,a4 -> a34; then '*'; b is flat (b*, '*').
# With k = 2 the satisfying nodes (level of a, level of b) are every node but (0, 0); the
# two finest are (0, 1) with e = (4, 1) value types and (1, 0) with e = (2, 2).
ROWS = [("a1", "b1")] * 2 + [("a2", "b2")] * 2 + [("a3", "b1"), ("a3", "b2"), ("a4", "b1"), ("a4", "b2")]


@pytest.fixture
def small(con, tmp_path):
    con.execute("CREATE TABLE t (a VARCHAR, b VARCHAR, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(a, b, f"s{i % 3}") for i, (a, b) in enumerate(ROWS)])
    path = tmp_path / "a.csv"
    path.write_text("a1;a12;*\na2;a12;*\na3;a34;*\na4;a34;*\n")
    return con, str(path)


def frost(con, path, release, **algorithm):
    spec = {"release": release, "source": {"table": "t"}, "models": [{"type": "k-anonymity", "k": 2}],
            "columns": {"a": {"role": "quasi", "hierarchy": {"csv": path}}, "b": "quasi", "s": "sensitive"},
            "algorithm": {"name": "privacyfrost2", **algorithm}}
    return anonymize(spec, con)


# (scoring options, priorities, the best node worked out by hand)
HAND = [
    ({"scoring": "basic"}, {"a": 1, "b": 5}, {"a": 1, "b": 0}),   # 2*1 + 2*5 = 12 > 4*1 + 1*5 = 9
    ({"scoring": "basic"}, {"a": 5, "b": 1}, {"a": 0, "b": 1}),   # 4*5 + 1 = 21 > 2*5 + 2*1 = 12
    ({"scoring": "eta", "d": 3}, {"a": 1, "b": 2}, {"a": 1, "b": 0}),  # eta(2)=1, eta(2)=1: 3 > eta(4)=2: 2
    ({"scoring": "eta", "d": 3}, {"a": 3, "b": 1}, {"a": 0, "b": 1}),  # 3*2 + 0 = 6 > 3*1 + 1 = 4
    ({"scoring": "log"}, {"a": 4, "b": 1}, {"a": 0, "b": 1}),     # max(4*1, 1*0) = 4 > max(4/2, 1) = 2
    ({"scoring": "log"}, {"a": 1, "b": 3}, {"a": 1, "b": 0}),     # max(1/2, 3*1) = 3 > max(1, 0) = 1
]


@pytest.mark.parametrize("options,priorities,best", HAND, ids=[f"{o['scoring']}-{p}" for o, p, _ in HAND])
def test_scoring_functions_pick_the_hand_worked_node(small, options, priorities, best):
    con, path = small
    r = frost(con, path, f"hand_{options['scoring']}_{priorities['a']}", priorities=priorities, **options)
    assert r.algorithm["levels"] == best
    scoring = Scoring(options["scoring"], (priorities["a"], priorities["b"]), options.get("d", 0), (4, 2))
    e = {(0, 1): (4, 1), (1, 0): (2, 2)}[(best["a"], best["b"])]
    assert r.algorithm["score"] == pytest.approx(scoring.score(e))
    published = con.execute(f"SELECT a, b, count(*) FROM {r.view} GROUP BY ALL").fetchall()
    assert min(n for *_, n in published) >= 2


def test_scores_by_the_formulas_of_section_6():
    v = (10, 5, 1, 1)
    assert Scoring("basic", v).score([4, 3, 2, 1]) == 10 * 4 + 5 * 3 + 2 + 1
    assert Scoring("eta", v, d=3).score([4, 3, 2, 1]) == 10 * 2 + 5 * 1 + 1 * 1 + 0
    log = Scoring("log", v, before=(8, 9, 2, 1))
    assert log.score([4, 3, 2, 1]) == pytest.approx(max(10 * math.log(4) / math.log(8), 5 * 0.5, 1.0, 1.0))
    # the skip bound: e_i raised to b, never below the score
    assert Scoring("basic", v).bound([4, 3, 2, 1], 1, 7) == (10 * 4 + 5 * 7 + 2 + 1, 0.0)


def adult_frost(con, release, models, limit=0.0, **algorithm):
    spec = adult_spec(release, models, algorithm={"name": "privacyfrost2", **algorithm})
    return anonymize(dict(spec, suppression_limit=limit), con)


def test_skip_rule_never_skips_a_better_table(arx_adult):
    """Every node the delta-s rule skipped scores below the chosen table (or fails the models)."""
    con = arx_adult
    models = [{"type": "k-anonymity", "k": 5}]
    r = adult_frost(con, "skip", models, priorities={"age": 10, "education": 5, "sex": 2})
    skipped = [s for s in r.algorithm["trace"] if s["phase"] == "top-down skip (delta_s)"]
    assert skipped, "the skip rule never fired: the test would prove nothing"
    spec = load_spec(adult_spec("skip", models), base_dir=".")
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, spec)
        freq = build_frequency_set(engine, plan)
        e = distinct_counts(engine, freq)
        v = tuple({"age": 10, "education": 5, "sex": 2}.get(q.name, 1) for q in plan.qis)
        scoring = Scoring("basic", v)
        for step in skipped:
            node = step["levels"]
            score = scoring.score([e[i][lv] for i, lv in enumerate(node)])
            assert score <= step["score"]                         # the bound bounds
            ok = check_levels(engine, plan, dict(zip(ARX_QIS, node)), freq).failing_rows == 0
            assert not ok or score <= r.algorithm["score"]


def test_minimum_levels_are_kept(arx_adult):
    # age's hierarchy has height 4: min_level 3 (counted from the root) allows levels 0 and 1 only
    r = adult_frost(arx_adult, "minlevel", [{"type": "k-anonymity", "k": 5}], min_level={"age": 3},
                    priorities={"sex": 10})
    assert r.algorithm["levels"]["age"] <= 1
    assert all(s["levels"][0] <= 1 for s in r.algorithm["trace"])


@pytest.mark.slow
@pytest.mark.parametrize("scoring", ["basic", "eta", "log"])
def test_outputs_agree_with_pycanon(arx_adult, scoring):
    con = arx_adult
    models = [{"type": "k-anonymity", "k": 10}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"},
              {"type": "t-closeness", "t": 0.5, "sensitive": "occupation"}]
    extra = {"d": 10} if scoring == "eta" else {}
    r = adult_frost(con, f"pc_{scoring}", models, scoring=scoring, priorities={"age": 10, "education": 5},
                    partial=True, **extra)
    df = con.execute(f"SELECT * FROM {r.view}").df().reset_index(drop=True)
    assert anonymity.k_anonymity(df, ARX_QIS) == r.measures["k"] >= 10
    assert anonymity.l_diversity(df, ARX_QIS, ["occupation"]) >= 2
    assert anonymity.t_closeness(df, ARX_QIS, ["occupation"]) <= 0.5 + 1e-9
    assert r.algorithm["score"] >= r.algorithm["full_domain_score"]   # section 5.4 step 4


def test_partial_domain_lowers_classes_and_keeps_them_safe(arx_adult):
    con = arx_adult
    models = [{"type": "k-anonymity", "k": 5}]
    full = adult_frost(con, "nopartial", models, priorities={"age": 10})
    part = adult_frost(con, "partial", models, priorities={"age": 10}, partial=True)
    assert part.algorithm["levels"] == full.algorithm["levels"]
    assert part.algorithm["partial_rounds"], "no class was de-generalized"
    assert part.classes > full.classes
    assert part.utility["loss"] < full.utility["loss"]
    df = con.execute(f"SELECT * FROM {part.view}").df().reset_index(drop=True)
    assert anonymity.k_anonymity(df, ARX_QIS) >= 5


def test_heuristic_choice_is_the_best_satisfying_node_on_a_small_lattice(small):
    """On a lattice this small the search sees every boundary node: brute force agrees."""
    con, path = small
    for va, vb in itertools.product((1, 2, 7), repeat=2):
        r = frost(con, path, f"bf_{va}_{vb}", priorities={"a": va, "b": vb})
        e = {0: 4, 1: 2, 2: 1}, {0: 2, 1: 1}
        ok = [(la, lb) for la in range(3) for lb in range(2) if (la, lb) != (0, 0)]
        best = max(va * e[0][la] + vb * e[1][lb] for la, lb in ok)
        assert r.algorithm["score"] == best


def test_options_are_validated():
    base = {"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi"},
            "models": [{"type": "k-anonymity", "k": 2}]}
    bad = [({"name": "privacyfrost2", "scoring": "eta"}, "algorithm.d"),
           ({"name": "privacyfrost2", "scoring": "cosine"}, "algorithm.scoring"),
           ({"name": "privacyfrost2", "priorities": {"zz": 1}}, "algorithm.priorities.zz"),
           ({"name": "privacyfrost2", "priorities": {"a": 0}}, "algorithm.priorities.a"),
           ({"name": "privacyfrost2", "presample": {"levels": 1}}, "algorithm.presample.k"),
           ({"name": "optimal", "scoring": "basic"}, "algorithm.scoring"),
           ({"name": "mondrian", "partial": True}, "algorithm.partial")]
    for algorithm, field in bad:
        with pytest.raises(SpecError) as info:
            load_spec(dict(base, algorithm=algorithm))
        assert info.value.field == field, (algorithm, info.value)


def test_frequency_set_check_equals_the_row_check(arx_adult):
    con = arx_adult
    models = [{"type": "k-anonymity", "k": 5}, {"type": "entropy-l-diversity", "l": 2, "sensitive": "occupation"},
              {"type": "t-closeness", "t": 0.3, "sensitive": "occupation", "distance": "hierarchical"}]
    spec = load_spec(adult_spec("fs", models, sensitive_hierarchy=True), base_dir=".")
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, spec)
        freq = build_frequency_set(engine, plan)
        assert freq.rows == 30162 and freq.size < 30162
        for node in [(0,) * 8, (2, 0, 1, 1, 2, 1, 1, 0), (4, 1, 1, 2, 3, 2, 2, 1), (1, 1, 0, 2, 1, 0, 2, 1)]:
            levels = dict(zip(ARX_QIS, node))
            assert check_levels(engine, plan, levels, freq) == check_levels(engine, plan, levels)


@pytest.mark.parametrize("name", ["privacyfrost2", "optimal"])
def test_min_level_below_the_leaves_is_refused_and_nothing_published(arx_adult, name):
    spec = adult_spec("deep", [{"type": "k-anonymity", "k": 5}], algorithm={"name": name, "min_level": {"sex": 2}})
    with pytest.raises(SpecError) as info:
        anonymize(spec, arx_adult)
    assert info.value.field == "algorithm.min_level.sex" and "at most 1" in str(info.value)
    assert arx_adult.execute("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'deep%'"
                             ).fetchone()[0] == 0
