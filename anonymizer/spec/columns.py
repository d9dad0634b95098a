"""``columns:`` and ``models:`` of a spec: roles, types, hierarchies, orders, flags, domains,
security levels (paper 002), and the privacy models with the columns they name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonymizer.errors import SpecError
from anonymizer.hierarchy.spec import check_role, parse_hierarchy
from anonymizer.families import build_model
from anonymizer.models import PrivacyModel
from anonymizer.numbers import is_number
from anonymizer.fields import mapping_field, name_field
from anonymizer.spec.types import Column, Security


def parse_columns(value: Any, base: Path) -> tuple[Column, ...]:
    """The ``columns:`` of a spec that fits its schema (:mod:`.schema`): what a schema cannot
    check (a name given twice, a feature that does not fit the role, the flag columns)."""
    if not isinstance(value, dict) or not value:
        raise SpecError("columns", "must map each column name to its role", value)
    seen: dict[str, str] = {}
    out = []
    for name, entry in value.items():
        where = f"columns.{name}"
        name = name_field(name, "columns")
        if name.lower() in seen:
            raise SpecError(where, f"duplicates column {seen[name.lower()]!r} (names are case-insensitive)")
        seen[name.lower()] = name
        if isinstance(entry, str):
            entry = {"role": entry}
        e = mapping_field(entry, where, {"role", "type", "hierarchy", "order", "security", "flag", "domain"})
        role: str = e["role"]   # one of ROLES, and the type one of TYPES: the spec's schema says so
        ctype: str | None = e.get("type")
        order = e.get("order")
        if order is not None:
            if not isinstance(order, list) or not order or len(set(map(str, order))) != len(order):
                raise SpecError(f"{where}.order", "must be a list of distinct values", order)
            order = tuple(str(o) for o in order)
        hierarchy = parse_hierarchy(e.get("hierarchy"), f"{where}.hierarchy", base) if "hierarchy" in e else None
        if order and role != "quasi":
            raise SpecError(f"{where}.order", "only quasi-identifiers take an order")
        if order and hierarchy:
            raise SpecError(f"{where}.order", "is implied by the hierarchy; give one or the other")
        if hierarchy:
            check_role(hierarchy, f"{where}.hierarchy", role, ctype)
        security = _security(e["security"], f"{where}.security", role) if "security" in e else None
        flag = _flag_column(e["flag"], f"{where}.flag", role) if "flag" in e else None
        domain = _domain(e["domain"], f"{where}.domain", role, ctype) if "domain" in e else None
        out.append(Column(name, role, ctype, hierarchy, order, security, flag, domain))
    flags = {c.flag.lower(): c.name for c in out if c.flag}
    for c in out:
        if c.name.lower() in flags:
            raise SpecError(f"columns.{c.name}", f"is the flag of {flags[c.name.lower()]!r}: a flag column takes "
                                                 "no role of its own")
    if len(flags) < sum(1 for c in out if c.flag):
        raise SpecError("columns", "two columns name the same flag column")
    individuals = [c.name for c in out if c.role == "individual"]
    if len(individuals) > 1:
        raise SpecError(f"columns.{individuals[1]}.role", f"only one column identifies individuals "
                                                          f"({individuals[0]!r} already does)")
    return tuple(out)


def _domain(value: Any, where: str, role: str, ctype: str | None) -> tuple[float, float]:
    """``domain: [L, U]``: a numeric QI's domain when it is wider than the values present (paper
    004's running example takes Age in [30, 39]); normalizes losses (Eq. 11) and NCP."""
    if role != "quasi" or ctype == "categorical":
        raise SpecError(where, "only numeric quasi columns take a domain [low, high]")
    if (not isinstance(value, list) or len(value) != 2
            or not all(is_number(x) for x in value) or value[0] > value[1]):
        raise SpecError(where, "must be [low, high], two numbers with low <= high", value)
    return float(value[0]), float(value[1])


def _flag_column(value: Any, where: str, role: str) -> str:
    """``flag: <column>``: per-cell sensitivity of a quasi column (paper 000, Definitions 1 to 3)."""
    if role != "quasi":
        raise SpecError(where, "only quasi columns take a flag (a 'sensitive' column is sensitive in every row)")
    return name_field(value, where)


def _security(value: Any, where: str, role: str) -> Security:
    """``security: 1`` or ``security: {default: 1, values: {Flu: 0, HIV: 2}}`` (paper 002, section 3)."""
    if role != "sensitive":
        raise SpecError(where, "only sensitive columns have security levels")
    if not isinstance(value, dict):
        value = {"default": value}
    v = mapping_field(value, where, {"default", "values"})
    default = _level(v.get("default", 2), f"{where}.default")
    values = v.get("values", {})
    if not isinstance(values, dict):
        raise SpecError(f"{where}.values", "must map sensitive values to levels 0, 1 or 2", values)
    return Security(default, {str(k): _level(x, f"{where}.values.{k}") for k, x in values.items()})


def _level(value: Any, where: str) -> int:
    if isinstance(value, bool) or value not in (0, 1, 2):
        raise SpecError(where, "must be a security level: 0 (none), 1 (low) or 2 (high)", value)
    return int(value)


def parse_models(value: Any, columns: tuple[Column, ...]) -> tuple[PrivacyModel, ...]:
    if not isinstance(value, list) or not value:
        raise SpecError("models", "must be a non-empty list of privacy models", value)
    models = tuple(build_model(entry, f"models[{i}]") for i, entry in enumerate(value))
    by_name = {c.name: c for c in columns}
    for i, m in enumerate(models):
        if m.sensitive is None or (by_name.get(m.sensitive) and by_name[m.sensitive].flag):
            continue
        col = by_name.get(m.sensitive)
        if col is None or col.role != "sensitive":
            raise SpecError(f"models[{i}].sensitive", "must name a column with role 'sensitive' or a flag", m.sensitive)
        if getattr(m, "distance", None) == "hierarchical" and (col.hierarchy is None or col.hierarchy.kind != "csv"):
            raise SpecError(f"models[{i}].distance", f"hierarchical needs a hierarchy file on column {col.name!r}")
    return models
