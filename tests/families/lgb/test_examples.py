"""Paper 000's worked example beside ours (``anonymizer reproduce p000 --figure N``,
anonymizer.reproduce.p000_lgb.examples): Figs. 1 and 3(a) are the paper's; Fig. 3(b) differs in
one cell (the paper's own inconsistency), Figs. 2 and 4 in exactly the bucketized cells of age
and disease (Algorithm 2's median split, explained in the note)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from anonymizer.cli import main
from anonymizer.reproduce.p000_lgb.examples import EXAMPLES, _mask, _paper_buckets, FIG2


def sides(con, number: str):
    return EXAMPLES[("figure", number)][1](con)


def differing(side) -> list[tuple[str, str, str]]:
    """(ID, column, ours) of every cell where ours differs from the paper."""
    return [(side.ours[i][0], side.columns[j], side.ours[i][j])
            for i, row in enumerate(side.cells) for j, same in enumerate(row) if not same]


def test_figure1_is_the_papers(con):
    table, mark = sides(con, "1")
    assert table.same and mark.same and mark.ours == [("Mark", "{1004}", "{24}", "{Pneumonia}")]


def test_figure3_partitions(con):
    first, second = sides(con, "3")
    assert first.same                                          # the QI partition: subsets 1, 2, 3
    assert differing(second) == [("1008", "Zip Code(Flag)", "213**(No)")]   # the paper prints 21340
    assert "1008's zip code ungeneralized" in second.note


def test_figure2_and_4_differ_only_in_age_and_disease_buckets(con):
    table, mark = sides(con, "2")
    wrong = differing(table)
    assert {c for _, c, _ in wrong} == {"Age(BID)", "Disease(BID)"}
    # Algorithm 2: age splits at 29 into {24, 29} and {31, 34} (the paper: {24, 31}, {29, 34})
    assert {(i, v) for i, c, v in wrong if c == "Age(BID)"} == {
        ("1004", "{24, 29}(1)"), ("1007", "{24, 29}(1)"), ("1005", "{31, 34}(2)"), ("1008", "{31, 34}(2)")}
    disease = {v for _, c, v in wrong if c == "Disease(BID)"}
    halves = [{"Bronchitis", "Dyspepsia", "Flu"}, {"Gastritis", "Hepatitis", "Pneumonia"}]
    assert len(disease) == 4 and all(any(set(v[1:v.index("}")].split(", ")) <= h for h in halves) for v in disease)
    assert "split at 29 into {24, 29} and {31, 34}" in table.note
    assert mark.ours[0][:3] == ("Mark", "{1004, 1008}", "{24, 29, 31, 34}")   # the paper's records and ages
    (table4,) = sides(con, "4")
    assert [(i, c) for i, c, _ in differing(table4)] == [(i, c) for i, c, _ in wrong]   # Fig. 4's buckets = Fig. 2's


def test_paper_side_helpers():
    assert (_mask(21352, 21358), _mask(21336, 21340), _mask(21328, 21328)) == ("2135*", "213**", "21328")
    rows = _paper_buckets(FIG2)
    assert rows[3] == (1004, 3, "{24, 31}(1)", "Male(-)", "213**(-)", "{Dyspepsia, Pneumonia}(2)")


@pytest.mark.parametrize("number", ["1", "2", "3", "4"])
def test_cli(number):
    res = CliRunner().invoke(main, ["reproduce", "p000", "--figure", number, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["figure"] == number and got["same"] == (number == "1")
