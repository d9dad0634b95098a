"""The models of paper 002 for multiple sensitive attributes, which only anatomy releases
reach: L_sl-diversity (Definitions 10 to 12) and multi-attribute l-diversity (Definitions 7
and 8), with how a spec entry becomes one (``MODEL_TYPES``, read by
:func:`anonymizer.families.build_model`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from anonymizer.errors import SpecError
from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import ModelType, number_of
from anonymizer.numbers import MAX_WHOLE


@dataclass(frozen=True)
class LslDiversity(PrivacyModel):
    """L_sl-diversity for multiple sensitive attributes (paper 002, Definitions 10 to 12).

    In every group ``G`` and on every sensitive attribute, each value ``v`` of security level
    ``s`` has ``c(v) / |G| <= 1 / l_s``; ``l = (l0, l1, l2)`` (the paper uses 1, 2, 3).
    Levels come from each sensitive column's ``security``. Figure: the largest
    ``c(v) * l_s / |G|`` of any group (at most 1 when the model holds).
    """
    spec_type: ClassVar[str] = "lsl-diversity"

    l: tuple[int, int, int] = (1, 2, 3)
    figure_agg: ClassVar[str] = "max"

    def l_of(self, level: int) -> int:
        return self.l[level]

    def values(self) -> dict[str, Any]:
        return {"l0": self.l[0], "l1": self.l[1], "l2": self.l[2]}

    def __str__(self) -> str:
        return f"L_sl-diversity (l0, l1, l2 = {', '.join(map(str, self.l))}) on all sensitive attributes"


@dataclass(frozen=True)
class MultiLDiversity(PrivacyModel):
    """l-diversity for multiple sensitive attributes (Yang et al. 2008; paper 002, Definitions
    7 and 8): in every group, on every sensitive attribute, the most frequent value has
    ``c(v) / |G| <= 1 / l``. L_sl-diversity with every value at one level. Figure as
    :class:`LslDiversity`."""
    spec_type: ClassVar[str] = "multi-l-diversity"

    l: int
    figure_agg: ClassVar[str] = "max"

    def l_of(self, level: int) -> int:
        return self.l

    def values(self) -> dict[str, Any]:
        return {"l": self.l}

    def __str__(self) -> str:
        return f"{self.l}-diversity on all sensitive attributes"


#: the JSON Schema of lsl-diversity's ``l`` (:mod:`anonymizer.spec.schema`)
_LSL_L = {"type": "array", "minItems": 3, "maxItems": 3, "default": [1, 2, 3],
          "items": {"type": "integer", "minimum": 1, "description": "one of the three whole numbers >= 1: l0, l1, l2"},
          "description": "l0, l1, l2: three whole numbers >= 1, the l of security levels 0, 1 and 2, not decreasing"}


def _lsl(e, w):
    value = e.get("l", [1, 2, 3])
    if (not isinstance(value, list) or len(value) != 3
            or any(isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= MAX_WHOLE for x in value)):
        raise SpecError(f"{w}.l", "must list l0, l1, l2: three whole numbers >= 1 (paper 002 uses [1, 2, 3])", value)
    if sorted(value) != list(value):
        raise SpecError(f"{w}.l", "must not decrease: a higher security level needs at least the same l", value)
    return LslDiversity(tuple(value))


def _multi_l(e, w):
    return MultiLDiversity(number_of(e, "l", w, int, 1))


#: spec ``type`` -> how an entry of it becomes a model
MODEL_TYPES: Mapping[str, ModelType] = {
    "lsl-diversity": ModelType(_lsl, frozenset({"l"}), frozenset({"l"}), LslDiversity, {"l": _LSL_L}),
    "multi-l-diversity": ModelType(_multi_l, frozenset({"l"}), model=MultiLDiversity),
}
