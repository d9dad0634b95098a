"""A release end to end: the one pipeline (:mod:`.run`), publishing and the audit table
(:mod:`.publish`) and exports (:mod:`.export`); the summary a user reads is :mod:`anonymizer.cli.summary`."""

from anonymizer.release.run import ReleaseResult, run_release

__all__ = ["ReleaseResult", "run_release"]
