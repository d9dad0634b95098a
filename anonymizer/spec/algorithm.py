"""``algorithm:`` of a spec: the name, the options its family declares, and how the
algorithm pairs with the models and columns (the family's rules, then what every family
declares: :class:`anonymizer.families.Family`)."""

from __future__ import annotations

from typing import Any

from anonymizer import families
from anonymizer.errors import SpecError
from anonymizer.families.base import Family
from anonymizer.models import PrivacyModel
from anonymizer.numbers import number
from anonymizer.randomness import SEED_LIMIT
from anonymizer.spec.fields import mapping_field
from anonymizer.spec.types import LABELS, RENUMBER, SCORINGS, SPLITS, TIE_BREAKS, Algorithm, Column


def parse_algorithm(value: Any, columns: tuple[Column, ...]) -> Algorithm:
    if isinstance(value, str):
        value = {"name": value}
    v = mapping_field(value, "algorithm", {"name", "relaxed", "levels", "priorities", "min_level", "scoring", "d", "p",
                                      "presample", "partial", "seed", "batch", "balance", "renumber", "labels",
                                      "tie_break", "split"})
    name = str(v.get("name", "mondrian")).replace("_", "-")
    if name not in families.ALGORITHMS:
        raise SpecError("algorithm.name", f"must be one of {', '.join(families.ALGORITHMS)}", v.get("name"))
    allowed = families.of(name).algorithms[name]
    for key in sorted(set(v) - {"name"} - allowed):
        raise SpecError(f"algorithm.{key}", f"does not apply to {name} (its options: {', '.join(sorted(allowed))})")
    relaxed = _flag(v, "relaxed")
    quasi = {c.name for c in columns if c.role == "quasi"}
    levels = _per_qi(v.get("levels", {}), "algorithm.levels", quasi, int, "a whole number >= 0")
    priorities = _per_qi(v.get("priorities", {}), "algorithm.priorities", quasi, (int, float), "a positive number")
    if any(x <= 0 for x in priorities.values()):
        raise SpecError("algorithm.priorities", "must be positive numbers (v of paper 003, section 3)", priorities)
    min_level = _per_qi(v.get("min_level", {}), "algorithm.min_level", quasi, int, "a whole number >= 0")
    scoring = v.get("scoring", "basic")
    if scoring not in SCORINGS:
        raise SpecError("algorithm.scoring", f"must be one of {', '.join(SCORINGS)}", scoring)
    d = v.get("d")
    if scoring == "eta":
        number(d, "algorithm.d", 0, low_open=True,
               what="a positive finite number (eta scoring's d, paper 003, section 6.2)")
    if scoring != "eta" and d is not None:
        raise SpecError("algorithm.d", "only applies to eta scoring")
    tie_break = v.get("tie_break", "none")
    if tie_break not in TIE_BREAKS:
        raise SpecError("algorithm.tie_break", f"must be one of {', '.join(TIE_BREAKS)}", tie_break)
    if tie_break != "none" and scoring == "basic":
        raise SpecError("algorithm.tie_break", "only applies to eta and log scoring (basic scores tie only "
                                               "between tables its own key cannot tell apart)", tie_break)
    p = v.get("p", 0)
    number(p, "algorithm.p", 0, whole=True, what="a whole number >= 0")
    seed = v.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT):
        raise SpecError("algorithm.seed", "must be a whole number in [0, 2**63) for a reproducible (seeded) release, "
                                          "or left out for a secret one", seed)
    batch = v.get("batch", 0.2)
    if batch != "exact":
        number(batch, "algorithm.batch", 0, 1, low_open=True, what="'exact' or a fraction in (0, 1]")
    renumber = v.get("renumber", "random")
    if renumber not in RENUMBER:
        raise SpecError("algorithm.renumber", f"must be one of {', '.join(RENUMBER)} (how Id_num is assigned)", renumber)
    if renumber == "appearance" and seed is None:
        raise SpecError("algorithm.renumber", "appearance numbers individuals in the source's row order, which links "
                                              "Id_num to the source: it reproduces the paper's examples and needs a "
                                              "seed (a reproducible run); a release to share keeps 'random'", renumber)
    labels = v.get("labels", "hierarchy")
    if labels not in LABELS:
        raise SpecError("algorithm.labels", f"must be one of {', '.join(LABELS)} (how Mondrian labels a class on a "
                                            "QI with a hierarchy)", labels)
    split = v.get("split", "median")
    if split not in SPLITS:
        raise SpecError("algorithm.split", f"must be one of {', '.join(SPLITS)} (how Mondrian cuts a partition)", split)
    if split == "loss" and (relaxed or labels != "values"):
        raise SpecError("algorithm.split", "loss chooses strict cuts by the loss of value labels: it needs "
                                           "labels: values and no relaxed partitioning", split)
    return Algorithm(name, relaxed, levels, priorities, min_level, scoring, float(d or 0.0), p,
                     _presample(v.get("presample"), quasi), _flag(v, "partial"), seed,
                     batch if batch == "exact" else float(batch), _flag(v, "balance", True), renumber, labels, tie_break,
                     split)


def _flag(v: dict, key: str, default: bool = False) -> bool:
    value = v.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"algorithm.{key}", "must be true or false", value)
    return value


def _per_qi(value: Any, where: str, quasi: set[str], kind, what: str) -> dict:
    """A mapping from quasi-identifier names to numbers of ``kind`` (>= 0)."""
    if not isinstance(value, dict):
        raise SpecError(where, "must map quasi-identifiers to values", value)
    for q, x in value.items():
        if q not in quasi:
            raise SpecError(f"{where}.{q}", "is not a quasi-identifier")
        if not isinstance(x, kind):
            raise SpecError(f"{where}.{q}", f"must be {what}", x)
        number(x, f"{where}.{q}", 0, whole=kind is int, what=what)
    return dict(value)


def _presample(value: Any, quasi: set[str]) -> dict | None:
    """PrivacyFrost2's pre-sampling (paper 003, section 5.1): threshold levels u and k'."""
    if value is None:
        return None
    v = mapping_field(value, "algorithm.presample", {"levels", "k"})
    k = v.get("k")
    number(k, "algorithm.presample.k", 1, whole=True, what="a whole number >= 1 (k' of paper 003, section 5.1)")
    levels = v.get("levels", {})
    if isinstance(levels, int) and not isinstance(levels, bool):
        levels = {q: levels for q in quasi}
    return {"levels": _per_qi(levels, "algorithm.presample.levels", quasi, int, "a whole number >= 0"), "k": k}


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """The algorithm's family pairs with the models and columns: its own rules first
    (``families/<family>/options.py``), then what every family declares: the models it
    accepts and the column features (a ``flag``, the role ``individual``) only some read."""
    family = algorithm.family
    family.options().pair(algorithm, models, columns)
    _reads(family, algorithm, "flag", [f"columns.{c.name}.flag" for c in columns if c.flag],
           "per-cell flags are read by")
    for i, m in enumerate(models):
        if m.spec_type not in family.models:
            raise SpecError(f"models[{i}]", f"{m.spec_type} is not a model of {algorithm.name} (it takes "
                                            f"{', '.join(sorted(family.models))}); {m.spec_type} is reached by "
                                            f"{families.names(families.accepting(m.spec_type))}")
    _reads(family, algorithm, "individual", [f"columns.{c.name}.role" for c in columns if c.role == "individual"],
           "role 'individual' is read by")


def _reads(family: Family, algorithm: Algorithm, feature: str, where: list[str], what: str) -> None:
    """Refuse a column feature the algorithm's family does not read, naming who does."""
    if where and feature not in family.reads:
        raise SpecError(where[0], f"{what} the {families.names(families.reading(feature))} algorithms, "
                                  f"not by {algorithm.name}")
