"""The ``algorithm:`` options of ``dp-aggregates`` (:class:`Options`, :func:`parse`) and its
pairing rules (:func:`pair`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from anonymizer.errors import SpecError
from anonymizer.families.base import options_of
from anonymizer.fields import choice
from anonymizer.numbers import number

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.plan import Plan
    from anonymizer.spec.types import Column

NOISES = ("laplace", "gaussian")
KINDS = ("count", "sum", "mean")

SCHEMA: Mapping[str, dict] = {
    "measures": {"type": "array", "minItems": 1, "description": "dp-aggregates: count, {sum: COLUMN, bounds: [lo, "
                                                                "hi]} or {mean: COLUMN, bounds: [lo, hi]}"},
    "keys": {"anyOf": [{"const": "private"}, {"type": "object"}],
             "description": "dp-aggregates: private (cells selected by a noisy threshold) or, per dimension, its "
                            "public values"},
    "groups_per_person": {"type": "integer", "minimum": 1, "default": 1,
                          "description": "dp-aggregates: the most cells one person contributes to"},
    "rows_per_group": {"type": "integer", "minimum": 1, "default": 1,
                       "description": "dp-aggregates: the most rows one person contributes to a cell"},
    "noise": {"enum": list(NOISES), "default": "laplace", "description": "dp-aggregates: discrete Laplace "
                                                                          "(epsilon-DP) or discrete Gaussian"},
}


@dataclass(frozen=True)
class Measure:
    """One published aggregate: ``kind`` count, sum or mean, of ``column`` within ``bounds``."""

    kind: str
    column: str | None = None
    bounds: tuple[float, float] = (0.0, 0.0)

    @property
    def name(self) -> str:
        return "count" if self.kind == "count" else f"{self.column}_{self.kind}"


@dataclass(frozen=True)
class Options:
    """dp-aggregates' options (module docstring of :mod:`anonymizer.families.aggregates`)."""

    epsilon: float = 0.0
    delta: float = 0.0
    measures: tuple[Measure, ...] = ()
    keys: Mapping[str, tuple] | None = None          # None: private
    groups_per_person: int = 1
    rows_per_group: int = 1
    noise: str = "laplace"


def parse(name: str, v: dict, quasi: set[str], seed: int | None) -> Options:
    for key in ("epsilon", "delta", "measures"):
        if key not in v:
            raise SpecError(f"algorithm.{key}", "is required for dp-aggregates")
    epsilon = float(number(v["epsilon"], "algorithm.epsilon", 0, low_open=True, what="a positive number"))
    delta = float(number(v["delta"], "algorithm.delta", 0, 1, high_open=True, what="a number in [0, 1)"))
    measures = tuple(_measure(m, f"algorithm.measures[{i}]") for i, m in enumerate(_list(v["measures"])))
    names = [m.name for m in measures]
    if len(set(names)) < len(names):
        raise SpecError("algorithm.measures", "names a measure twice", names)
    keys = _keys(v.get("keys", "private"), quasi)
    noise = choice(v.get("noise", "laplace"), "algorithm.noise", NOISES, "the noise of each cell")
    if (keys is None or noise == "gaussian") and delta <= 0:
        raise SpecError("algorithm.delta", "must be above 0 with private keys or gaussian noise (the chance a "
                                           "threshold or the Gaussian's tail gives away one person)", v["delta"])
    per = {k: int(number(v.get(k, 1), f"algorithm.{k}", 1, whole=True, what="a whole number >= 1"))
           for k in ("groups_per_person", "rows_per_group")}
    return Options(epsilon, delta, measures, keys, per["groups_per_person"], per["rows_per_group"], noise)


def _list(value: Any) -> list:
    if not isinstance(value, list) or not value:
        raise SpecError("algorithm.measures", "must be a non-empty list (count, {mean: COLUMN, bounds: [lo, hi]}, ...)",
                        value)
    return value


def _measure(value: Any, where: str) -> Measure:
    if value == "count" or value == {"count": True}:
        return Measure("count")
    if not isinstance(value, dict) or len(set(value) & {"sum", "mean"}) != 1 or set(value) - {"sum", "mean", "bounds"}:
        raise SpecError(where, "must be count, {sum: COLUMN, bounds: [lo, hi]} or {mean: COLUMN, bounds: [lo, hi]}",
                        value)
    kind = "sum" if "sum" in value else "mean"
    bounds = value.get("bounds")
    if not isinstance(bounds, list) or len(bounds) != 2:
        raise SpecError(f"{where}.bounds", "is required: [lo, hi], the range each value is clamped to (its "
                                           "sensitivity; never read from the data)", bounds)
    lo, hi = (float(number(b, f"{where}.bounds", what="a finite number")) for b in bounds)
    if not lo < hi:
        raise SpecError(f"{where}.bounds", "must be [lo, hi] with lo < hi", bounds)
    return Measure(kind, str(value[kind]), (lo, hi))


def _keys(value: Any, quasi: set[str]) -> dict[str, tuple] | None:
    if value == "private":
        return None
    if not isinstance(value, dict) or set(value) != quasi:
        raise SpecError("algorithm.keys", f"must be private, or the public values of every dimension "
                                          f"({', '.join(sorted(quasi))})", value)
    out = {}
    for name, values in value.items():
        if not isinstance(values, list) or not values or len(set(map(repr, values))) < len(values):
            raise SpecError(f"algorithm.keys.{name}", "must be a non-empty list of distinct values", values)
        out[name] = tuple(values)
    return out


def of(plan: Plan) -> Options:
    return options_of(plan, Options)


def pair(name: str, options: Options, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """Each measured column is a numeric column of role sensitive (the values aggregated, never
    published as rows); nothing is passed through (only cells are published)."""
    by_name = {c.name: c for c in columns}
    for i, m in enumerate(options.measures):
        if m.column is None:
            continue
        c = by_name.get(m.column)
        if c is None or c.role != "sensitive" or c.type != "numeric":
            raise SpecError(f"algorithm.measures[{i}]", "must name a column with role 'sensitive' and type "
                                                        "'numeric' (the values aggregated)", m.column)
    for c in columns:
        if c.role == "insensitive":
            raise SpecError(f"columns.{c.name}.role", "dp-aggregates publishes cells, no row: a column is a "
                                                      "dimension (quasi), measured (sensitive), the person "
                                                      "(individual) or left out (identifier)", c.role)
