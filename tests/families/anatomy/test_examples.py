"""Paper 002's worked examples from the CLI (anonymizer.reproduce.p002_msb.examples): Table 1's
security levels, section 3's three groups under l = 3, and Figure 1's quoted cells, each
against the paper's figures as printed."""

from __future__ import annotations

import json

import duckdb

from anonymizer.reproduce.p002_msb.examples import PAPER_FIGURE1, PAPER_TABLE1, figure1, table1
from tests.cli.conftest import run_cli as invoke


def test_table1_levels_and_groups_as_the_paper_says():
    levels, groups = table1(duckdb.connect())
    assert levels.same and levels.ours[2] == ("t3", "Mary", "Cancer", "1", "2") == PAPER_TABLE1[2][:3] + ("1", "2")
    assert groups.same and groups.ours == [("mbf", "3", "0"), ("msdcf", "3", "0"), ("mmdcf", "3", "0")]
    # the MSLF variants' 4 groups are tests/families/anatomy/conftest.py's TABLE1_GROUPS, worked by hand
    assert "mbf-mslf 4 groups, msdcf-mslf 4 groups, mmdcf-mslf 4 groups" in groups.note


def test_figure1_quoted_cells():
    (side,) = figure1(duckdb.connect())
    assert side.same and side.ours == [tuple(str(v) for v in r) for r in PAPER_FIGURE1]
    assert side.ours[2] == ("Capa(Gastritis)", "1 + 0 + 1 + 0 + 0", "2")


def test_reproduce_p002_from_the_cli():
    res = invoke("reproduce", "p002", "--table", "1")
    assert res.exit_code == 0, res.output
    assert "t8      Sam        HIV          1                 2                 =" in res.output
    assert res.output.count("same as the paper") == 2 and "≠" not in res.output
    got = json.loads(invoke("reproduce", "p002", "--figure", "1", "--json").output)
    assert got["same"] and got["tables"][0]["ours"][1] == ["Capa(Anne)", "0 + 0 + 1 + 0 + 0", "1"]
    res = invoke("reproduce", "examples")
    assert "p002\n  --figure 1" in res.output and "--table 1" in res.output
