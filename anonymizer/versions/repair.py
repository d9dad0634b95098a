"""m-invariance's repair, run by the driver (:func:`anonymizer.release.run.verified`) for every
family between its candidate and verification: a group whose box an earlier version
published with another multiset would let the difference of the two be read, and the gate
would refuse the version (:mod:`anonymizer.versions.combination`). Such groups are merged with
their neighbours (``templates/versions/invariance/merge.sql.j2``): a merged group's box is
wider and its multiset the union of both, so no member's candidate values shrink. A family
says where its groups can be merged
(:meth:`~anonymizer.release.candidate.FamilySteps.repairable`) and how
(:meth:`~anonymizer.release.candidate.FamilySteps.merge`); what is left after
:data:`REPAIRS` merges, the gate refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from anonymizer.engine.session import Engine
from anonymizer.plan import Plan
from anonymizer.versions import combination

if TYPE_CHECKING:
    from anonymizer.release.candidate import FamilySteps, Rounds

#: how many times the groups whose box repeats an earlier version's are merged
REPAIRS = 8

Built = TypeVar("Built")


def repaired(engine: Engine, plan: Plan, steps: FamilySteps[Any, Built, Any], rounds: Rounds[Any],
             built: Built) -> Built:
    """The candidate after merging, up to :data:`REPAIRS` times, the groups of the classes whose
    box an earlier version published with a multiset the difference check refuses."""
    for attempt in range(REPAIRS):
        boxes = steps.repairable(engine, plan, rounds, built)
        if boxes is None:
            break
        colliding = engine.work(f"colliding{attempt}")
        if not combination.colliding(engine, plan, boxes, colliding):
            break
        built = steps.merge(engine, plan, rounds, built, colliding, attempt)
    return built
