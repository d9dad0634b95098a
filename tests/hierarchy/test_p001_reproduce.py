"""Paper 001's reproduction: Table 4 and Figures 2, 3, 5 and 6 beside ours, and the findings
on sections IV-V (``anonymizer reproduce p001``)."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer.demo import load_adult
from anonymizer.reproduce import worked
from anonymizer.reproduce.findings import HOLDS, NOT, PARTLY, SCARCELY
from anonymizer.reproduce.p001_hierarchies.experiment import comparison, paper001
from anonymizer.reproduce.p001_hierarchies.figures import format_figures, level_figures
from anonymizer.reproduce.p001_hierarchies.findings import figure_findings, lattice_findings
from tests.cli.conftest import run_cli
from tests.project.test_verdicts import recomputed


@pytest.fixture(scope="module")
def con():
    with duckdb.connect() as c:
        load_adult(c)
        yield c


@pytest.fixture(scope="module")
def levels(con):
    return level_figures(con)


def test_figure6_means_against_pandas(con, levels):
    """IOTF's level 3 holds [1, 39], [40, 40], [41, 60], [61, 99]: the records' mean of
    4 (hi - lo) / 99, counted by hand."""
    hours = con.execute('SELECT "hours-per-week" AS h FROM adult').df()["h"]
    nodes = [(1, 39), (40, 40), (41, 60), (61, 99)]
    by_hand = sum(((hours >= lo) & (hours <= hi)).sum() * 4 * (hi - lo) / 99 for lo, hi in nodes) / len(hours)
    assert levels["iotf"][2]["mean"] == pytest.approx(by_hand)
    assert [round(r["mean"], 4) for r in levels["iotf"]] == [0.0342, 0.0798, 0.6181, 4.0]
    assert [round(r["mean"], 4) for r in levels["cbgh"]] == [0.4545, 0.9596, 1.7069, 2.2669, 5.0]
    assert [r["mean"] for r in levels["cgh"]] == pytest.approx([0.5, 1, 2, 4])
    assert {b: [r["nodes"] for r in rows] for b, rows in levels.items()} == {
        "iotf": [24, 16, 4, 1], "cgh": [8, 4, 2, 1], "dbgh": [10, 5, 4, 2, 1], "cbgh": [10, 5, 3, 2, 1]}
    assert "    3                   4                   2                   4                   3" in \
        format_figures(levels)


def test_figure_findings(levels):
    found = {f["id"]: f for f in figure_findings(levels)}
    assert {k: f["holds"] for k, f in found.items()} == {
        "5a": HOLDS, "5b": HOLDS, "5c": HOLDS, "6a": HOLDS, "6b": PARTLY, "6c": SCARCELY}
    assert found["5c"]["context"]["nodes over all levels"] == {"iotf": 45, "cgh": 15, "dbgh": 22, "cbgh": 21}
    # IOTF distorts least at levels 1-3; CBGH least at level 4 (2.2669 against DBGH's 2.4747)
    assert found["6b"]["context"]["level 1"] == {"iotf": 0.0342, "cgh": 0.5, "dbgh": 0.4545, "cbgh": 0.4545}
    assert found["6c"]["context"]["level 4"] == {"iotf": 4.0, "cgh": 4.0, "dbgh": 2.4747, "cbgh": 2.2669}
    # each verdict follows from its checks: 6b's two met are levels 4 and 5 (DBGH's 5.0 ties)
    assert {label: c["value"] for label, c in found["6b"]["checks"].items() if c["met"]} == {
        "level 4: CBGH distortion - the least of the others'": -0.2078,
        "level 5: CBGH distortion - the least of the others'": 0.0}
    assert found["5c"]["checks"]["CBGH nodes - the second fewest of the others'"] == {"value": -1, "rule": "<= 0",
                                                                                      "met": True}


@pytest.mark.slow
def test_lattice_findings():
    with duckdb.connect() as c:
        compared = comparison(paper001(c))
    found = {f["id"]: f for f in lattice_findings(compared)}
    assert {k: f["holds"] for k, f in found.items()} == {"7": PARTLY, "V-a": PARTLY, "V-b": NOT, "IV": PARTLY}
    assert found["V-b"]["context"]["k=2"] == {"iotf": 19370047, "cgh": 98469463, "dbgh": 53423895,
                                              "cbgh": 52072685}
    assert found["V-a"]["context"]["k=50"] == {"iotf": 0.4899, "cgh": 0.5, "dbgh": 0.4061, "cbgh": 0.3875}
    assert [c["met"] for c in found["V-a"]["checks"].values()] == [False, False, False, True, True]
    assert found["V-b"]["checks"]["k=2: CBGH DCP - the least of the others'"]["value"] == 52072685 - 19370047
    assert sum(c["met"] for c in found["IV"]["checks"].values()) == 3        # distortion ratio at k = 10, 50, 100
    assert compared["dbgh"]["heights"] == {"age": 9, "education-num": 4, "hours-per-week": 5}


def test_table4_beside_ours():
    with duckdb.connect() as c:
        title, (side,) = worked.run(c, "p001", "table", "4")
    differ = {(side.paper[i][1] or side.paper[i][0], side.columns[j]) for i, row in enumerate(side.cells)
              for j, same in enumerate(row) if not same}
    assert differ == {("Level 1", "IOTF"), ("Level 2", "IOTF"), ("Level 3", "IOTF"),
                      ("Level 1", "DBGH"), ("Level 2", "DBGH"), ("Level 3", "DBGH"), ("Level 4", "DBGH")}
    # IOTF's nodes range from a single value (distortion 0) to the widest cluster
    assert [r[2] for r in side.ours[1:5]] == ["0, 0.525", "0, 0.77", "0, 1.54", "4"]
    assert side.ours[3][5] == "0.96, 1.97" and side.ours[2][4] == "0.96"


@pytest.mark.parametrize("number", ["2", "3"])
def test_figures_2_and_3_are_the_papers(number):
    with duckdb.connect() as c:
        _, (side,) = worked.run(c, "p001", "figure", number)
    assert side.same, side.ours


@pytest.mark.slow
def test_cli_plots_figures_5_and_6(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "p.png"
    res = run_cli("reproduce", "p001", "--db", tmp_path / "e.duckdb", "--plot", png, "--quiet")
    assert res.exit_code == 0, res.output
    assert "Figure 5: nodes at each level" in res.output and "(V-b) DOES NOT HOLD" in res.output
    printed = recomputed(res.output)       # every printed verdict follows from its printed checks
    assert len(printed) == 10 and all(v == again for v, again in printed.values()), printed
    assert png.stat().st_size > 10_000 and (tmp_path / "p_fig5_6.png").stat().st_size > 10_000
