"""Paper 004's pairing rules: one column identifying individuals, one sensitive column, and
exactly one identity-reserved model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.families.base import options_of
from anonymizer.fields import choice
from anonymizer.families.identity_reserved import IR_MODEL_TYPES

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.plan import Plan
    from anonymizer.spec.types import Column
    from anonymizer.target import History

RENUMBER = ("random", "appearance")
#: the JSON Schema of each option (:mod:`anonymizer.spec.schema`)
SCHEMA = {"renumber": {"enum": list(RENUMBER), "default": "random",
                       "description": "how Id_num is assigned: random, or the source's order (needs a seed)"}}


@dataclass(frozen=True)
class Options:
    """``renumber``: how Id_num is assigned: ``random`` (from the release's key) or
    ``appearance`` (the source's row order, which reproduces the paper's examples and links
    Id_num to the source: it needs a seed)."""

    renumber: str = "random"


def parse(name: str, v: dict, quasi: set[str], seed: int | None) -> Options:
    renumber = choice(v.get("renumber", "random"), "algorithm.renumber", RENUMBER, "how Id_num is assigned")
    if renumber == "appearance" and seed is None:
        raise SpecError("algorithm.renumber", "appearance numbers individuals in the source's row order, which links "
                                              "Id_num to the source: it reproduces the paper's examples and needs a "
                                              "seed (a reproducible run); a release to share keeps 'random'", renumber)
    return Options(renumber)


def of(plan: Plan) -> Options:
    return options_of(plan, Options)


def pair(name: str, options: Options, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """DAnonyIR and GeneIR take one column with role ``individual``, one sensitive column
    (section 2.1) and exactly one IR or EIR model (Definitions 2.3, 3.3, 3.4)."""
    if not any(c.role == "individual" for c in columns):
        raise SpecError("columns", f"{name} needs the column that identifies individuals: give it "
                                   "role 'individual' (it is renumbered, never published)")
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    if len(sensitive) != 1:
        raise SpecError("columns", f"{name} protects exactly one sensitive column (paper 004, section 2.1); "
                                   f"found {len(sensitive)}")
    ir_models = [i for i, m in enumerate(models) if m.spec_type in IR_MODEL_TYPES]
    others = [i for i in range(len(models)) if i not in ir_models]
    if others or len(ir_models) != 1:
        where = f"models[{others[0]}]" if others else "models"
        raise SpecError(where, f"{name} takes exactly one identity-reserved model: {', '.join(IR_MODEL_TYPES)}")
    if any(c.flag for c in columns):
        raise SpecError("columns", f"{name} does not read per-cell flags")


def ungated(history: History, columns: tuple[Column, ...]) -> str | None:
    """Why the cross-version gate cannot read a release with this ``history`` and these ``columns``, or ``None``. It follows
    individuals (:mod:`anonymizer.families.identity_reserved.invariance`), so it needs
    ``history.person`` to name the individual column."""
    individual = next((c.name for c in columns if c.role == "individual"), None)
    if history.person is None or history.person != individual:
        return (f"the identity_reserved family's gate follows individuals: set history.person to the individual "
                f"column ({individual!r})")
    return None


def gate_models(model: PrivacyModel, sens: str) -> tuple[tuple[PrivacyModel, ...], int | None]:
    """What the cross-version gate applies to an identity-reserved release, whose published
    unit is an individual and whose value is the individual's list of sensitive values
    (:mod:`anonymizer.families.identity_reserved.invariance`): the models each side of a
    difference must meet, read on individuals and lists, and the fewest candidate lists the
    intersection check requires of each person (``None``: no model bounds them).

    - ``ir-k-anonymity``, ``ir-kl-anonymity``: k individuals per side (and l distinct lists,
      the latter); no bound on candidates: these models let every individual of a class show
      one list (section 5's vulnerable classes), so one version alone may leave one.
    - ``eir-l-diversity``: l distinct lists per side, and l candidate lists (EIR l-diversity
      implies l distinct lists in a class: a hitting set needs no more values than there
      are lists, Theorem 3.1).
    - ``ir-alpha-beta-anonymity``: no list above share beta on a side; no bound on candidates.
    - ``eir-alpha-beta-anonymity``: the same, and 2 candidate lists (no value is held by every
      individual of a class, Theorem 3.2, so a class shows two lists at least).
    """
    from anonymizer.models import AlphaKAnonymity, DistinctLDiversity, KAnonymity
    k = (KAnonymity(model.k),) if hasattr(model, "k") else ()
    if hasattr(model, "l"):
        return (*k, DistinctLDiversity(model.l, sens)), int(model.l) if model.spec_type == "eir-l-diversity" else None
    if hasattr(model, "beta"):
        return (AlphaKAnonymity(float(model.beta), 1, sens),), 2 if model.spec_type.startswith("eir-") else None
    return k, None
