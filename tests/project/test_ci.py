"""CI runs what the README tells a user to run (issue 35): `.ci/run` holds the README's test
command as written, and its floor job installs the pins of `.ci/floor.txt`, which are the
floors `pyproject.toml` declares."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)
    return [line.split("   #")[0].strip() for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readmes_test_command():
    demo, tests = _readme_commands()
    assert demo.endswith("anonymizer demo") and tests.endswith("python -m pytest -n auto")
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_floor_pins_are_the_declared_floors():
    declared = dict(re.findall(r'^\s*"([a-z0-9-]+)>=([0-9.]+),<[0-9.]+",', (ROOT / "pyproject.toml").read_text(), re.M))
    pinned = dict(re.findall(r"^([a-z0-9-]+)==([0-9.]+)", (ROOT / ".ci" / "floor.txt").read_text(), re.M))
    runtime = {"duckdb", "sqlglot", "jinja2", "pandas", "numpy", "numba", "pyyaml", "click", "matplotlib", "rich",
               "packaging"}
    assert runtime <= declared.keys()
    for name in runtime:
        assert _release(pinned[name]) == _release(declared[name]), name


def _release(version: str) -> tuple[int, int, int]:
    """``2.0`` and ``2.0.0`` as the same release."""
    return tuple(int(x) for x in (version.split(".") + ["0", "0"])[:3])


def test_ci_checks_the_types_of_the_pipeline_and_the_families():
    """The typed family contract holds only while a type checker reads it (issue 37)."""
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m mypy" in run and '[ "${status[types]}" -eq 0 ]' in run
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'files = ["anonymizer/families", "anonymizer/release", ' in config
    assert "ignore_errors" not in config and "disable_error_code" not in config
