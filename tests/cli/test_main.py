"""``anonymizer`` itself: the task commands its help lists (and only those), every command's
help teaching by example, and a help that loads neither pandas, duckdb nor the engine."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest

from anonymizer.cli import COMMANDS, main

TASKS = ["run", "validate", "check", "report", "history", "rollback", "prune", "hierarchy", "macros", "sql", "bench", "demo", "reproduce",
         "schema", "budget", "dp"]


def commands(group: click.Group = main, path: tuple[str, ...] = ()):
    """Every visible command below ``group``, as its path of names."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command.hidden:
            continue
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def test_help_teaches(invoke):
    out = invoke("--help").output
    for command in ("demo", "run", "check", "bench", "validate"):
        assert command in out
    assert "anonymizer demo" in out


def test_help_lists_the_task_commands_only(invoke):
    out = invoke("--help").output
    listed = re.findall(r"^  (\S+)  ", out.split("Commands:")[1], flags=re.M)
    assert listed == TASKS == list(COMMANDS)
    for old in ("lgb", "ir", "msb", "lattice"):
        assert f"\n  {old} " not in out


@pytest.mark.parametrize("path", list(commands()), ids=" ".join)
def test_every_command_help_has_a_description_and_an_example(invoke, path):
    res = invoke(*path, "--help")
    assert res.exit_code == 0, res.output
    description = res.output.split("\n\n")[1]
    assert len(description.split()) >= 6, description
    assert f"anonymizer {' '.join(path)}" in res.output.split("Options:")[0]


def test_help_loads_no_pandas_and_no_engine():
    """``anonymizer --help`` (the CLI module and the package) imports neither pandas nor the
    engine: the package resolves its public names on first use."""
    probe = ("import sys, anonymizer.cli; print(sorted(m for m in ('pandas', 'anonymizer.engine.session', 'anonymizer.api') "
             "if m in sys.modules)); from anonymizer import anonymize, SpecError; print(anonymize.__module__)")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[:2] == ["[]", "anonymizer.api"]


def test_help_of_every_command_loads_no_duckdb():
    """Listing the commands imports each command's module, none of which imports duckdb,
    pandas, sqlglot or the engine before a command runs."""
    probe = ("import sys; from anonymizer.cli import main\n"
             "try: main(['--help'], prog_name='anonymizer')\n"
             "except SystemExit: pass\n"
             "for group in ('bench', 'hierarchy', 'reproduce', 'macros'): main.get_command(None, group)\n"
             "print(sorted(m for m in ('pandas', 'duckdb', 'sqlglot', 'anonymizer.engine.session') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.splitlines()[-1] == "[]"


def test_python_dash_m_runs_the_command():
    res = subprocess.run([sys.executable, "-m", "anonymizer.cli", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("Usage: anonymizer ")
