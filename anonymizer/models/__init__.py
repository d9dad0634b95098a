"""Privacy models as SQL checks, one class per model (see :mod:`.base` for the contract)."""

from __future__ import annotations

from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import (
    AlphaKAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LslDiversity,
    LUnique,
    MultiLDiversity,
    RecursiveCLDiversity,
    TCloseness,
    build_model,
    MODEL_TYPES,
)
from anonymizer.families.identity_reserved.models import (
    EIRAlphaBetaAnonymity,
    EIRLDiversity,
    IRAlphaBetaAnonymity,
    IRKAnonymity,
    IRKLAnonymity,
)

__all__ = [
    "PrivacyModel",
    "KAnonymity",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "TCloseness",
    "AlphaKAnonymity",
    "LslDiversity",
    "LUnique",
    "MultiLDiversity",
    "IRKAnonymity",
    "IRKLAnonymity",
    "IRAlphaBetaAnonymity",
    "EIRLDiversity",
    "EIRAlphaBetaAnonymity",
    "build_model",
    "MODEL_TYPES",
]
