"""The documentation site (issue 56): every page the navigation names exists (or is generated
by the build's hook), every figure the summary prints is in the glossary, every command of
the docs parses as the command line reads it (tests/project/test_docs_walk.py runs them), and
the reference pages are generated from the code. CI's docs job builds the site with
warnings as errors (``mkdocs build --strict``)."""

from __future__ import annotations

import json
import re
import shlex
import sys
import textwrap
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


def parsed(args: list[str]) -> None:
    """``anonymizer ARGS`` as the command line reads it (every option and value valid), not run."""
    command, ctx = main, click.Context(main, info_name="anonymizer")
    while isinstance(command, click.Group):
        name, *args = args
        command = command.get_command(ctx, name)
        assert command is not None, name
        ctx = click.Context(command, info_name=name, parent=ctx)
    command.parse_args(ctx, list(args))


def blocks(page: Path) -> list[tuple[str, str]]:
    """A page's fenced blocks in order, as (language, text), indented ones dedented."""
    text = page.read_text(encoding="utf-8")
    return [(kind, textwrap.dedent(body)) for kind, body in
            re.findall(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", text, re.S | re.M)]


def shell_lines(block: str) -> list[list[list[str]]]:
    """A ``bash`` block's lines, each its commands as argument lists: a line continued by
    ``\\`` joined, comments dropped, ``a && b`` two commands."""
    lines = []
    for line in block.replace("\\\n", " ").splitlines():
        found: list[list[str]] = []
        command: list[str] = []
        for word in shlex.split(line, comments=True) + ["&&"]:
            if word != "&&":
                command.append(word)
            elif command:
                found.append(command)
                command = []
        if found:
            lines.append(found)
    return lines



def install_targets(words: list[str]) -> list[str]:
    """What ``pip install WORDS`` installs: its words but options and their values."""
    targets, skip = [], False
    for word in words:
        if not skip and not word.startswith("-"):
            targets.append(word)
        skip = word in ("-c", "-r", "--constraint", "--requirement")
    return targets


def test_every_command_of_the_docs_parses():
    """The fast tier's check of what tests/project/test_docs_walk.py runs: every ``anonymizer``
    command of every page is one the command line accepts as written (options, values,
    subcommands), an install is of this package (the README's own, or an extra the package
    declares), and any other program is Python or one the walk names as run elsewhere."""
    from tests.project.test_docs_walk import elsewhere, pages
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    locked = {line.split("==")[0] for line in (ROOT / ".ci" / "locked.txt").read_text().splitlines() if "==" in line}
    count = 0
    for page in pages():
        for kind, body in blocks(page):
            for line in shell_lines(body) if kind == "bash" else []:
                run_elsewhere = any(elsewhere(args) for args in line)   # e.g. cd examples/dbt && dbt build
                for args in line:
                    if args[:4] == ["python", "-m", "pip", "install"]:
                        for target in install_targets(args[4:]):
                            extra = re.fullmatch(r"\.\[(\w+)\]", target)
                            assert target == "." or (extra and extra.group(1) in extras) or target in locked, args
                    elif args[0] == "anonymizer":
                        parsed(args[1:])
                        count += 1
                    elif args[0] == "spark-submit":
                        parsed(args[args.index(next(a for a in args if a.endswith("__main__.py"))) + 1:])
                    else:
                        assert args[0] == "python" or run_elsewhere, (page.name, args)
    assert count >= 40


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


def test_the_benchmark_tables_are_made_from_what_bench_printed():
    """Every table marker of the benchmarks page names a file of ``anonymizer bench`` JSON
    lines, fields its runs have, and becomes a table of numbers (docs/hooks/benchmarks.py)."""
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import benchmarks
    finally:
        sys.path.pop(0)
    markers = benchmarks.MARKER.findall((DOCS / "benchmarks.md").read_text(encoding="utf-8"))
    assert len(markers) >= 3
    for name, by, shown in markers:
        runs = [json.loads(line) for line in (benchmarks.RESULTS / f"{name}.jsonl").read_text().splitlines()]
        assert runs and all(run.get("bench") == name.split(".")[0] for run in runs), name
        for field in by.split(",") + [f.strip().partition(":")[0] for f in shown.split(",")]:
            assert any(benchmarks.field(run, field) is not None for run in runs), (name, field)
        rendered = benchmarks.table(name, by.split(","), [f.strip() for f in shown.split(",")])
        assert len(rendered.splitlines()) >= 3 and "| runs |" in rendered.splitlines()[0], rendered
