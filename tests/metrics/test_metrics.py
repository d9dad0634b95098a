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
