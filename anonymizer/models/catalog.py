"""The privacy models, one frozen class each, and :func:`build_model` from a spec entry.

Citations: k-anonymity (Sweeney 2002); distinct, entropy and recursive (c,l)-diversity
(Machanavajjhala et al. 2007, Defs. 4.1 and 4.2 and the distinct variant); t-closeness
with the Earth Mover's Distance, equal, ordered and hierarchical ground distances (Li,
Li and Venkatasubramanian 2007, section 4.2); (alpha,k)-anonymity (Wong et al. 2006);
L_sl- and multi-attribute l-diversity (paper 002); l-uniqueness of local buckets (paper 000);
the identity-reserved models of paper 004 (defined in :mod:`.identity_reserved`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from anonymizer.errors import SpecError
from anonymizer.numbers import MAX_WHOLE, number
from anonymizer.models.base import PrivacyModel
from anonymizer.families.identity_reserved.models import (
    EIRAlphaBetaAnonymity,
    EIRLDiversity,
    IRAlphaBetaAnonymity,
    IRKAnonymity,
    IRKLAnonymity,
)


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """Every equivalence class holds at least ``k`` rows. Figure: smallest class size."""
    spec_type: ClassVar[str] = "k-anonymity"
    monotonic_with_suppression: ClassVar[bool] = True

    k: int
    template: ClassVar[str] = "models/k_anonymity.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"k": self.k}

    def __str__(self) -> str:
        return f"{self.k}-anonymity"


@dataclass(frozen=True)
class DistinctLDiversity(PrivacyModel):
    """Every class has at least ``l`` distinct sensitive values. Figure: fewest distinct."""
    spec_type: ClassVar[str] = "distinct-l-diversity"
    monotonic_with_suppression: ClassVar[bool] = True

    l: int
    attribute: str
    template: ClassVar[str] = "models/distinct_l_diversity.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"l": self.l}

    def __str__(self) -> str:
        return f"distinct-{self.l}-diversity on {self.attribute!r}"


@dataclass(frozen=True)
class EntropyLDiversity(PrivacyModel):
    """Every class has entropy ``-sum p log p >= log l``. Figure: ``exp`` of the smallest entropy."""
    spec_type: ClassVar[str] = "entropy-l-diversity"

    l: float
    attribute: str
    template: ClassVar[str] = "models/entropy_l_diversity.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"l": float(self.l), "log_l": math.log(self.l)}

    def __str__(self) -> str:
        return f"entropy-{self.l:g}-diversity on {self.attribute!r}"


@dataclass(frozen=True)
class RecursiveCLDiversity(PrivacyModel):
    """Every class has ``r_1 < c (r_l + ... + r_m)`` for its sorted counts ``r_i``.

    Figure: the largest ``l`` for which every class satisfies the inequality at this ``c``.
    """
    spec_type: ClassVar[str] = "recursive-cl-diversity"

    c: float
    l: int
    attribute: str
    template: ClassVar[str] = "models/recursive_cl_diversity.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"c": float(self.c), "l": self.l}

    def __str__(self) -> str:
        return f"recursive-({self.c:g},{self.l})-diversity on {self.attribute!r}"


@dataclass(frozen=True)
class TCloseness(PrivacyModel):
    """Every class's sensitive distribution is within EMD ``t`` of the table's.

    ``distance``: ``equal`` (categorical), ``ordered`` (values in their order) or
    ``hierarchical`` (ground distance by the sensitive attribute's hierarchy).
    Figure: the largest EMD of any class. Not monotonic in general (Li et al. 2007
    prove it for generalization, which is what we use it for), so it is marked monotonic.
    """
    spec_type: ClassVar[str] = "t-closeness"

    t: float
    attribute: str
    distance: str = "equal"
    figure_agg: ClassVar[str] = "max"
    needs_global: ClassVar[bool] = True

    @property
    def template(self) -> str:  # type: ignore[override]
        return f"models/t_closeness_{self.distance}.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"t": float(self.t)}

    def __str__(self) -> str:
        return f"{self.t:g}-closeness ({self.distance} distance) on {self.attribute!r}"


@dataclass(frozen=True)
class AlphaKAnonymity(PrivacyModel):
    """Every class has at least ``k`` rows and no sensitive value (or the given ``value``)
    above relative frequency ``alpha`` (Wong et al. 2006). Figure: largest frequency."""
    spec_type: ClassVar[str] = "alpha-k-anonymity"

    alpha: float
    k: int
    attribute: str
    value: str | None = None
    template: ClassVar[str] = "models/alpha_k_anonymity.sql.j2"
    figure_agg: ClassVar[str] = "max"

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"alpha": float(self.alpha), "k": self.k}
        if self.value is not None:
            out["value"] = self.value
        return out

    def __str__(self) -> str:
        on = f", value {self.value!r}" if self.value is not None else ""
        return f"({self.alpha:g},{self.k})-anonymity on {self.attribute!r}{on}"


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


def _num(entry: dict, key: str, where: str, kind: type, low: float, high: float | None = None,
         strict_low: bool = False):
    """``entry[key]``, a finite number (whole if ``kind`` is int) in its range (NaN and
    infinities are refused: a NaN bound makes every class hold)."""
    if key not in entry:
        raise SpecError(f"{where}.{key}", "is required")
    return number(entry[key], f"{where}.{key}", low, high, low_open=strict_low, whole=kind is int)


def _attr(entry: dict, where: str) -> str:
    value = entry.get("sensitive")
    if not isinstance(value, str) or not value:
        raise SpecError(f"{where}.sensitive", "must name a sensitive column", value)
    return value


def _k(e, w):
    return KAnonymity(_num(e, "k", w, int, 1))


def _distinct(e, w):
    return DistinctLDiversity(_num(e, "l", w, int, 1), _attr(e, w))


def _entropy(e, w):
    return EntropyLDiversity(_num(e, "l", w, float, 1), _attr(e, w))


def _recursive(e, w):
    return RecursiveCLDiversity(_num(e, "c", w, float, 0, strict_low=True), _num(e, "l", w, int, 2), _attr(e, w))


def _t(e, w):
    distance = e.get("distance", "equal")
    if distance not in ("equal", "ordered", "hierarchical"):
        raise SpecError(f"{w}.distance", "must be one of equal, ordered, hierarchical", distance)
    return TCloseness(_num(e, "t", w, float, 0, 1), _attr(e, w), distance)


def _alpha_k(e, w):
    value = e.get("value")
    if value is not None and not isinstance(value, (str, int, float)):
        raise SpecError(f"{w}.value", "must be a single sensitive value", value)
    return AlphaKAnonymity(_num(e, "alpha", w, float, 0, 1, strict_low=True), _num(e, "k", w, int, 1),
                           _attr(e, w), None if value is None else str(value))


def _lsl(e, w):
    value = e.get("l", [1, 2, 3])
    if (not isinstance(value, list) or len(value) != 3
            or any(isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= MAX_WHOLE for x in value)):
        raise SpecError(f"{w}.l", "must list l0, l1, l2: three whole numbers >= 1 (paper 002 uses [1, 2, 3])", value)
    if sorted(value) != list(value):
        raise SpecError(f"{w}.l", "must not decrease: a higher security level needs at least the same l", value)
    return LslDiversity(tuple(value))


def _l_unique(e, w):
    attribute = _attr(e, w) if "sensitive" in e else None
    return LUnique(_num(e, "l", w, int, 1), attribute)


def _multi_l(e, w):
    return MultiLDiversity(_num(e, "l", w, int, 1))


def _open_unit(e, key, w):
    if key not in e:
        raise SpecError(f"{w}.{key}", "is required")
    return number(e[key], f"{w}.{key}", 0, 1, low_open=True, high_open=True)


def _ir_k(e, w):
    return IRKAnonymity(_num(e, "k", w, int, 1))


def _ir_kl(e, w):
    return IRKLAnonymity(_num(e, "k", w, int, 1), _num(e, "l", w, int, 1), _attr(e, w))


def _ir_ab(e, w):
    return IRAlphaBetaAnonymity(_open_unit(e, "alpha", w), _open_unit(e, "beta", w), _attr(e, w))


def _eir_l(e, w):
    return EIRLDiversity(_num(e, "l", w, int, 1), _attr(e, w))


def _eir_ab(e, w):
    return EIRAlphaBetaAnonymity(_open_unit(e, "alpha", w), _open_unit(e, "beta", w), _attr(e, w))


#: spec ``type`` -> builder taking (entry, field path); aliases included.
MODEL_TYPES = {
    "k-anonymity": _k,
    "distinct-l-diversity": _distinct,
    "entropy-l-diversity": _entropy,
    "recursive-cl-diversity": _recursive,
    "t-closeness": _t,
    "alpha-k-anonymity": _alpha_k,
    "lsl-diversity": _lsl,
    "multi-l-diversity": _multi_l,
    "l-unique": _l_unique,
    "ir-k-anonymity": _ir_k,
    "ir-kl-anonymity": _ir_kl,
    "ir-alpha-beta-anonymity": _ir_ab,
    "eir-l-diversity": _eir_l,
    "eir-alpha-beta-anonymity": _eir_ab,
}

_KEYS = {
    "k-anonymity": {"k"},
    "distinct-l-diversity": {"l", "sensitive"},
    "entropy-l-diversity": {"l", "sensitive"},
    "recursive-cl-diversity": {"c", "l", "sensitive"},
    "t-closeness": {"t", "sensitive", "distance"},
    "alpha-k-anonymity": {"alpha", "k", "sensitive", "value"},
    "lsl-diversity": {"l"},
    "multi-l-diversity": {"l"},
    "l-unique": {"l", "sensitive"},
    "ir-k-anonymity": {"k"},
    "ir-kl-anonymity": {"k", "l", "sensitive"},
    "ir-alpha-beta-anonymity": {"alpha", "beta", "sensitive"},
    "eir-l-diversity": {"l", "sensitive"},
    "eir-alpha-beta-anonymity": {"alpha", "beta", "sensitive"},
}


def build_model(entry: Any, where: str) -> PrivacyModel:
    """Build a model from a spec entry such as ``{"type": "k-anonymity", "k": 5}``.

    Example:
        >>> str(build_model({"type": "distinct-l-diversity", "l": 3, "sensitive": "disease"}, "models[0]"))
        "distinct-3-diversity on 'disease'"
    """
    if not isinstance(entry, dict):
        raise SpecError(where, "must be a mapping with a 'type'", entry)
    kind = str(entry.get("type", "")).replace("_", "-").lower()
    if kind not in MODEL_TYPES:
        raise SpecError(f"{where}.type", f"must be one of {', '.join(MODEL_TYPES)}", entry.get("type"))
    extra = set(entry) - _KEYS[kind] - {"type"}
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", f"is not an option of {kind}")
    return MODEL_TYPES[kind](entry, where)
