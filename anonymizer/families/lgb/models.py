"""The model of paper 000 that only LGB releases reach: l-uniqueness of local buckets
(Corollary 2), with how a spec entry becomes one (``MODEL_TYPES``, read by
:func:`anonymizer.families.build_model`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import ModelType, number_of, sensitive_of


@dataclass(frozen=True)
class LUnique(PrivacyModel):
    """Every local bucket holds at least ``l`` sensitive values, each value at most once
    (paper 000, Corollary 2: frequency l-diversity of local buckets; the l-uniqueness of
    m-invariance, Xiao and Tao 2007). It protects the buckets of ``attribute``, or of every
    attribute holding sensitive values that no other bucket model names. Read by the LGB
    algorithms only. Figure: the smallest bucket (0 if a value repeats in a bucket).
    """
    spec_type: ClassVar[str] = "l-unique"

    l: int
    attribute: str | None = None
    template: ClassVar[str] = "models/l_unique.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"l": self.l}

    def __str__(self) -> str:
        on = f"on {self.attribute!r}" if self.attribute else "on every attribute with sensitive values"
        return f"{self.l}-uniqueness of local buckets {on}"


def _l_unique(e, w):
    attribute = sensitive_of(e, w) if "sensitive" in e else None
    return LUnique(number_of(e, "l", w, int, 1), attribute)


#: spec ``type`` -> how an entry of it becomes a model
MODEL_TYPES: Mapping[str, ModelType] = {
    "l-unique": ModelType(_l_unique, frozenset({"l", "sensitive"}), frozenset({"sensitive"}), LUnique),
}
