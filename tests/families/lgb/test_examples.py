"""Paper 000's worked example beside ours (``anonymizer reproduce p000 --figure N``,
anonymizer.reproduce.p000_lgb.examples): Figs. 1 and 3(a) are the paper's; Fig. 3(b) differs in
one cell (the paper's own inconsistency), Figs. 2 and 4 in exactly the bucketized cells of age
and disease (Algorithm 2's median split, explained in the note)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from anonymizer.cli import main
from anonymizer.reproduce.p000_lgb.examples import BUCKETS_NOTE, EXAMPLES, FIG2, FIG4, _mask, _paper_buckets
from anonymizer.reproduce.p000_lgb.worked_example import FIG1


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


def _by_hand(values: list, l: int = 2) -> list[list]:
    """Algorithm 2 by hand, apart from the product: split at the upper median (s <= median
    small) while both halves are l-eligible; a leaf dealt by m-invariance's assignment, one
    value from each of the l with the most records left, ties in order of first appearance."""
    if len(set(values)) > 1:
        ordered = sorted(values)
        median = ordered[len(ordered) // 2]
        halves = [v for v in values if v <= median], [v for v in values if v > median]
        if all(h and max(h.count(v) for v in h) * l <= len(h) for h in halves):
            return _by_hand(halves[0], l) + _by_hand(halves[1], l)
    left, buckets = {v: values.count(v) for v in values}, []   # dict order: first appearance
    for _ in range(len(values) // l):
        top = sorted((v for v in left if left[v]), key=lambda v: -left[v])[:l]   # stable: ties by appearance
        buckets.append(sorted(top))
        for v in top:
            left[v] -= 1
    return buckets


def test_the_upper_median_and_largest_first_deal_fig4_as_the_note_says():
    """The note's account of Fig. 4, by hand: with the upper median nothing splits, and the
    largest-first assignment gives the paper's buckets exactly (read off Fig. 4's BIDs)."""
    paper: dict[int, dict[str, list]] = {}
    for row in FIG4:
        for j, cell in enumerate(row[1:]):
            value, bid = cell[:-1].rsplit("(", 1)
            if bid != "-":
                paper.setdefault(j, {}).setdefault(bid, []).append(int(value) if value.isdigit() else value)
    sensitive = {0: [r[1] for r in FIG1 if r[2]], 2: [r[5] for r in FIG1 if r[6]], 3: [r[7] for r in FIG1 if r[8]]}
    for j, values in sensitive.items():
        assert sorted(_by_hand(values)) == sorted(sorted(b) for b in paper[j].values()), j
    assert "deals exactly the paper's buckets" in BUCKETS_NOTE


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
