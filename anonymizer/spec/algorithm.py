"""``algorithm:`` of a spec: the name, the options its family declares, and how the
algorithm pairs with the models and columns (the family's rules, then what every family
declares: :class:`anonymizer.families.Family`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonymizer import families
from anonymizer.errors import SpecError
from anonymizer.families.base import Family
from anonymizer.models import PrivacyModel
from anonymizer.fields import mapping_field
from anonymizer.spec.seed import parse_seed
from anonymizer.spec.types import Algorithm, Column


def parse_algorithm(value: Any, columns: tuple[Column, ...], base: Path = Path(".")) -> Algorithm:
    """The algorithm's name and seed (:mod:`anonymizer.spec.seed`; ``base``: the spec's folder,
    where a key file's path starts); its family parses the options the name reads."""
    if isinstance(value, str):
        value = {"name": value}
    v = mapping_field(value, "algorithm", {"name"} | {o for f in families.FAMILIES for a in f.algorithms.values()
                                                      for o in a})
    name = str(v.get("name", "mondrian")).replace("_", "-")
    if name not in families.ALGORITHMS:
        raise SpecError("algorithm.name", f"must be one of {', '.join(families.ALGORITHMS)}", v.get("name"))
    family = families.of(name)
    allowed = family.algorithms[name]
    for key in sorted(set(v) - {"name"} - allowed):
        raise SpecError(f"algorithm.{key}", f"does not apply to {name} (its options: {', '.join(sorted(allowed))})")
    seed, secret = parse_seed(v.get("seed"), base)
    quasi = {c.name for c in columns if c.role == "quasi"}
    options = {k: x for k, x in v.items() if k not in ("name", "seed")}
    return Algorithm(name, family.options().parse(name, options, quasi, seed), seed, secret)


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """The algorithm's family pairs with the models and columns: its own rules first
    (``families/<family>/options.py``), then what every family declares: the models it
    accepts and the column features (a ``flag``, the role ``individual``) only some read."""
    family = algorithm.family
    family.options().pair(algorithm.name, algorithm.options, models, columns)
    _reads(family, algorithm, "flag", [f"columns.{c.name}.flag" for c in columns if c.flag],
           "per-cell flags are read by")
    taken = family.models_of(algorithm.name)
    for i, m in enumerate(models):
        if m.spec_type not in taken:
            raise SpecError(f"models[{i}]", f"{m.spec_type} is not a model of {algorithm.name} (it takes "
                                            f"{', '.join(sorted(taken))}); {m.spec_type} is reached by "
                                            f"{families.algorithms_accepting(m.spec_type)}")
    _reads(family, algorithm, "individual", [f"columns.{c.name}.role" for c in columns if c.role == "individual"],
           "role 'individual' is read by")


def _reads(family: Family, algorithm: Algorithm, feature: str, where: list[str], what: str) -> None:
    """Refuse a column feature the algorithm's family does not read, naming who does."""
    if where and feature not in family.reads:
        raise SpecError(where[0], f"{what} the {families.names(families.reading(feature))} algorithms, "
                                  f"not by {algorithm.name}")
