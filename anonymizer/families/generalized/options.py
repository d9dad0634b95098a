"""The generalizing algorithms' inputs (Mondrian's :class:`Inputs`) and pairing rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.errors import SpecError

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.spec.types import Algorithm, Column, ReleaseSpec


@dataclass(frozen=True)
class Inputs:
    """What Mondrian reads besides the plan's coded rows (Alg. 3 takes T and k): the smallest
    class ``k``, the ``models`` every cut is checked against, and its options: ``relaxed``
    partitioning, ``split`` (``median`` or ``loss``, :mod:`.loss_split`) and ``labels``
    (``hierarchy``: strict cuts snap to a declared hierarchy's nodes, :mod:`.mondrian_snap`)."""

    k: int
    models: tuple[PrivacyModel, ...]
    relaxed: bool = False
    split: str = "median"
    labels: str = "hierarchy"


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """Full-domain generalization needs a level for every quasi-identifier."""
    if algorithm.name == "full-domain":
        for c in columns:
            if c.role == "quasi" and c.name not in algorithm.levels:
                raise SpecError(f"algorithm.levels.{c.name}", "is required for full-domain generalization")


def mondrian_inputs(spec: ReleaseSpec) -> Inputs:
    """Mondrian's inputs for a release: the largest k of its models, every model, and the
    ``algorithm:`` options Mondrian reads."""
    a = spec.algorithm
    return Inputs(spec.k, tuple(spec.models), a.relaxed, a.split, a.labels)
