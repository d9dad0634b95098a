"""The identity-reserved models of paper 004 (Wang et al. 2018): Definition 2.3's IR models and
the EIR models of Definitions 3.3 and 3.4, checked by ``holds`` (Algorithms 2 and 4), by the
trackers (Algorithms 5 and 6) and in SQL (``decide_classes``), on Tables 2 to 4 and against brute
force over the reasoning space (Definition 3.2)."""

from __future__ import annotations

from collections import Counter
from itertools import permutations, product

import duckdb
import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import list_templates
from anonymizer.errors import SpecError
from anonymizer.families import build_model
from anonymizer.families.identity_reserved.models import (
    EIRAlphaBetaAnonymity,
    EIRLDiversity,
    IRAlphaBetaAnonymity,
    IRKAnonymity,
    IRKLAnonymity,
)
from anonymizer.families.identity_reserved import IR_MODEL_TYPES
from anonymizer.families.identity_reserved.verify import class_counts_sql, decide_classes, verify, vulnerable
from anonymizer.engine.names import ident
from tests.engine.test_templates import collect

# Table 2: Id_num -> the diseases of the individual's records (Mike 1, Lily 2, Tim 3, Jane 4, Tina 5,
# Ella 6, Lucy 7)
TABLE2 = {1: ["Hypertension", "Heart"], 2: ["Cancer"], 3: ["Hypertension"], 4: ["Hypertension", "Diabetes"],
          5: ["HIV"], 6: ["Leukaemia", "Heart"], 7: ["Syphilis"]}
TABLE3 = {1: [2, 5, 6, 7], 2: [1, 3, 4]}      # Q1, Q2 of Table 3 (GeneIR, IR (3,3) / IR (0.4,0.6))
TABLE4 = {1: [4, 6, 7], 2: [1, 2, 3, 5]}      # Q1, Q2 of Table 4 (DAnonyIR, EIR 3 / EIR (0.4,0.6))

IR33, IRAB = IRKLAnonymity(3, 3, "Disease"), IRAlphaBetaAnonymity(0.4, 0.6, "Disease")
EIR3, EIRAB = EIRLDiversity(3, "Disease"), EIRAlphaBetaAnonymity(0.4, 0.6, "Disease")


def individuals(records_of: list[list[str]]) -> list[tuple[int, Counter]]:
    return [(len(r), Counter(r)) for r in records_of]


def cls(table: dict[int, list[int]], q: int) -> list[list[str]]:
    return [TABLE2[p] for p in table[q]]


# -- brute force over the reasoning space (Definition 3.2) ------------------------------------------

def reasoning_space(c: list[list[str]]) -> list[tuple[str, ...]]:
    """Every reasoning set: one record per individual (records given by their values)."""
    return list(product(*c))


def brute(model, c: list[list[str]]) -> bool:
    if not c:
        return False
    rows, n = sum(map(len, c)), len(c)
    if isinstance(model, IRKAnonymity):
        return n >= model.k
    if isinstance(model, IRKLAnonymity):
        return n >= model.k and len({v for r in c for v in r}) >= model.l
    if isinstance(model, IRAlphaBetaAnonymity):
        per_value = Counter(v for r in c for v in r)
        return max(map(len, c)) / rows <= model.alpha and max(per_value.values()) / rows <= model.beta
    if isinstance(model, EIRLDiversity):
        return min(len(set(rs)) for rs in reasoning_space(c)) >= model.l
    if isinstance(model, EIRAlphaBetaAnonymity):
        share = max(max(Counter(rs).values()) for rs in reasoning_space(c)) / n
        return max(map(len, c)) / rows <= model.alpha and share <= model.beta
    raise AssertionError(model)


def via_tracker(model, c: list[list[str]]) -> bool:
    t, ok = model.tracker(), False
    for records, values in individuals(c):
        ok = t.add(records, values)
    return ok


def records_table(con, classes: dict[int, list[list[str]]], name: str = "recs") -> None:
    con.execute(f'CREATE OR REPLACE TABLE {ident(name)} ("c id" INTEGER, "p""id" INTEGER, "select" VARCHAR)')
    rows, pid = [], 0
    for cid, c in classes.items():
        for recs in c:
            pid += 1
            rows += [(cid, pid, v) for v in recs]
    if rows:
        con.executemany(f"INSERT INTO {ident(name)} VALUES (?, ?, ?)", rows)


NAMES = dict(cid=ident("c id"), pid=ident('p"id'), s=ident("select"))


def sql_verdicts(engine: Engine, model, records: str = ident("recs")) -> tuple[dict, dict[int, bool]]:
    target = engine.work("decided")
    stats = decide_classes(engine, model, records, target=target, **NAMES)
    return stats, dict(engine.con.execute(f"SELECT cid, ok FROM {target}").fetchall())


# -- the running example ---------------------------------------------------------------------------

def test_table3_q2_is_ir_but_not_eir():
    q2 = cls(TABLE3, 2)
    assert [m.holds(individuals(q2)) for m in (IR33, IRAB, EIR3, EIRAB)] == [True, True, False, False]
    assert [via_tracker(m, q2) for m in (IR33, IRAB, EIR3, EIRAB)] == [True, True, False, False]
    assert [brute(m, q2) for m in (IR33, IRAB, EIR3, EIRAB)] == [True, True, False, False]


@pytest.mark.parametrize("c", [cls(TABLE3, 1), cls(TABLE4, 1), cls(TABLE4, 2)], ids=["T3Q1", "T4Q1", "T4Q2"])
def test_eir_classes_of_tables_3_and_4(c):
    for m in (EIR3, EIRAB, IR33, IRAB):
        assert m.holds(individuals(c)) and brute(m, c)
        for order in permutations(c):
            assert via_tracker(m, list(order))


def test_reasoning_space_size():
    """Eq. (8): Table 3's Q2 has |R(1)| x |R(4)| = 4 reasoning sets; Table 4's Q2 has 2."""
    assert len(reasoning_space(cls(TABLE3, 2))) == 4
    assert sorted(reasoning_space(cls(TABLE3, 2))) == sorted([
        ("Hypertension", "Hypertension", "Hypertension"), ("Hypertension", "Hypertension", "Diabetes"),
        ("Heart", "Hypertension", "Hypertension"), ("Heart", "Hypertension", "Diabetes")])
    assert len(reasoning_space(cls(TABLE4, 2))) == 2


def test_incremental_sequence_of_section_4_3():
    """Individuals 6, 7, 4 join Q (section 4.3): not 3-diverse, not yet, then 3-diverse."""
    t = EIR3.tracker()
    assert [t.add(len(TABLE2[p]), Counter(TABLE2[p])) for p in (6, 7, 4)] == [False, False, True]
    t4 = EIRLDiversity(4, "Disease").tracker()
    for p in (6, 7, 4):
        t4.add(len(TABLE2[p]), Counter(TABLE2[p]))
    assert len(t4.inc.family) == 4 and {len(h) for h in t4.inc.family} == {3}


def test_eir_alpha_beta_tracker_is_algorithm_6():
    t = EIRAB.tracker()
    # Table 4's Q2 in the order 3, 1, 2, 5: shares settle at 2/5 and 2/4
    assert t.add(1, {"Hypertension": 1}) is False             # 1/1 > 0.4
    assert t.add(2, {"Hypertension": 1, "Heart": 1}) is False  # 2/3 > 0.4
    assert t.add(1, {"Cancer": 1}) is False                    # 2/4 > 0.4
    assert t.add(1, {"HIV": 1}) is True                        # 2/5, MaxSenNum 2/4
    assert (t.max_rec, t.max_sen, t.rows, t.individuals) == (2, 2, 5, 4)


def test_duplicate_values_count_records_for_ir_and_individuals_for_eir():
    # one individual with the same value twice, three others: |R(s)| = 3 records, |P(s)| = 2
    c = [["a", "a"], ["a"], ["b"], ["c"]]
    assert IRAlphaBetaAnonymity(0.4, 0.5, "s").holds(individuals(c)) is False   # 3/5 records > 0.5
    assert EIRAlphaBetaAnonymity(0.4, 0.5, "s").holds(individuals(c)) is True   # 2/4 individuals
    assert brute(IRAlphaBetaAnonymity(0.4, 0.5, "s"), c) is False
    assert brute(EIRAlphaBetaAnonymity(0.4, 0.5, "s"), c) is True


def test_tracker_rejects_inconsistent_counts():
    with pytest.raises(ValueError):
        EIR3.tracker().add(3, {"a": 1})
    with pytest.raises(ValueError):
        IR33.holds([(0, {})])


def test_enhanced_versions():
    assert IR33.enhanced() == EIRLDiversity(3, "Disease")
    assert IRAB.enhanced() == EIRAB
    assert IRKAnonymity(3).enhanced() is None
    assert [m.monotonic for m in (IRKAnonymity(2), IR33, EIR3, IRAB, EIRAB)] == [True, True, True, False, False]
    assert all(m.spec_type in IR_MODEL_TYPES for m in (IRKAnonymity(2), IR33, EIR3, IRAB, EIRAB))
    assert str(EIR3) == "EIR 3-diversity on 'Disease'" and str(IRAB) == "IR (0.4,0.6)-anonymity on 'Disease'"


# -- in SQL ----------------------------------------------------------------------------------------

def test_decide_classes_on_table_3_and_4(con):
    engine = Engine(con)
    with engine.workspace():
        for table, expected in ((TABLE3, {IR33: {1: True, 2: True}, IRAB: {1: True, 2: True},
                                          EIR3: {1: True, 2: False}, EIRAB: {1: True, 2: False},
                                          IRKAnonymity(4): {1: True, 2: False}}),
                                (TABLE4, {IR33: {1: True, 2: True}, IRAB: {1: True, 2: True},
                                          EIR3: {1: True, 2: True}, EIRAB: {1: True, 2: True}})):
            records_table(con, {q: cls(table, q) for q in table})
            for model, verdicts in expected.items():
                stats, got = sql_verdicts(engine, model)
                assert got == verdicts, model
                assert stats["classes"] == 2 and stats["failing"] == list(verdicts.values()).count(False)


def test_class_counts_of_table_3(con):
    records_table(con, {q: cls(TABLE3, q) for q in TABLE3})
    cur = con.execute(f"SELECT * FROM {class_counts_sql(ident('recs'), **NAMES)} ORDER BY cid")
    got = [dict(zip([d[0] for d in cur.description], r)) for r in cur.fetchall()]
    assert got[1] == {"cid": 2, "rows": 5, "individuals": 3, "values": 3, "max_rec": 2, "max_sen_rec": 3,
                      "max_sen_ind": 3, "xi": 1, "multi": 2, "rest": 0, "tau_lb": 1, "tau_ub": 1}
    # Q1: xi = {Cancer, HIV, Syphilis} leaves Ella (Leukaemia, Heart): tau = 3 + 1 exactly
    assert (got[0]["xi"], got[0]["rest"], got[0]["tau_lb"], got[0]["tau_ub"]) == (3, 1, 4, 4)


def test_undecided_classes_go_to_algorithm_2(con):
    """The triangle (tau 2) and the triangle plus a disjoint pair (tau 3) cannot be decided by the
    SQL bounds for l = 3; Python decides them, on a view and on a subquery alike."""
    tri = [["a", "b"], ["a", "c"], ["b", "c"]]
    classes = {1: tri, 2: tri + [["d", "e"]], 3: [["x", "y"], ["x", "z"]], 4: [["p"], ["q"], ["r"]]}
    records_table(con, classes)
    con.execute('CREATE VIEW "my view" AS SELECT * FROM recs')
    engine = Engine(con)
    with engine.workspace():
        for records in (ident("recs"), ident("my view"), f'(SELECT * FROM recs WHERE "c id" > 0)'):
            stats, got = sql_verdicts(engine, EIR3, records)
            assert got == {1: False, 2: True, 3: False, 4: True}
            assert stats == {"classes": 4, "failing": 2, "decided_in_sql": 2, "decided_in_python": 2}


def test_verdict_sql_in_a_callers_statement(con):
    """Another algorithm embeds verdict_sql with its own prefix over the class counts."""
    records_table(con, {q: cls(TABLE3, q) for q in TABLE3})
    counts = class_counts_sql(ident("recs"), **NAMES)
    for model, expected in ((IR33, [True, True]), (EIRAB, [True, False]), (EIR3, [True, False])):
        sql = f"SELECT {model.verdict_sql('g7')} FROM {counts} ORDER BY cid"
        assert [r[0] for r in con.execute(sql, model.params("g7")).fetchall()] == expected
    with pytest.raises(ValueError):
        IR33.verdict_sql("x; DROP")


def test_verify_and_vulnerable(con):
    engine = Engine(con)
    with engine.workspace():
        records_table(con, {q: cls(TABLE3, q) for q in TABLE3})
        got = {r["model"]: r for r in verify(engine, [IR33, IRAB, EIR3, EIRAB, IRKAnonymity(3)], ident("recs"),
                                            **NAMES)}
        assert got[str(IR33)]["holds"] and got[str(IR33)]["figures"] == {"min_individuals": 3, "min_values": 3}
        assert got[str(IRAB)]["holds"] and got[str(IRAB)]["figures"] == {"max_record_share": 0.4,
                                                                        "max_value_share": 0.6}
        assert not got[str(EIR3)]["holds"] and got[str(EIR3)]["failing"] == 1
        assert got[str(EIR3)]["figures"] == {"min_hitting_set": 1, "at_least": False}
        assert got[str(EIRAB)]["figures"] == {"max_record_share": 0.4, "max_value_share": 1.0}
        assert got["IR 3-anonymity"]["figures"] == {"min_individuals": 3}
        assert vulnerable(engine, IR33, ident("recs"), **NAMES) == {
            "vulnerable": 1, "satisfying": 2, "classes": 2, "percent": 50.0}
        assert vulnerable(engine, IRAB, ident("recs"), **NAMES)["vulnerable"] == 1
        with pytest.raises(ValueError):
            vulnerable(engine, IRKAnonymity(3), ident("recs"), **NAMES)

        records_table(con, {q: cls(TABLE4, q) for q in TABLE4})
        got = {r["model"]: r for r in verify(engine, [EIR3, EIRAB], ident("recs"), **NAMES)}
        assert got[str(EIR3)]["holds"] and got[str(EIR3)]["figures"] == {"min_hitting_set": 3, "at_least": True}
        assert got[str(EIR3)]["figure"] == "smallest minimum hitting set >= 3"
        assert got[str(EIRAB)]["holds"] and got[str(EIRAB)]["figures"]["max_value_share"] == 0.5
        assert vulnerable(engine, IR33, ident("recs"), **NAMES)["vulnerable"] == 0
        # nothing left behind in the work schema
        left = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_catalog = $s",
                           {"s": engine.work_schema}).fetchone()[0]
        assert left == 0


def test_verify_finds_the_exact_smallest_minimum_by_branch_and_bound(con):
    """For l = 4 the triangle fails in SQL (tau <= 3) but its tau is only known to lie in [2, 3];
    the triangle plus a pair (tau 3, bounds [2, 4]) is decided in Python; the figure is exact."""
    tri = [["a", "b"], ["a", "c"], ["b", "c"]]
    wide = [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]          # tau 4 = n_Q / MaxSenNum: TRUE in SQL
    records_table(con, {1: tri + [["d", "e"]], 2: tri, 3: wide})
    engine = Engine(con)
    with engine.workspace():
        (r,) = verify(engine, [EIRLDiversity(4, "s")], ident("recs"), **NAMES)
    assert r["failing"] == 2 and r["figures"] == {"min_hitting_set": 2, "at_least": False}
    assert (r["decided_in_sql"], r["decided_in_python"]) == (2, 1)


def test_every_ir_template_renders_and_parses(con, monkeypatch):
    """The models/ir_* templates, on names that need quoting, all run and parse with sqlglot."""
    rendered, executed, _ = collect(monkeypatch)
    tri = [["a", "b"], ["a", "c"], ["b", "c"]]
    records_table(con, {1: tri, 2: tri + [["d", "e"]], 3: cls(TABLE3, 2)}, name='r"e c')
    engine = Engine(con)
    with engine.workspace():
        verify(engine, [IRKAnonymity(2), IR33, IRAB, EIR3, EIRAB], ident('r"e c'), **NAMES)
        vulnerable(engine, IR33, ident('r"e c'), **NAMES)
    ours = {t for t in list_templates() if t.startswith("models/ir_")}
    assert ours and ours <= rendered
    for texts in executed.values():
        for text in texts:
            sqlglot.parse(text, read="duckdb")


# -- the spec --------------------------------------------------------------------------------------

def test_build_models_from_spec_entries():
    assert build_model({"type": "ir-k-anonymity", "k": 3}, "m") == IRKAnonymity(3)
    assert build_model({"type": "ir-kl-anonymity", "k": 3, "l": 2, "sensitive": "d"}, "m") == IRKLAnonymity(3, 2, "d")
    assert build_model({"type": "ir_alpha_beta_anonymity", "alpha": 0.4, "beta": 0.6, "sensitive": "d"},
                       "m") == IRAlphaBetaAnonymity(0.4, 0.6, "d")
    assert build_model({"type": "eir-l-diversity", "l": 3, "sensitive": "d"}, "m") == EIRLDiversity(3, "d")
    assert build_model({"type": "eir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0.5, "sensitive": "d"},
                       "m") == EIRAlphaBetaAnonymity(0.5, 0.5, "d")


@pytest.mark.parametrize("entry, field", [
    ({"type": "ir-kl-anonymity", "k": 3, "l": 2}, "m.sensitive"),
    ({"type": "ir-kl-anonymity", "k": 0, "l": 2, "sensitive": "d"}, "m.k"),
    ({"type": "eir-l-diversity", "l": 2.5, "sensitive": "d"}, "m.l"),
    ({"type": "eir-alpha-beta-anonymity", "alpha": 1, "beta": 0.5, "sensitive": "d"}, "m.alpha"),
    ({"type": "ir-alpha-beta-anonymity", "alpha": 0.5, "beta": 0, "sensitive": "d"}, "m.beta"),
    ({"type": "ir-k-anonymity", "k": 2, "sensitive": "d"}, "m.sensitive"),
])
def test_spec_errors_name_the_field(entry, field):
    with pytest.raises(SpecError) as err:
        build_model(entry, "m")
    assert field in str(err.value)


# -- brute force, hypothesis ------------------------------------------------------------------------

value = st.sampled_from("abcde")
klass = st.lists(st.lists(value, min_size=1, max_size=4), min_size=1, max_size=6)
share = st.sampled_from([0.2, 0.25, 0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8])
model_strategy = st.one_of(
    st.builds(IRKAnonymity, st.integers(1, 6)),
    st.builds(IRKLAnonymity, st.integers(1, 6), st.integers(1, 5), st.just("s")),
    st.builds(IRAlphaBetaAnonymity, share, share, st.just("s")),
    st.builds(EIRLDiversity, st.integers(1, 5), st.just("s")),
    st.builds(EIRAlphaBetaAnonymity, share, share, st.just("s")),
)


@settings(max_examples=400, deadline=None)
@given(klass, model_strategy, st.randoms(use_true_random=False))
def test_holds_and_trackers_agree_with_brute_force(c, model, rnd):
    expected = brute(model, c)
    assert model.holds(individuals(c)) == expected
    order = list(c)
    rnd.shuffle(order)
    assert via_tracker(model, order) == expected
    # every prefix of the insertion order, too (a tracker answers after each individual)
    t = model.tracker()
    for i, recs in enumerate(order):
        assert t.add(len(recs), Counter(recs)) == brute(model, order[:i + 1])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(klass, min_size=1, max_size=4), st.lists(model_strategy, min_size=1, max_size=3))
def test_decide_classes_agrees_with_brute_force(classes, models):
    con = duckdb.connect()
    try:
        table = dict(enumerate(classes, start=1))
        records_table(con, table)
        engine = Engine(con)
        with engine.workspace():
            for model in models:
                stats, got = sql_verdicts(engine, model)
                assert got == {q: brute(model, c) for q, c in table.items()}, model
                assert stats["failing"] == sum(not brute(model, c) for c in classes)
            for r in verify(engine, models, ident("recs"), **NAMES):
                model = next(m for m in models if str(m) == r["model"])
                assert r["holds"] == all(brute(model, c) for c in classes)
                if isinstance(model, EIRLDiversity):
                    tau = min(min(len(set(rs)) for rs in reasoning_space(c)) for c in classes)
                    assert r["figures"]["min_hitting_set"] == min(tau, model.l)
                    assert r["figures"]["at_least"] == (tau >= model.l)
    finally:
        con.close()
