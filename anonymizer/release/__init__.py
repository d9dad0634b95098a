"""A release end to end: the one pipeline (:mod:`.run`), publishing and the audit table
(:mod:`.publish`) and exports (:mod:`.export`); the summary a user reads is :mod:`anonymizer.cli.summary`.

``ReleaseResult`` and ``run_release`` are resolved on first use (PEP 562), so that importing
one of its modules (:mod:`.publish`, which :mod:`anonymizer.versions` reads) does not load the
whole pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anonymizer.release.run import ReleaseResult, run_release

__all__ = ["ReleaseResult", "run_release"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from anonymizer.release import run
        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
