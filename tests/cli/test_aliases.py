"""The old spellings (``lgb``, ``ir``, ``msb``, ``lattice``, ``bench --bench X``, ``hierarchy
--column X``) still work, hidden: each reaches the new command with the same parameters,
says the new spelling on stderr, and none is listed by ``anonymizer --help``."""

from __future__ import annotations

import click
import pytest

from anonymizer.cli import main
from anonymizer.cli.aliases import rewrite

DB = "w.duckdb"
#: (old spelling, new spelling), each with tiny parameters
PAIRS = [
    (["lgb", "--flag-adult", "--density", "0.3", "--seed", "2", "--db", DB],
     ["reproduce", "data", "flagged-adult", "--density", "0.3", "--seed", "2", "--db", DB]),
    (["lgb", "--experiment", "000", "--ks", "5", "--ls", "5", "--densities", "0.2", "--queries", "10", "--json"],
     ["reproduce", "p000", "--ks", "5", "--ls", "5", "--densities", "0.2", "--queries", "10", "--json"]),
    (["lattice", "--experiment=001", "--plot", "p.png", "--db", DB], ["reproduce", "p001", "--plot", "p.png", "--db", DB]),
    (["lattice", "spec.yml", "--table-name", "t", "-q"], ["hierarchy", "lattice", "spec.yml", "--table-name", "t", "-q"]),
    (["msb", "--experiment", "002", "--sizes", "1000", "--dims", "2", "--batch", "0.5"],
     ["reproduce", "p002", "--sizes", "1000", "--dims", "2", "--batch", "0.5"]),
    (["ir", "--patients", "50", "--db", DB], ["reproduce", "data", "patients", "--individuals", "50", "--db", DB]),
    (["ir", "--table2", "--db", DB], ["reproduce", "data", "table2", "--db", DB]),
    (["ir", "--experiment", "004", "--individuals", "20", "--ls", "2", "--alphas", "0.5", "--variants", "geneir-kl"],
     ["reproduce", "p004", "--individuals", "20", "--ls", "2", "--alphas", "0.5", "--variants", "geneir-kl"]),
    (["bench", "--rows", "3000", "--k", "5"], ["bench", "mondrian", "--rows", "3000", "--k", "5"]),
    (["bench", "--bench", "full-domain", "--rows", "3000"], ["bench", "full-domain", "--rows", "3000"]),
    (["bench", "--rows", "3000", "--bench", "k-check"], ["bench", "k-check", "--rows", "3000"]),
    (["bench", "--bench", "lattice", "--data", "synthetic", "--rows", "3000"],
     ["bench", "lattice", "--data", "synthetic", "--rows", "3000"]),
    (["bench", "--bench", "msb", "--dims", "2", "--algorithm", "mbf"], ["bench", "msb", "--dims", "2", "--algorithm", "mbf"]),
    (["bench", "--bench", "lgb", "--algorithm", "lgb-ncp", "--k", "3"], ["bench", "lgb", "--algorithm", "lgb-ncp", "--k", "3"]),
    (["bench", "--bench", "ir", "--l", "3", "--model", "ir-kl-anonymity"],
     ["bench", "ir", "--l", "3", "--model", "ir-kl-anonymity"]),
    (["bench", "--bench", "macros", "--qis", "2"], ["bench", "macros", "--qis", "2"]),
    (["bench", "--bench", "release", "--memory-limit", "1GB", "-q"], ["bench", "release", "--memory-limit", "1GB", "-q"]),
    (["hierarchy", "--table", "adult", "--column", "age", "--builder", "masking"],
     ["hierarchy", "show", "--table", "adult", "--column", "age", "--builder", "masking"]),
    (["hierarchy", "spec.yml", "--column", "age", "--export", "a.csv", "--json"],
     ["hierarchy", "export", "spec.yml", "--column", "age", "--json", "--output", "a.csv"]),
]


def leaves(group: click.Group = main):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from leaves(command)
        else:
            yield command


@pytest.fixture
def reached(monkeypatch):
    """Every command's function replaced by one that records (command, parameters)."""
    calls = []
    for command in set(leaves()):
        monkeypatch.setattr(command, "callback", lambda _c=command, **params: calls.append((_c, params)))
    return calls


@pytest.mark.parametrize("old, new", PAIRS, ids=[" ".join(old[:3]) for old, _ in PAIRS])
def test_an_old_spelling_reaches_the_new_command(invoke, reached, old, new):
    assert rewrite(old) == new
    was, now = invoke(*old), invoke(*new)
    assert (was.exit_code, now.exit_code) == (0, 0), was.output + now.output
    assert len(reached) == 2 and reached[0] == reached[1]
    assert f"is now `anonymizer {' '.join(new)}`" in was.stderr and not was.stdout


@pytest.mark.parametrize("old, message", [
    (["lgb"], "give exactly one of --flag-adult and --experiment 000"),
    (["lgb", "--flag-adult", "--experiment", "000"], "give exactly one of"),
    (["ir", "--db", DB], "give exactly one of --patients and --table2 and --experiment 004"),
    (["msb", "--sizes", "1000"], "give exactly one of --experiment 002"),
    (["msb", "--experiment", "003"], "--experiment: must be 002"),
    (["lattice"], "Missing argument 'SPEC'"),
    (["bench", "--bench", "nothing"], "No such command 'nothing'"),
    (["bench", "--bench"], "'--bench' requires an argument"),
])
def test_an_old_spelling_naming_no_command_exits_2(invoke, reached, old, message):
    res = invoke(*old)
    assert res.exit_code == 2 and message in res.output, res.output
    assert not reached


def test_an_old_spelling_with_help_shows_the_new_help(invoke):
    msb = invoke("msb", "--help")
    assert msb.exit_code == 0 and "Usage: anonymizer reproduce p002" in msb.output and "section 5" in msb.output
    assert "--plots" in msb.output
    lgb = invoke("lgb", "--help")
    assert lgb.exit_code == 0 and "Usage: anonymizer reproduce [OPTIONS] COMMAND" in lgb.output
    ir = invoke("ir", "--experiment", "004", "--help")
    assert ir.exit_code == 0 and "Usage: anonymizer reproduce p004" in ir.output


def test_old_spellings_are_not_listed(invoke):
    commands = invoke("--help").output.split("Commands:")[1]
    for old in ("lgb", "ir", "msb", "lattice"):
        assert f"  {old} " not in commands
    assert "--bench" not in invoke("bench", "--help").output
    assert "--export" not in invoke("hierarchy", "--help").output


def test_new_spellings_and_unknown_ones_are_left_alone():
    assert rewrite(["bench", "mondrian", "--rows", "5"]) is None
    assert rewrite(["reproduce", "p000"]) is None
    assert rewrite(["--version"]) is None and rewrite(["rnu"]) is None and rewrite([]) is None
