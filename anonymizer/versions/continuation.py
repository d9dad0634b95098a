"""Where a version continues from, decided by the pipeline once for every family
(:func:`anonymizer.release.run.verified`): the family's algorithm receives a
:class:`Continuation` and never reads the release's earlier versions itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.release.publish import latest
from anonymizer.versions.invariance import continued, keeps_signatures

if TYPE_CHECKING:
    from anonymizer.engine.session import Engine
    from anonymizer.plan import Plan
    from anonymizer.release.candidate import FamilySteps


@dataclass(frozen=True)
class Continuation:
    """What a family's ``run`` continues from.

    Attributes:
        keeps: the release keeps each person's signature across versions (``history:
            invariant`` with ``history.person``; :func:`~.invariance.keeps_signatures`).
        state: the private state m-invariance continues from, ``(people, groups, version)``
            (:func:`~.invariance.continued`), or ``None``: the algorithm runs as for a first
            version (a first version, a release that keeps no signatures, or one whose
            earlier versions kept none).
        published: the release has an earlier version.
    """

    keeps: bool
    state: tuple[str, str, int] | None
    published: bool


def continuation(engine: Engine, plan: Plan, steps: FamilySteps) -> Continuation:
    """The release's :class:`Continuation`, after refusing before any work what the family's
    signatures cannot hold across versions (``steps.check_versions``)."""
    published = latest(engine, plan.target) is not None
    keeps = keeps_signatures(plan)
    if keeps:
        steps.check_versions(plan)
    return Continuation(keeps, continued(engine, plan) if keeps else None, published)
