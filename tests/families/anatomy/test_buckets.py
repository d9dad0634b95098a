"""Security levels and multi-dimensional buckets in SQL (anonymizer.families.anatomy.buckets)
against paper 002's Table 1, section 3's security levels and Figure 1, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from anonymizer.families.anatomy.buckets import build_buckets, build_levels
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.conftest import table1_spec

PHYSICIANS = ["Anne", "Bob", "John", "Mary", "Sam"]
DISEASES = ["Cancer", "Flu", "Gastritis", "HIV", "Pneumonia"]

#: Figure 1: the dimension capacities (sum of the sizes of the buckets holding the value).
CAPA_PHYSICIAN = {"John": 3, "Mary": 2, "Bob": 2, "Anne": 1, "Sam": 1}
CAPA_DISEASE = {"Flu": 3, "Pneumonia": 2, "Gastritis": 2, "Cancer": 1, "HIV": 1}

#: Section 3: "the security levels of all sensitive attribute values [of Physician] can be set
#: to ... Level 1"; Flu level 0, Pneumonia and Gastritis 1, HIV and Cancer 2.
LEVEL = {("Physician", p): 1 for p in PHYSICIANS} | {
    ("Disease", "Flu"): 0, ("Disease", "Pneumonia"): 1, ("Disease", "Gastritis"): 1,
    ("Disease", "HIV"): 2, ("Disease", "Cancer"): 2}

#: Eq. 1 (MSDCF): max_j Capa(s_j) + size; Eq. 2 (MMDCF): sum_j Capa(s_j) + size; by hand
#: from CAPA_* with every size 1 (e.g. <John, Flu>: max(3, 3) + 1 = 4 and 3 + 3 + 1 = 7).
SELECTIVITY = {
    ("Anne", "Gastritis"): (3, 4),   # max(1, 2) + 1, 1 + 2 + 1
    ("Bob", "Flu"): (4, 6),          # max(2, 3) + 1, 2 + 3 + 1
    ("Bob", "Pneumonia"): (3, 5),    # max(2, 2) + 1, 2 + 2 + 1
    ("John", "Flu"): (4, 7),         # max(3, 3) + 1, 3 + 3 + 1
    ("John", "Gastritis"): (4, 6),   # max(3, 2) + 1, 3 + 2 + 1
    ("John", "Pneumonia"): (4, 6),   # max(3, 2) + 1, 3 + 2 + 1
    ("Mary", "Cancer"): (3, 4),      # max(2, 1) + 1, 2 + 1 + 1
    ("Mary", "Flu"): (4, 6),         # max(2, 3) + 1, 2 + 3 + 1
    ("Sam", "HIV"): (2, 3),          # max(1, 1) + 1, 1 + 1 + 1
}


def built(con, spec: dict, l_of=(1, 2, 3), seed=None):
    """Run prepare, build_levels and build_buckets on ``spec``; return the two tables as
    frames, the Buckets arrays and SQL's initial figures (read before the work schema goes)."""
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, load_spec(spec))
        levels = build_levels(engine, plan, list(l_of))
        table, buckets, initial = build_buckets(engine, plan, levels, seed)
        lv = con.execute(f"SELECT * FROM {levels}").df()
        bk = con.execute(f"SELECT * FROM {table} ORDER BY bid").df()
    return lv, bk, buckets, initial


@pytest.fixture
def figure1(t1):
    return built(t1, table1_spec())


def test_nine_buckets_of_size_one(figure1):
    _, bk, buckets, _ = figure1
    vectors = list(zip(bk.s0, bk.s1))
    assert sorted(vectors) == sorted(SELECTIVITY)   # one bucket per distinct <Physician, Disease>
    assert list(bk["size"]) == [1] * 9 and list(buckets.size) == [1] * 9
    assert buckets.d == 2 and buckets.domain == [5, 5]
    # Figure 1's own example: size(bucket<Anne, Gastritis>) = 1, i.e. {t6}.
    assert bk[(bk.s0 == "Anne") & (bk.s1 == "Gastritis")]["size"].tolist() == [1]


def test_dimension_capacities_are_figure_1(figure1):
    _, bk, buckets, initial = figure1
    for row in bk.itertuples():
        assert row.c0 == CAPA_PHYSICIAN[row.s0], row
        assert row.c1 == CAPA_DISEASE[row.s1], row
    # The text: Capa(Anne) = 0 + 0 + 1 + 0 + 0 = 1 and Capa(Gastritis) = 1 + 0 + 1 + 0 + 0 = 2.
    anne_gastritis = bk[(bk.s0 == "Anne") & (bk.s1 == "Gastritis")].iloc[0]
    assert (anne_gastritis.c0, anne_gastritis.c1) == (1, 2)
    # The same capacities from the Buckets arrays the greedy reads, by value code (text order).
    capa = buckets.capacities()
    assert list(capa[0]) == [CAPA_PHYSICIAN[p] for p in PHYSICIANS]
    assert list(capa[1]) == [CAPA_DISEASE[d] for d in DISEASES]
    assert initial["capa"].tolist() == [[CAPA_PHYSICIAN[p], CAPA_DISEASE[d]] for p, d in zip(bk.s0, bk.s1)]
    # Capacities of a dimension add up to the table's nine records.
    assert sum(CAPA_PHYSICIAN.values()) == sum(CAPA_DISEASE.values()) == 9


def test_initial_selectivities_worked_by_hand(figure1):
    _, bk, _, initial = figure1
    for i, row in enumerate(bk.itertuples()):
        msdcf, mmdcf = SELECTIVITY[(row.s0, row.s1)]
        assert (row.sel_msdcf, row.sel_mmdcf) == (msdcf, mmdcf), (row.s0, row.s1)
        assert (initial["sel_msdcf"][i], initial["sel_mmdcf"][i]) == (msdcf, mmdcf)


def test_security_levels_per_value_and_per_bucket(figure1):
    lv, bk, buckets, _ = figure1
    names = {0: "Physician", 1: "Disease"}
    got = {(names[r.dim], r.value): r.level for r in lv.itertuples()}
    assert got == LEVEL
    l_of = [1, 2, 3]
    for r in lv.itertuples():
        assert r.l == l_of[r.level]
    # value codes number each attribute's values in text order
    assert lv[lv.dim == 0].sort_values("code").value.tolist() == PHYSICIANS
    assert lv[lv.dim == 1].sort_values("code").value.tolist() == DISEASES
    # a bucket's level is the highest level of its values: <Mary, Cancer> and <Sam, HIV> are at 2
    for i, row in enumerate(bk.itertuples()):
        want = max(LEVEL[("Physician", row.s0)], LEVEL[("Disease", row.s1)])
        assert row.level == buckets.level[i] == want, (row.s0, row.s1)
        assert (row.l0, row.l1) == (l_of[LEVEL[("Physician", row.s0)]], l_of[LEVEL[("Disease", row.s1)]])
        assert buckets.lval[i].tolist() == [row.l0, row.l1]
    assert sorted(zip(bk.s0[bk.level == 2], bk.s1[bk.level == 2])) == [("Mary", "Cancer"), ("Sam", "HIV")]


def test_tie_order_without_seed_is_the_vectors_order(figure1):
    _, bk, buckets, _ = figure1
    assert list(buckets.tie) == list(range(9))
    assert list(zip(bk.s0, bk.s1)) == sorted(SELECTIVITY)


def test_seeded_tie_order_is_a_permutation_and_reproducible(t1):
    _, _, a, _ = built(t1, table1_spec(), seed=7)
    _, _, b, _ = built(t1, table1_spec(), seed=7)
    assert sorted(a.tie) == list(range(9))
    assert list(a.tie) == list(b.tie)
    # everything else does not depend on the seed
    _, _, c, _ = built(t1, table1_spec(), seed=None)
    assert np.array_equal(a.size, c.size) and np.array_equal(a.vals, c.vals) and np.array_equal(a.lval, c.lval)


def test_without_security_every_value_is_level_2(t1):
    spec = table1_spec(model={"type": "multi-l-diversity", "l": 3})
    for col in ("Physician", "Disease"):
        spec["columns"][col] = "sensitive"
    lv, bk, buckets, _ = built(t1, spec, l_of=(3, 3, 3))
    assert set(lv.level) == {2} and set(lv.l) == {3}
    assert set(bk.level) == {2} and set(buckets.lval.ravel()) == {3}


def test_override_naming_an_absent_value_is_refused(t1):
    spec = table1_spec()
    spec["columns"]["Disease"]["security"]["values"]["Measles"] = 2
    with pytest.raises(SpecError) as err:
        built(t1, spec)
    assert err.value.field == "columns.Disease.security.values.Measles"


def test_too_many_distinct_vectors_is_refused_before_python_reads_them(con, monkeypatch):
    import anonymizer.families.anatomy.buckets as buckets_module
    from anonymizer import anonymize
    from anonymizer.errors import DataError
    monkeypatch.setattr(buckets_module, "MAX_BUCKETS", 100)
    con.execute("CREATE TABLE wide AS SELECT i % 7 AS q, i AS s FROM range(200) t(i)")
    spec = {"release": "wide", "source": {"table": "wide"}, "columns": {"q": "quasi", "s": "sensitive"},
            "models": [{"type": "multi-l-diversity", "l": 2}], "algorithm": {"name": "mbf"}}
    with pytest.raises(DataError, match="200 distinct vectors"):
        anonymize(spec, con)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0] == 0
