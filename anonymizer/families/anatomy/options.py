"""Paper 002's pairing rules: the MSB algorithms publish anatomy tables under one model over
every sensitive attribute, given alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.families.anatomy.models import LslDiversity, MultiLDiversity

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.spec.types import Algorithm, Column


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """An MSB algorithm takes exactly one model over all sensitive attributes (L_sl- or
    multi-attribute l-diversity, Definitions 8 and 11), and at least one sensitive column."""
    multi = [i for i, m in enumerate(models) if isinstance(m, (LslDiversity, MultiLDiversity))]
    if not multi:
        raise SpecError("models", f"{algorithm.name} needs a model over all sensitive attributes: "
                                  "lsl-diversity or multi-l-diversity (paper 002)")
    if len(models) > 1:
        at = next((i for i in range(len(models)) if i != multi[0]), multi[0])
        raise SpecError(f"models[{at}]", "a model over several sensitive attributes is the only model of an "
                                         "anatomy release (paper 002); give it alone")
    if not any(c.role == "sensitive" for c in columns):
        raise SpecError(f"models[{multi[0]}]", "needs at least one column with role 'sensitive'")
