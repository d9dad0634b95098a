"""The documentation site (issue 56): every page the navigation names exists (or is generated
by the build's hook), every figure the summary prints is in the glossary, every command of
the docs runs as written in a fresh folder and leaves no file behind but its database, and
the reference pages are generated from the code. CI's docs job builds the site with
warnings as errors (``mkdocs build --strict``)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from anonymizer.cli import main
from anonymizer.cli.summary import format_release
from anonymizer.release.candidate import ReleaseResult

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: the pages docs/hooks/reference.py writes when the site is built
GENERATED = {"reference/cli.md", "reference/spec.md", "reference/macros.md", "changelog.md"}


def nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [p for v in node.values() for p in nav_pages(v)]
    return [p for v in node for p in nav_pages(v)]


def test_every_page_of_the_navigation_is_written_or_generated():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = nav_pages(config["nav"])
    assert set(pages) >= GENERATED
    for page in set(pages) - GENERATED:
        assert (DOCS / page).is_file(), page


def test_the_reference_is_generated_from_the_code():
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import reference
    finally:
        sys.path.pop(0)
    cli, spec, macros = reference.cli_page(), reference.spec_page(), reference.macros_page()
    assert "## `anonymizer run`" in cli and "--dry-run" in cli and "## `anonymizer bench history`" in cli
    assert "| `history.key_map` |" in spec and "| `columns.<name>.role` |" in spec
    assert "anon_k(tbl, qis)" in macros


def test_every_figure_the_summary_prints_is_in_the_glossary():
    result = ReleaseResult("r", 1, "published.r", "s.r__v1", False, 100, 90, 10, 9,
                           [{"model": "5-anonymity", "holds": True, "figure": 5}],
                           {"k": 5, "sensitive": {"disease": {"distinct_l": 2, "entropy_l": 1.9, "recursive_l": 1,
                                                              "t": 0.3}}},
                           timings={"total": 1.0}, algorithm={"name": "mondrian"})
    printed = format_release(result)
    glossary = (DOCS / "glossary.md").read_text(encoding="utf-8")
    for label in ("achieved k", "distinct l", "entropy l", "recursive l (c=2)"):
        assert label in printed and label in glossary, label
    assert "t 0.3 (against the input)" in printed and "t (against the input)" in glossary
    for label in ("NCP per cell", "NCP(T)", "loss (ARX)", "discernibility C_DM", "C_AVG", "classes with one value",
                  "counterfeits", "rows in, out, suppressed"):
        assert label in glossary, label


@pytest.mark.slow
def parsed(args: list[str]) -> None:
    """``anonymizer ARGS`` as the command line reads it (every option and value valid), not run."""
    command, ctx = main, click.Context(main, info_name="anonymizer")
    while isinstance(command, click.Group):
        name, *args = args
        command = command.get_command(ctx, name)
        assert command is not None, name
        ctx = click.Context(command, info_name=name, parent=ctx)
    command.parse_args(ctx, list(args))


#: the pages whose commands run here, in order, in a fresh folder (the others' commands need a
#: checkout's examples, a Spark cluster or sizes for a benchmark: parsed, and run by the tests of
#: what they do, e.g. tests/project/test_readme_walkthrough.py for the lattice commands)
RUN = {"index.md"}
#: the other programs the guides run, and the tests that run those commands
ELSEWHERE = {"cd": "tests/dbt/test_dbt_project.py", "dbt": "tests/dbt/test_dbt_project.py",
             "python": "tests/project/test_readme_walkthrough.py"}


def commands(page: Path) -> list[list[str]]:
    """The commands of a page's ``bash`` blocks as argument lists: a line continued by ``\\``
    joined, comments dropped, ``a && b`` two commands."""
    found: list[list[str]] = []
    for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            command: list[str] = []
            for word in shlex.split(line, comments=True) + ["&&"]:
                if word != "&&":
                    command.append(word)
                elif command:
                    found.append(command)
                    command = []
    return found


def test_the_docs_commands_run_as_written(tmp_path):
    """Each ``bash`` block's commands: an install is of this package (the README's own, or an
    extra the package declares), a spark-submit line's command is parsed as the command line
    reads it, and so is every command of a page outside :data:`RUN`; those of RUN's pages run
    here, in a fresh folder, and leave only their database behind."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    ran = 0
    for page in sorted(DOCS.rglob("*.md")):
        name = page.relative_to(DOCS).as_posix()
        if name in GENERATED:
            continue
        for args in commands(page):
            command = " ".join(args)
            if args[:4] == ["python", "-m", "pip", "install"]:
                target = args[-1]
                assert target == "." or re.fullmatch(r"\.\[(\w+)\]", target).group(1) in extras, command
                continue
            if args[0] in ELSEWHERE:   # another program's command, run by the test named
                assert (ROOT / ELSEWHERE[args[0]]).is_file(), (command, ELSEWHERE[args[0]])
                continue
            if args[0] == "spark-submit":
                parsed(args[args.index(next(a for a in args if a.endswith("__main__.py"))) + 1:])
                continue
            assert args[0] == "anonymizer", (name, command)
            if name not in RUN:
                parsed(args[1:])
                continue
            res = subprocess.run([sys.executable, "-m", "anonymizer.cli", *args[1:]], cwd=tmp_path,
                                 capture_output=True, text=True, timeout=600)
            assert res.returncode == 0, (command, res.stderr[-2000:])
            ran += 1
    assert ran >= 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anonymizer.duckdb"]


def test_the_command_table_examples_parse():
    """Every example of the commands-at-a-glance table is a command line the CLI accepts as
    written (options, values, subcommands), and they name the releases those examples publish."""
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    examples = [re.findall(r"`(anonymizer [^`]*)`", line)[-1] for line in text.splitlines()
                if line.startswith("| `anonymizer")]   # a row's last cell: its example
    assert len(examples) >= 15
    for example in examples:
        parsed(shlex.split(example)[1:])
    # after `anonymizer run examples/adult_mondrian.yml`, its view is published.adult_k5
    assert "published.adult_k5" in text and "--table published.adult " not in text
