"""Privacy models as SQL checks, one class per model (see :mod:`.base` for the contract): the
generic ones; a family's own models are in its package (``families/<family>/models.py``)."""

from __future__ import annotations

from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import (
    AlphaKAnonymity,
    DeltaPresence,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    KMap,
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
    "KMap",
    "DeltaPresence",
    "build_model",
    "MODEL_TYPES",
]
