"""A newcomer's walk of the README and the documentation site (issue 56), literally: a copy of
the checkout's tracked files, every page in the order the README and the site's navigation
give them, every block of a page in order, each command run as a shell runs it. At the end
``git status`` in the copy is clean: no tracked file changed, and everything the commands wrote
is ignored. Commands that are not run here are named in :data:`NOT_HERE` with the test that
runs them (a benchmark's sizes, a paper's whole experiment, dbt, Spark) and are still parsed
as the command line reads them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from anonymizer.spec.parse import load_spec
from anonymizer.spec.schema import spec_schema
from tests.project.test_docs import GENERATED, ROOT, blocks, nav_pages, parsed, shell_lines

pytestmark = pytest.mark.slow   # about two minutes: the fast tier parses the commands instead (test_docs.py)

#: commands a reader meets that run elsewhere, by their first words: (the test that runs them, why not here)
NOT_HERE = {
    ("python", "-m", "pytest"): ("this suite", "it is the suite"),
    ("cd",): ("tests/dbt/test_dbt_project.py", "dbt deps and dbt build, a minute of dbt"),
    ("anonymizer", "demo", "--engine"): ("tests/engine/test_spark_docs.py", "Spark"),
    ("anonymizer", "check", "--engine"): ("tests/engine/test_spark_docs.py", "Spark"),
    ("anonymizer", "report", "adult_demo", "--engine"): ("tests/engine/test_spark_docs.py", "Spark"),
    ("anonymizer", "history", "adult_demo", "--engine"): ("tests/engine/test_spark_docs.py", "Spark"),
    ("spark-submit",): ("tests/engine/test_spark_submit.py", "a cluster's spark-submit"),
    ("anonymizer", "bench"): ("tests/bench/", "a benchmark's sizes (millions of rows)"),
    ("anonymizer", "dp", "mean", "adult_like"): ("tests/dp/test_queries.py", "the bench's 10M-row table"),
    ("anonymizer", "reproduce", "p000"): ("tests/families/lgb/", "a paper's whole experiment (minutes)"),
    ("anonymizer", "reproduce", "p001"): ("tests/families/generalized/", "a paper's whole experiment (minutes)"),
    ("anonymizer", "reproduce", "p002"): ("tests/families/anatomy/", "a paper's whole experiment (minutes)"),
    ("anonymizer", "reproduce", "p003"): ("tests/families/generalized/", "a paper's whole experiment (minutes)"),
    ("anonymizer", "reproduce", "p004"): ("tests/families/identity_reserved/", "a paper's whole experiment (minutes)"),
}


def pages() -> list[Path]:
    """The README, then the site's pages in the navigation's order (generated ones left out)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return [ROOT / "README.md"] + [ROOT / "docs" / p for p in nav_pages(config["nav"]) if p not in GENERATED]


def elsewhere(args: list[str]) -> tuple[str, str] | None:
    return next((where for words, where in NOT_HERE.items() if tuple(args[:len(words)]) == words), None)


def checkout(to: Path) -> Path:
    """The checkout's tracked files copied to ``to``, committed there, with its .gitignore."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        if (ROOT / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, to / name)
    git = ["git", "-c", "user.name=walk", "-c", "user.email=walk@example.org"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the checkout"]):
        subprocess.run(git + command, cwd=to, check=True, capture_output=True)
    return to


def run(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """One command as a shell runs it, with this interpreter's installation."""
    program = {"anonymizer": [sys.executable, "-m", "anonymizer.cli"], "python": [sys.executable]}[args[0]]
    return subprocess.run(program + args[1:], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=900)


def check_yaml(body: str, examples: Path) -> None:
    """A YAML block parses; a whole spec validates (its paths from examples/, where specs
    live); a spec's fragment names spec fields only (the JSON Schema's), a dbt file dbt's."""
    data = yaml.safe_load(body)
    assert isinstance(data, dict), body
    if "release" in data and "source" in data:
        load_spec(data, base_dir=examples)
    elif "packages" not in data and not any(isinstance(m, dict) and "name" in m for m in data.get("models") or []):
        fields = spec_schema()["properties"]
        assert set(data) <= set(fields), (set(data) - set(fields), body)
        for name, column in data.get("columns", {}).items():
            assert isinstance(column, (dict, str)), (name, body)


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """The walk, in a copy of the checkout: what each command printed, by its line."""
    if shutil.which("git") is None:
        pytest.skip("no git: the walk checks the copy's git status")
    root = checkout(tmp_path_factory.mktemp("clone"))
    printed: dict[str, str] = {}
    for page in pages():
        page_blocks = blocks(page)
        sql = iter(body for kind, body in page_blocks if kind == "sql")
        for kind, body in page_blocks:
            where = f"{page.relative_to(ROOT)}: "
            if kind == "bash":
                for line in shell_lines(body):
                    others = [other for args in line if (other := elsewhere(args)) is not None]
                    if others:   # the whole line (cd x && dbt ...; pip install ... && python -m pytest)
                        assert all(o[0] == "this suite" or (ROOT / o[0]).exists() for o in others), (line, others)
                        for args in line:
                            if args[0] == "anonymizer":
                                parsed(args[1:])
                        continue
                    for args in line:
                        command = shlex.join(args)
                        if args[:4] == ["python", "-m", "pip", "install"]:
                            continue   # this package, installed (test_docs.py checks what each installs)
                        prompt = args[:2] == ["anonymizer", "sql"] and not {"-c", "-f"} & set(args)
                        res = run(args, root, stdin=next(sql) if prompt else None)
                        assert res.returncode == 0, where + command + "\n" + res.stderr[-3000:]
                        printed[command] = res.stdout
            elif kind == "python":
                res = subprocess.run([sys.executable, "-c", body], cwd=root, capture_output=True, text=True, timeout=900)
                assert res.returncode == 0, where + body + "\n" + res.stderr[-3000:]
                printed[body] = res.stdout
            elif kind == "yaml":
                check_yaml(body, root / "examples")
            elif kind == "json":
                json.loads(body)
            # text and unnamed blocks are what a command prints, shown, not run
    return root, printed


def test_every_block_runs_and_git_status_stays_clean(walked):
    root, printed = walked
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                            capture_output=True, text=True, check=True)
    assert status.stdout == "", "the guides' commands changed or left files in the checkout:\n" + status.stdout
    assert len(printed) >= 30


def test_what_the_walk_published(walked):
    """The walk's outputs are what the pages say they are."""
    root, printed = walked
    with duckdb.connect(str(root / "anonymizer.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM published.adult").fetchone()[0] > 30000
        assert con.execute("SELECT count(*) FROM _anon_lattice.ages_v2").fetchone()[0] > 1   # the lattice's --table-name
    with duckdb.connect(str(root / "examples" / "release.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM published.adult").fetchone()[0] > 30000   # "Where a release goes"
    assert (root / "examples" / "out" / "adult.parquet").exists() and (root / "adult.csv").exists()
    assert (root / "ages.csv").read_text().startswith("17;[15, 19];[10, 19];[0, 19];*")
    assert (root / "adult_demo.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    python = next(out for command, out in printed.items() if "anonymizer.anonymize(" in command)
    assert python.splitlines()[-1].startswith("published.adult_k5 1 5 ")   # the Python page's print
    reading = next(out for command, out in printed.items() if command.startswith("python -c"))
    assert "eq_class" in reading   # the published rows, read back from examples/release.duckdb
