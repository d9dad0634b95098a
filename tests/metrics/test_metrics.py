"""Utility metrics on a hand-built candidate (8 source rows, 2 suppressed, 2 classes)."""

from __future__ import annotations

import pytest

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.metrics import cavg, discernibility, loss, ncp, qi, suppression, utility_report

# QI 0 numeric, domain 10..50 (range 40); QI 1 categorical a..d (m = 4)
# class 1: [10, 20] x {b, c}  -> NCP 10/40 + 2/4 = 0.75,  loss 1/4 + 1/3
# class 2: [30, 50] x {a..d}  -> NCP 20/40 + 4/4 = 1.5,   loss 2/4 + 3/3
CANDIDATE = [(1, 1, 0, 1, 1, 2), (2, 1, 0, 1, 1, 2), (3, 1, 0, 1, 1, 2),
             (4, 2, 2, 4, 0, 3), (5, 2, 2, 4, 0, 3), (6, 2, 2, 4, 0, 3)]
N = 8


@pytest.fixture
def setup(con):
    con.execute("CREATE TABLE dom0 AS SELECT i::INTEGER AS code, (10 * (i + 1))::VARCHAR AS value, "
                "10.0 * (i + 1) AS num FROM range(5) t(i)")
    con.execute("CREATE TABLE dom1 AS SELECT i::INTEGER AS code, chr(97 + i::INTEGER) AS value, "
                "NULL::DOUBLE AS num FROM range(4) t(i)")
    con.execute('CREATE TABLE cand ("__rid" INTEGER, "__cid" INTEGER, "__lo0" INTEGER, "__hi0" INTEGER, '
                '"__lo1" INTEGER, "__hi1" INTEGER)')
    con.executemany("INSERT INTO cand VALUES (?, ?, ?, ?, ?, ?)", [list(r) for r in CANDIDATE])
    return Engine(con), [qi(0, '"dom0"', True, 5), qi(1, '"dom1"', False, 4)]


def test_ncp(setup):
    engine, qis = setup
    total, mean = ncp(engine, '"cand"', qis, N)
    assert total == pytest.approx(3 * 0.75 + 3 * 1.5)
    assert mean == pytest.approx((6.75 + 2 * 2) / (N * 2))


def test_ncp_ungeneralized_categorical_costs_nothing(setup, con):
    engine, qis = setup
    con.execute('UPDATE cand SET "__hi1" = "__lo1", "__hi0" = "__lo0"')
    assert ncp(engine, '"cand"', qis, 6) == (0.0, 0.0)


def test_loss(setup):
    engine, qis = setup
    want = (3 * (1 / 4 + 1 / 3) + 3 * (2 / 4 + 1) + 2 * 2) / (N * 2)
    assert loss(engine, '"cand"', qis, N) == pytest.approx(want)


def test_class_metrics(setup):
    engine, qis = setup
    assert discernibility(engine, '"cand"', N) == 9 + 9 + 2 * 8
    assert cavg(engine, '"cand"', N, 3) == pytest.approx(6 / 6)
    assert cavg(engine, '"cand"', N, 2) == pytest.approx(6 / 4)
    assert suppression(engine, '"cand"', N) == pytest.approx(0.25)


def test_report_and_errors(setup):
    engine, qis = setup
    r = utility_report(engine, '"cand"', qis, N, k=3)
    assert (r["released"], r["suppressed"], r["classes"], r["discernibility"]) == (6, 2, 2, 34)
    assert r["ncp"] == pytest.approx(10.75 / 16) and r["cavg"] == pytest.approx(1.0)
    assert "cavg" not in utility_report(engine, '"cand"', qis, N)
    per_qi = utility_report(engine, '"cand"', qis, N, names=["age", "grade"])["ncp_per_qi"]
    # age: 3 * 10/40 + 3 * 20/40 = 2.25 and 2 suppressed cells of 1, over 8 cells;
    # grade: 3 * 2/4 + 3 * 4/4 = 4.5 and 2, over 8; their mean is the table's NCP per cell
    assert per_qi == pytest.approx({"age": (2.25 + 2) / N, "grade": (4.5 + 2) / N})
    assert sum(per_qi.values()) / 2 == pytest.approx(r["ncp"])
    with pytest.raises(SpecError, match="total_rows"):
        utility_report(engine, '"cand"', qis, 5)
    with pytest.raises(SpecError, match="k"):
        cavg(engine, '"cand"', N, 0)


def test_everything_suppressed(setup, con):
    engine, qis = setup
    con.execute("DELETE FROM cand")
    r = utility_report(engine, '"cand"', qis, N, k=3)
    assert (r["ncp"], r["loss"], r["suppression"], r["discernibility"], r["cavg"]) == (1.0, 1.0, 1.0, 64, 0.0)


# NCP's two conventions for a categorical cell (paper 000 Sec. 3.2.2, NCP_Acat; the paper numbers
# no equation). QI 1 = a..d (|A| = 4) under the tree a, b -> ab; c, d -> cd; ab, cd -> *.
#   cell              ours: covered values / 4 (0 for one)   paper: leaves of the lowest node / 4
#   {b}               0                                      node b:  1 / 4
#   {a, b}            2 / 4                                  node ab: 2 / 4
#   {a, c} (a set)    2 / 4                                  node *:  4 / 4
#   {c, d}            2 / 4                                  node cd: 2 / 4
# QI 0 (numeric, range 40): [10, 20] on the first row, 10 / 40 under both (NCP_Anum).
# NCP(T): ours 0.25 + 1.5 = 1.75, paper 0.25 + 2.25 = 2.5.
CONVENTION_CELLS = [(1, 1, 0, 1, 1, 1, 1), (2, 2, 0, 0, 0, 1, 2), (3, 3, 0, 0, 0, 2, 2), (4, 4, 0, 0, 2, 3, 2)]


@pytest.fixture
def conventions(setup, con):
    engine, _ = setup
    con.execute('CREATE TABLE sized ("__rid" INTEGER, "__cid" INTEGER, "__lo0" INTEGER, "__hi0" INTEGER, '
                '"__lo1" INTEGER, "__hi1" INTEGER, "__n1" INTEGER)')
    con.executemany("INSERT INTO sized VALUES (?, ?, ?, ?, ?, ?, ?)", [list(r) for r in CONVENTION_CELLS])
    con.execute("CREATE TABLE hier1 AS SELECT * FROM (VALUES (0, 0, 0, 0), (1, 0, 1, 1), (2, 0, 2, 2), (3, 0, 3, 3), "
                "(0, 1, 0, 1), (1, 1, 0, 1), (2, 1, 2, 3), (3, 1, 2, 3), (0, 2, 0, 3), (1, 2, 0, 3), (2, 2, 0, 3), "
                "(3, 2, 0, 3)) AS t(code, level, lo, hi)")
    con.execute('ALTER TABLE sized ADD COLUMN "__n0" INTEGER DEFAULT 1')
    return engine, [qi(0, '"dom0"', True, 5, sized=True), qi(1, '"dom1"', False, 4, sized=True, hier='"hier1"')]


def test_ncp_ours_counts_covered_values(conventions):
    engine, qis = conventions
    assert ncp(engine, '"sized"', qis, 4)[0] == pytest.approx(0.25 + 0 + 2 / 4 + 2 / 4 + 2 / 4)


def test_ncp_paper_counts_hierarchy_leaves(conventions):
    engine, qis = conventions
    assert ncp(engine, '"sized"', qis, 4, convention="paper")[0] == pytest.approx(0.25 + 1 / 4 + 2 / 4 + 4 / 4 + 2 / 4)
    with pytest.raises(ValueError, match="hier"):
        ncp(engine, '"sized"', [qi(1, '"dom1"', False, 4, sized=True)], 4, convention="paper")
    with pytest.raises(ValueError, match="convention"):
        ncp(engine, '"sized"', qis, 4, convention="xu")
