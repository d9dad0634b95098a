"""Paper 004's pairing rules: one column identifying individuals, one sensitive column, and
exactly one identity-reserved model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.families.identity_reserved import IR_MODEL_TYPES

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.spec.types import Algorithm, Column


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """DAnonyIR and GeneIR take one column with role ``individual``, one sensitive column
    (section 2.1) and exactly one IR or EIR model (Definitions 2.3, 3.3, 3.4)."""
    if not any(c.role == "individual" for c in columns):
        raise SpecError("columns", f"{algorithm.name} needs the column that identifies individuals: give it "
                                   "role 'individual' (it is renumbered, never published)")
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    if len(sensitive) != 1:
        raise SpecError("columns", f"{algorithm.name} protects exactly one sensitive column (paper 004, section 2.1); "
                                   f"found {len(sensitive)}")
    ir_models = [i for i, m in enumerate(models) if m.spec_type in IR_MODEL_TYPES]
    others = [i for i in range(len(models)) if i not in ir_models]
    if others or len(ir_models) != 1:
        where = f"models[{others[0]}]" if others else "models"
        raise SpecError(where, f"{algorithm.name} takes exactly one identity-reserved model: {', '.join(IR_MODEL_TYPES)}")
    if any(c.flag for c in columns):
        raise SpecError("columns", f"{algorithm.name} does not read per-cell flags")
