"""Paper 002's ``algorithm:`` options and pairing rules: the MSB algorithms publish anatomy
tables under one model over every sensitive attribute, given alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.families.anatomy.models import LslDiversity, MultiLDiversity
from anonymizer.families.base import options_of
from anonymizer.numbers import number

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.plan import Plan
    from anonymizer.spec.types import Column


#: the JSON Schema of each option (:mod:`anonymizer.spec.schema`)
SCHEMA = {"batch": {"anyOf": [{"const": "exact"}, {"type": "number", "exclusiveMinimum": 0, "maximum": 1}],
                    "default": 0.2, "description": "the greedy's steps: 'exact' or a fraction in (0, 1]"}}


@dataclass(frozen=True)
class Options:
    """``batch``: ``"exact"`` (one record at a time) or the fraction of the remaining records
    a greedy step may place (:mod:`anonymizer.families.anatomy.greedy`). The MSB algorithms
    also order ties between sensitive vectors by the release's seed (a keyed hash of the
    vector; without a seed, the vectors' sort order, as in the paper's examples)."""

    batch: str | float = 0.2


def parse(name: str, v: dict, quasi: set[str], seed: int | None) -> Options:
    batch = v.get("batch", 0.2)
    if batch != "exact":
        number(batch, "algorithm.batch", 0, 1, low_open=True, what="'exact' or a fraction in (0, 1]")
    return Options(batch if batch == "exact" else float(batch))


def of(plan: Plan) -> Options:
    return options_of(plan, Options)


def pair(name: str, options: Options, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """An MSB algorithm takes exactly one model over all sensitive attributes (L_sl- or
    multi-attribute l-diversity, Definitions 8 and 11), and at least one sensitive column."""
    multi = [i for i, m in enumerate(models) if isinstance(m, (LslDiversity, MultiLDiversity))]
    if not multi:
        raise SpecError("models", f"{name} needs a model over all sensitive attributes: "
                                  "lsl-diversity or multi-l-diversity (paper 002)")
    if len(models) > 1:
        at = next((i for i in range(len(models)) if i != multi[0]), multi[0])
        raise SpecError(f"models[{at}]", "a model over several sensitive attributes is the only model of an "
                                         "anatomy release (paper 002); give it alone")
    if not any(c.role == "sensitive" for c in columns):
        raise SpecError(f"models[{multi[0]}]", "needs at least one column with role 'sensitive'")
