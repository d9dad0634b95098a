"""``anonymizer reproduce p003``: Table 2's grid timed with partial-domain
de-generalization, the eta finding's numbers, and Table 1 (pre-sampling) beside the
paper's (``reproduce p003 --table 1``)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.cli import main
from anonymizer.reproduce.findings import NOT
from anonymizer.reproduce.p003_privacyfrost2 import examples
from anonymizer.reproduce.p003_privacyfrost2.findings import findings, format_p003
from anonymizer.reproduce.p003_privacyfrost2.grid import QIS, grid_spec, run_lattice_bench
from anonymizer.reproduce.p003_privacyfrost2.presampling import TABLE1
from tests.families.generalized.test_privacyfrost2_paper import isolated_by_hand

ARX = [q for q in QIS]                       # ARX's column names are the hierarchy names


@pytest.fixture(scope="module")
def flat_cell():
    """The k = 10, l = 10 cell of Table 2: basic, eta and eta with tie_break, partial step on."""
    return list(run_lattice_bench(None, grid=[(10, "l", 10)], scorings=("basic", "eta", "eta+ties"), repeat=1,
                                  optimal=False))


def test_the_grid_times_the_partial_step_and_scores_before_and_after(arx_adult):
    (run,) = run_lattice_bench(None, grid=[(2, "l", 2)], scorings=("basic",), repeat=1, optimal=False)
    assert run["partial"] and 0 < run["partial_seconds"] < run["seconds"]
    assert (run["full_domain_score"], run["score"]) == (172, 883)
    # the score after the partial step, recounted from the published labels: sum v_i * e_i
    r = anonymize(grid_spec(ARX, 2, "l", 2, "privacyfrost2", "basic"), arx_adult)
    df = arx_adult.execute(f"SELECT * FROM {r.view}").df()
    v = {"age": 10, "education": 5, "sex": 2}
    assert sum(v.get(q, 1) * df[q].nunique() for q in ARX) == run["score"] == r.algorithm["score"]
    (alone,) = run_lattice_bench(None, grid=[(2, "l", 2)], scorings=("basic",), repeat=1, optimal=False, partial=False)
    assert not alone["partial"] and alone["score"] == alone["full_domain_score"] == 172


def test_eta_finding_pins_the_flat_step(flat_cell):
    by = {r["scoring"]: r for r in flat_cell}
    assert by["eta"]["all_star"] and not by["basic"]["all_star"]
    assert by["eta+ties"]["levels"] == by["basic"]["levels"] == [1, 1, 1, 2, 3, 2, 2, 1]
    (eta,) = [f for f in findings(flat_cell) if f["id"] == "6.2-eta"]
    assert eta["holds"] == NOT
    cell = eta["evidence"]["n=30162 k=10 l=10"]
    assert cell["forced"] is False and cell["eta+ties_levels"] == by["basic"]["levels"]
    # after the partial step, eta's all-* start ends finer than basic's node does
    assert cell["final_loss"] == {"basic": 0.6114, "eta": 0.4352, "eta+ties": 0.6114}
    text = format_p003(flat_cell)
    assert "(6.2-eta) DOES NOT HOLD" in text and "tie_break: basic" in text


def test_table1_beside_the_papers(arx_adult, monkeypatch):
    by_hand = [isolated_by_hand(arx_adult, 2, k)[0] for k in (1, 2, 5, 10)]     # pandas, before adult is replaced
    monkeypatch.setattr(examples, "REPEAT", 1)
    (side,) = examples.table1(arx_adult)
    assert side.paper[0] == ("Adult", "32561", "1", "", "1289 ms", "1")
    assert side.paper[7] == ("Census-income", "199523", "10", "", "4464 ms", "1.01")
    assert [r[2] for r in side.ours] == [str(k) for *_, k, _ in TABLE1]      # the same k' rows
    assert all(row[2] for row in side.cells) and not side.same               # only k' is the paper's
    adult = side.ours[:4]
    assert {r[1] for r in adult} == {"30162"} and {r[1] for r in side.ours[4:]} == {"199523"}
    assert [int(r[3]) for r in adult] == by_hand == [0, 2583, 5080, 7168]
    assert [int(r[3]) for r in side.ours[4:]] == [0, 9266, 20086, 30417]    # the seeded synthetic table
    assert all(r[4].endswith(" ms") for r in side.ours) and adult[0][5] == "1"


def test_reproduce_examples_lists_table1():
    res = CliRunner().invoke(main, ["reproduce", "examples"], prog_name="anonymizer")
    assert res.exit_code == 0 and "p003\n  --table 1" in res.output
