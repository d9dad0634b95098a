"""Fixtures for the command-line tests: ``invoke`` runs ``anonymizer ARGS...`` in-process."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from anonymizer.cli import main


def run_cli(*args):
    """``anonymizer ARGS...`` in-process (exceptions propagate); ``result.output`` holds
    stdout and stderr, ``result.stdout`` stdout only."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, prog_name="anonymizer")


@pytest.fixture(scope="session")
def invoke():
    return run_cli
