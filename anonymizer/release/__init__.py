"""A release end to end: the one pipeline (:mod:`.run`), publishing and the audit table
(:mod:`.publish`), exports (:mod:`.export`) and the summary a user reads (:mod:`.summary`)."""

from anonymizer.release.run import ReleaseResult, run_release

__all__ = ["ReleaseResult", "run_release"]
