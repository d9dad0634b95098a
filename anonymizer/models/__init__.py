"""Privacy models as SQL checks, one class per model (see :mod:`.base` for the contract)."""

from __future__ import annotations

from .base import PrivacyModel
from .catalog import (
    AlphaKAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LslDiversity,
    MultiLDiversity,
    RecursiveCLDiversity,
    TCloseness,
    build_model,
    MODEL_TYPES,
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
    "MultiLDiversity",
    "build_model",
    "MODEL_TYPES",
]
