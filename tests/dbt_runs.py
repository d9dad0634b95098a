"""Running the example dbt-duckdb project (``examples/dbt``) in tests: a copy of it in a
temporary folder with the anonymizer's dbt package beside it, installed from its local path
or from a git repository made there, and dbt run in-process (``dbt.cli.main.dbtRunner``)
with no Internet: dbt's usage statistics and version check are off, and any connection
attempt to a network address fails the test (:func:`no_internet`). The tests are in
``tests/dbt/`` (that folder has no ``__init__.py``: as a regular package ``tests/dbt``
would shadow the real ``dbt`` package)."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import duckdb
import pytest
from dbt.cli.main import dbtRunner  # dbt-core and dbt-duckdb are dev dependencies

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dbt"
PACKAGE = ROOT / "integrations" / "dbt"
QIS = ["age", "sex", "race", "marital_status", "education", "native_country", "workclass"]
SEED_ROWS = 2000
_IGNORE = shutil.ignore_patterns("target", "logs", "dbt_packages", "package-lock.yml", "*.duckdb", "*.duckdb.wal",
                                 ".user.yml")


class NetworkUsed(AssertionError):
    pass


def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every IPv4/IPv6 connection attempt raise (local sockets still work)."""
    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise NetworkUsed(f"network connection attempted to {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    with pytest.raises(NetworkUsed):  # the guard is in force
        socket.create_connection(("127.0.0.1", 9), timeout=0.1)  # loopback: nothing leaves even unguarded


def offline(monkeypatch: pytest.MonkeyPatch, db: Path) -> None:
    """dbt's environment for a test: the DuckDB file ``db``, no usage statistics, no version
    check, no Internet."""
    monkeypatch.setenv("ANONYMIZER_DBT_DB", str(db))
    monkeypatch.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    monkeypatch.setenv("DBT_VERSION_CHECK", "false")
    no_internet(monkeypatch)


def copy_example(root: Path) -> Path:
    """The example project and the package copied under ``root`` in the repository's layout
    (the project's ``packages.yml`` names the package by a relative path); the project."""
    project = root / "examples" / "dbt"
    shutil.copytree(EXAMPLE, project, ignore=_IGNORE)
    shutil.copytree(PACKAGE, root / "integrations" / "dbt", ignore=_IGNORE)
    return project


def git_repository(path: Path, tag: str) -> str:
    """A git repository at ``path`` holding the package in the repository's layout
    (``integrations/dbt``), committed and tagged ``tag``; its ``file://`` URL."""
    shutil.copytree(PACKAGE, path / "integrations" / "dbt", ignore=_IGNORE)
    git = ["git", "-C", str(path), "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "the dbt package"], ["tag", tag]):
        subprocess.run(git + args, check=True, capture_output=True)
    return path.as_uri()


def dbt(project: Path, *args: str):
    """Run one dbt command on ``project`` in-process; return the dbtRunnerResult."""
    return dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project),
                               "--log-path", str(project / "logs")])


def results_by_name(res) -> dict:
    return {r.node.name: r for r in res.result.results}


def problems(res) -> object:
    """What went wrong in a dbt run, for assertion messages."""
    if res.exception is not None or res.result is None:
        return res.exception
    return {r.node.name: (str(r.status), r.message) for r in res.result.results
            if str(r.status) not in ("success", "pass")}


def connect(db: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(db))


def message_lines(result) -> list[str]:
    """The lines of a failed node's message, stripped."""
    return [line.strip() for line in result.message.splitlines()]
