"""The generalizing algorithms' pairing rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.errors import SpecError

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.spec.types import Algorithm, Column


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """Full-domain generalization needs a level for every quasi-identifier."""
    if algorithm.name == "full-domain":
        for c in columns:
            if c.role == "quasi" and c.name not in algorithm.levels:
                raise SpecError(f"algorithm.levels.{c.name}", "is required for full-domain generalization")
