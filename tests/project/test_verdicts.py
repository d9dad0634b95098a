"""Every verdict ``anonymizer reproduce p000 ... p004`` prints follows from the numbers it
prints: each paper's findings are run (small settings), the printed text is read back, each
check's number is compared with its printed bound here (not by the product's code), and the
verdict is recomputed from the checks: all met *holds*, none *does not hold*, some *partly*,
no check *n/a* (issue 40)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from anonymizer.cli import main

HEAD = re.compile(r"^\((?P<id>[^)]+)\) (?P<verdict>HOLDS|PARTLY|DOES NOT HOLD|N/A)\s")
CHECK = re.compile(r"^    (?P<met>met|missed)\s+(?P<label>.+): (?P<value>\S+)  \(claim: (?P<rule>.+)\)$")
COUNT = re.compile(r"^    (?P<met>\d+) of (?P<of>\d+) checks met$")


def bound_holds(value: float, rule: str) -> bool:
    """The printed rule read independently of :func:`anonymizer.reproduce.findings.meets`."""
    if rule.startswith("in ["):
        lo, hi = (float(x) for x in rule[4:-1].split(", "))
        return lo <= value <= hi
    op, bound = rule.split(" ")
    b = float(bound)
    return {">=": value >= b, ">": value > b, "<=": value <= b, "<": value < b, "==": value == b}[op]


def recomputed(text: str) -> dict[str, tuple[str, str]]:
    """Each finding of a printed block: (printed verdict, verdict recomputed from its printed
    checks). A check whose printed outcome disagrees with its printed number fails here."""
    out: dict[str, tuple[str, str]] = {}
    current, met = None, []
    lines = text.split("\n")
    for line in lines + [""]:
        head, row, count = HEAD.match(line), CHECK.match(line), COUNT.match(line)
        if head:
            current, met = head, []
        elif row and current:
            value = float(row["value"])
            assert bound_holds(value, row["rule"]) == (row["met"] == "met"), line
            met.append(row["met"] == "met")
        elif current and (count or line.startswith("    no check")):
            if count:
                assert (int(count["met"]), int(count["of"])) == (sum(met), len(met)), line
            verdict = "N/A" if not met else "HOLDS" if all(met) else "DOES NOT HOLD" if not any(met) else "PARTLY"
            out[current["id"]] = (current["verdict"], verdict)
            current = None
    return out


def test_the_reader_catches_a_verdict_or_an_outcome_that_does_not_follow():
    good = ("(x) PARTLY        claim\n    rule: r\n    met     a: 1.5  (claim: in [1, 2])\n"
            "    missed  b: -0.5  (claim: > 0)\n    1 of 2 checks met")
    assert recomputed(good) == {"x": ("PARTLY", "PARTLY")}
    assert recomputed(good.replace("(x) PARTLY", "(x) HOLDS")) == {"x": ("HOLDS", "PARTLY")}
    with pytest.raises(AssertionError):
        recomputed(good.replace("missed  b: -0.5", "met     b: -0.5"))
    none = "(y) N/A           claim\n    rule: r\n    no check: the rows lack what it needs"
    assert recomputed(none) == {"y": ("N/A", "N/A")}


RUNS = {
    "p000": ["--ks", "5,10", "--ls", "5,10", "--densities", "0.2,0.4", "--queries", "50", "--quiet"],
    "p001": ["--db", "{tmp}/p001.duckdb", "--quiet"],
    "p002": ["--sizes", "1000,2000,3000,4000", "--dims", "2,3,4", "--quiet"],
    "p003": ["--data", "synthetic", "--rows", "2000", "--repeat", "1"],
    "p004": ["--individuals", "100", "--ls", "2,4", "--qis", "3,4", "--alphas", "0.5,0.6", "--betas", "0.4,0.5",
             "--queries", "20", "--quiet"],
}


@pytest.mark.slow
@pytest.mark.parametrize("paper", sorted(RUNS))
def test_printed_verdicts_follow_from_printed_numbers(paper, tmp_path):
    args = [a.format(tmp=tmp_path) for a in RUNS[paper]]
    res = CliRunner().invoke(main, ["reproduce", paper, *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    found = recomputed(res.output)
    assert found and all(printed == again for printed, again in found.values()), found
    assert any(v != "N/A" for v, _ in found.values())
