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


def test_the_docs_commands_run_as_written(tmp_path):
    """Each ``bash`` block's commands, in a fresh folder: the install is the README's own (CI
    runs it on a clean checkout), a benchmark is parsed (its sizes are for a command); the rest
    run here, and leave only their database behind."""
    readme_install = "python -m pip install -e ."
    ran = 0
    for page in sorted(DOCS.rglob("*.md")):
        if page.relative_to(DOCS).as_posix() in GENERATED:
            continue
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                for command in (c.strip() for c in line.split("#")[0].split("&&") if c.strip()):
                    if command == readme_install:
                        assert command in (ROOT / "README.md").read_text(encoding="utf-8")
                        continue
                    assert command.startswith("anonymizer "), command
                    args = shlex.split(command)[1:]
                    if args[0] == "bench":   # a benchmark's sizes are for a command, not a test: parsed only
                        parsed(args)
                        continue
                    res = subprocess.run([sys.executable, "-m", "anonymizer.cli", *args], cwd=tmp_path,
                                         capture_output=True, text=True, timeout=600)
                    assert res.returncode == 0, (command, res.stderr[-2000:])
                    ran += 1
    assert ran >= 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anonymizer.duckdb"]
