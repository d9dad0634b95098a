"""The generic privacy models, one frozen class each, and :func:`build_model` from a spec entry.

Citations: k-anonymity (Sweeney 2002); distinct, entropy and recursive (c,l)-diversity
(Machanavajjhala et al. 2007, Defs. 4.1 and 4.2 and the distinct variant); t-closeness
with the Earth Mover's Distance, equal, ordered and hierarchical ground distances (Li,
Li and Venkatasubramanian 2007, section 4.2); (alpha,k)-anonymity (Wong et al. 2006);
k-map (Sweeney 2002; El Emam and Dankar 2008) and delta-presence (Nergiz, Atzori and
Clifton 2007) against a population table, as ARX 3.9.2's ``org.deidentifier.arx.criteria.
KMap`` (without an estimator) and ``DPresence`` judge a class.

The models only one family reaches are that family's (``families/<family>/models.py``:
L_sl- and multi-attribute l-diversity of paper 002, l-uniqueness of local buckets of paper
000, the identity-reserved models of paper 004); each such module declares its
``MODEL_TYPES`` as this one does, and :func:`anonymizer.families.build_model` builds from all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

from anonymizer.errors import SpecError
from anonymizer.numbers import number
from anonymizer.models.base import PrivacyModel


@dataclass(frozen=True)
class ModelType:
    """How a spec entry of one ``type`` becomes a model: ``build(entry, field path)``, the
    keys the entry may have besides ``type``, those of them it may leave out (``optional``),
    the ``model`` class it builds (its docstring describes the type in the spec's JSON
    Schema) and the JSON Schema of a key whose form differs from :data:`PARAMETERS`
    (``params``)."""

    build: Callable[[dict, str], PrivacyModel]
    keys: frozenset[str]
    optional: frozenset[str] = frozenset()
    model: type[PrivacyModel] | None = None
    params: Mapping[str, dict] = field(default_factory=dict)

    @property
    def doc(self) -> str:
        """The first paragraph of the model class's docstring, on one line."""
        text = (self.model.__doc__ or "") if self.model else ""
        return " ".join(text.split("\n\n")[0].split())


#: the JSON Schema of each model parameter (:mod:`anonymizer.spec.schema`); the build functions
#: check the same and more (a whole ``l`` for distinct l-diversity, ``l >= 2`` for recursive)
PARAMETERS: Mapping[str, dict] = {
    "k": {"type": "integer", "minimum": 1, "description": "the smallest class size"},
    "l": {"type": "number", "minimum": 1, "description": "l of l-diversity: distinct values, or exp of entropy"},
    "c": {"type": "number", "exclusiveMinimum": 0, "description": "c of recursive (c,l)-diversity"},
    "t": {"type": "number", "minimum": 0, "maximum": 1,
          "description": "the largest Earth Mover's Distance of a class to the table"},
    "alpha": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
              "description": "the largest share of one sensitive value in a class"},
    "beta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
             "description": "the largest share of one sensitive list in a class (paper 004)"},
    "sensitive": {"type": "string", "minLength": 1, "description": "the sensitive column (role 'sensitive') or flag"},
    "distance": {"enum": ["equal", "ordered", "hierarchical"], "default": "equal",
                 "description": "the ground distance: equal, ordered values, or the column's hierarchy"},
    "value": {"type": ["string", "number"], "description": "the one sensitive value alpha bounds (default: every value)"},
    "population": {"type": "string", "minLength": 1,
                   "description": "the population table (schema.table) the source was drawn from, with its QI columns"},
    "dmin": {"type": "number", "minimum": 0, "maximum": 1,
             "description": "the least share f/F of a population class the release may hold"},
    "dmax": {"type": "number", "minimum": 0, "maximum": 1,
             "description": "the greatest share f/F of a population class the release may hold"},
}


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
class KMap(PrivacyModel):
    """Every class of the release (the research sample) matches at least ``k`` rows of the
    ``population`` table at the same generalization (ARX's ``KMap.isAnonymous`` without an
    estimator: ``pcount >= k``). Figure: the smallest population class F over the classes.
    Monotonic, also with suppression: a class's parts have at most its F."""
    spec_type: ClassVar[str] = "k-map"
    monotonic_with_suppression: ClassVar[bool] = True
    needs_population: ClassVar[bool] = True

    k: int
    population: str
    template: ClassVar[str] = "models/k_map.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"k": self.k}

    def __str__(self) -> str:
        return f"{self.k}-map against {self.population!r}"


@dataclass(frozen=True)
class DeltaPresence(PrivacyModel):
    """Every class of the ``population`` table at the release's generalization has delta =
    f / F (its sample rows over its population rows) in [``dmin``, ``dmax``]; a population
    class without sample rows has delta 0 (ARX's ``DPresence.isAnonymous``). Figure: the
    largest delta (the smallest is recorded beside it). Not monotonic (ARX's ``DPresence``
    is not): a search never prunes on it. As ARX's ``HashGroupify.analyze`` does, a class with
    sample rows failing it may be suppressed like any failing class, but a population class
    without sample rows failing ``dmin`` fails the whole node."""
    spec_type: ClassVar[str] = "delta-presence"
    monotonic: ClassVar[bool] = False
    needs_population: ClassVar[bool] = True
    figure_agg: ClassVar[str] = "max"

    dmin: float
    dmax: float
    population: str
    template: ClassVar[str] = "models/delta_presence.sql.j2"

    def values(self) -> dict[str, Any]:
        return {"dmin": float(self.dmin), "dmax": float(self.dmax)}

    def __str__(self) -> str:
        return f"({self.dmin:g},{self.dmax:g})-presence against {self.population!r}"


def number_of(entry: dict, key: str, where: str, kind: type, low: float, high: float | None = None,
              strict_low: bool = False):
    """``entry[key]``, a finite number (whole if ``kind`` is int) in its range (NaN and
    infinities are refused: a NaN bound makes every class hold)."""
    if key not in entry:
        raise SpecError(f"{where}.{key}", "is required")
    return number(entry[key], f"{where}.{key}", low, high, low_open=strict_low, whole=kind is int)


def sensitive_of(entry: dict, where: str) -> str:
    value = entry.get("sensitive")
    if not isinstance(value, str) or not value:
        raise SpecError(f"{where}.sensitive", "must name a sensitive column", value)
    return value


def population_of(entry: dict, where: str) -> str:
    """The entry's ``population``: the name of a table (``[catalog.][schema.]table``), checked
    against the database when the release is planned."""
    value = entry.get("population")
    if not isinstance(value, str) or not all(value.split(".")) or len(value.split(".")) > 3:
        raise SpecError(f"{where}.population", "must name a table ([catalog.][schema.]table) holding the "
                                               "population, with the release's quasi-identifier columns", value)
    return value


def _k(e, w):
    return KAnonymity(number_of(e, "k", w, int, 1))


def _distinct(e, w):
    return DistinctLDiversity(number_of(e, "l", w, int, 1), sensitive_of(e, w))


def _entropy(e, w):
    return EntropyLDiversity(number_of(e, "l", w, float, 1), sensitive_of(e, w))


def _recursive(e, w):
    return RecursiveCLDiversity(number_of(e, "c", w, float, 0, strict_low=True), number_of(e, "l", w, int, 2), sensitive_of(e, w))


def _t(e, w):
    distance = e.get("distance", "equal")
    if distance not in ("equal", "ordered", "hierarchical"):
        raise SpecError(f"{w}.distance", "must be one of equal, ordered, hierarchical", distance)
    return TCloseness(number_of(e, "t", w, float, 0, 1), sensitive_of(e, w), distance)


def _alpha_k(e, w):
    value = e.get("value")
    if value is not None and not isinstance(value, (str, int, float)):
        raise SpecError(f"{w}.value", "must be a single sensitive value", value)
    return AlphaKAnonymity(number_of(e, "alpha", w, float, 0, 1, strict_low=True), number_of(e, "k", w, int, 1),
                           sensitive_of(e, w), None if value is None else str(value))


def _k_map(e, w):
    return KMap(number_of(e, "k", w, int, 1), population_of(e, w))


def _delta(e, w):
    dmin, dmax = number_of(e, "dmin", w, float, 0, 1), number_of(e, "dmax", w, float, 0, 1)
    if dmin > dmax:
        raise SpecError(f"{w}.dmin", f"must be at most dmax ({dmax:g})", dmin)
    return DeltaPresence(dmin, dmax, population_of(e, w))


def open_unit(e, key, w):
    if key not in e:
        raise SpecError(f"{w}.{key}", "is required")
    return number(e[key], f"{w}.{key}", 0, 1, low_open=True, high_open=True)


#: spec ``type`` -> how an entry of it becomes a model: the generic models
MODEL_TYPES: Mapping[str, ModelType] = {
    "k-anonymity": ModelType(_k, frozenset({"k"}), model=KAnonymity),
    "distinct-l-diversity": ModelType(_distinct, frozenset({"l", "sensitive"}), model=DistinctLDiversity),
    "entropy-l-diversity": ModelType(_entropy, frozenset({"l", "sensitive"}), model=EntropyLDiversity),
    "recursive-cl-diversity": ModelType(_recursive, frozenset({"c", "l", "sensitive"}),
                                        model=RecursiveCLDiversity),
    "t-closeness": ModelType(_t, frozenset({"t", "sensitive", "distance"}), frozenset({"distance"}),
                             model=TCloseness),
    "alpha-k-anonymity": ModelType(_alpha_k, frozenset({"alpha", "k", "sensitive", "value"}), frozenset({"value"}),
                                   model=AlphaKAnonymity),
    "k-map": ModelType(_k_map, frozenset({"k", "population"}), model=KMap,
                       params={"k": {"type": "integer", "minimum": 1,
                                     "description": "the fewest population rows each released class must match"}}),
    "delta-presence": ModelType(_delta, frozenset({"dmin", "dmax", "population"}), model=DeltaPresence),
}


def build_model(entry: Any, where: str, types: Mapping[str, ModelType] = MODEL_TYPES) -> PrivacyModel:
    """Build a model from a spec entry such as ``{"type": "k-anonymity", "k": 5}``, of one of
    ``types`` (the generic ones; :func:`anonymizer.families.build_model` adds the families').

    Example:
        >>> str(build_model({"type": "distinct-l-diversity", "l": 3, "sensitive": "disease"}, "models[0]"))
        "distinct-3-diversity on 'disease'"
    """
    if not isinstance(entry, dict):
        raise SpecError(where, "must be a mapping with a 'type'", entry)
    kind = str(entry.get("type", "")).replace("_", "-").lower()
    if kind not in types:
        raise SpecError(f"{where}.type", f"must be one of {', '.join(types)}", entry.get("type"))
    extra = set(entry) - types[kind].keys - {"type"}
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", f"is not an option of {kind}")
    return types[kind].build(entry, where)
