"""Paper 000's pairing rules: one k-anonymity for the local equivalence groups and one bucket
principle per attribute holding sensitive values: l-unique (frequency l-diversity, Corollary
2), entropy l-diversity (footnote 1) or t-closeness (section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.families.base import options_of
from anonymizer.fields import flag
from anonymizer.models import EntropyLDiversity, KAnonymity, TCloseness
from anonymizer.families.lgb.models import LUnique

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.plan import Plan
    from anonymizer.spec.types import Column
    from anonymizer.target import History


#: LGB_NCP's objectives on a categorical QI: the code range covering its values, or their set
OBJECTIVES = ("range", "set")
#: the JSON Schema of each option (:mod:`anonymizer.spec.schema`)
SCHEMA = {"balance": {"type": "boolean", "default": True,
                      "description": "LGB_NCP: a half short of k rows borrows cells (false: one group)"},
          "objective": {"enum": list(OBJECTIVES), "default": "range",
                        "description": "LGB_NCP: the NCP its splits minimize on a categorical QI: the code "
                                       "range covering the values (range) or the value set published (set)"}}


@dataclass(frozen=True)
class Options:
    """``balance`` (LGB_NCP): a half short of k rows borrows cells as Xu et al.'s top-down
    does; ``false``: the set becomes one group, Algorithm 4 lines 18-20 read literally.
    ``objective`` (LGB_NCP): how its distance (find_seeds, divide_table) and borrowing count
    a categorical QI's NCP (paper 000 Sec. 3.2.2, NCP_Acat): ``range``, the codes from the
    least to the largest value; ``set``, the values themselves, as the published value set
    and the reported NCP count them (:mod:`anonymizer.families.lgb.ncp`)."""

    balance: bool = True
    objective: str = "range"


def parse(name: str, v: dict, quasi: set[str], seed: int | None) -> Options:
    objective = v.get("objective", "range")
    if objective not in OBJECTIVES:
        raise SpecError("algorithm.objective", f"must be one of {', '.join(OBJECTIVES)}", objective)
    return Options(flag(v.get("balance", True), "algorithm.balance"), objective)


def of(plan: Plan) -> Options:
    return options_of(plan, Options)


def pair(name: str, options: Options, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """The LGB algorithms take exactly one k-anonymity and bucket principles (l-unique,
    entropy-l-diversity, t-closeness) for the attributes holding sensitive values (section 4,
    footnote 1)."""
    ks = [i for i, m in enumerate(models) if m.sensitive is None and not isinstance(m, LUnique)]
    if len(ks) != 1 or not isinstance(models[ks[0]], KAnonymity):
        raise SpecError("models", f"{name} needs exactly one k-anonymity (for the local equivalence "
                                  "groups) besides its bucket principles")
    protected = {c.name for c in columns if c.flag or c.role == "sensitive"}
    named: set[str] = set()
    for i, m in enumerate(models):
        if i in ks:
            continue
        if not isinstance(m, (LUnique, EntropyLDiversity, TCloseness)):
            raise SpecError(f"models[{i}]", f"{name} protects local buckets with l-unique, "
                                            f"entropy-l-diversity or t-closeness (paper 000, section 4 and "
                                            f"footnote 1), not {m}")
        if m.sensitive is not None:
            if m.sensitive not in protected:
                raise SpecError(f"models[{i}].sensitive", "must name a column with role 'sensitive' or a flag",
                                m.sensitive)
            if m.sensitive in named:
                raise SpecError(f"models[{i}].sensitive", "has two bucket principles; give one", m.sensitive)
            named.add(m.sensitive)
    defaults = [i for i, m in enumerate(models) if isinstance(m, LUnique) and m.sensitive is None]
    if len(defaults) > 1:
        raise SpecError(f"models[{defaults[1]}]", "only one l-unique may leave out 'sensitive' (the default)")
    bare = sorted(protected - named)
    if bare and not defaults:
        raise SpecError("models", f"attribute {bare[0]!r} holds sensitive values but no bucket principle "
                                  "protects it: add {type: l-unique, l: ...}")
    if not protected:
        raise SpecError("columns", f"{name} needs sensitive values: give a quasi column a 'flag' "
                                   "or a column the role 'sensitive'")


def ungated(history: History, columns: tuple[Column, ...]) -> str | None:
    """Why the cross-version gate cannot read a release with this ``history`` and these ``columns``, or ``None``. It
    follows one sensitive column's buckets per person (:mod:`anonymizer.families.lgb.invariance`):
    a bucket publishes no box, so without ``history.person`` nothing compares two versions,
    and flagged QIs or a second sensitive column have no one bucket per person."""
    if history.person is None:
        return "the lgb family's buckets publish no box, so its gate needs history.person"
    if any(c.flag for c in columns) or sum(c.role == "sensitive" for c in columns) != 1:
        return "the lgb family's gate follows one sensitive column with no flagged QI"
    return None
