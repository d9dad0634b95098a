"""Paper 000's pairing rules: one k-anonymity for the local equivalence groups and one bucket
principle per attribute holding sensitive values: l-unique (frequency l-diversity, Corollary
2), entropy l-diversity (footnote 1) or t-closeness (section 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.errors import SpecError
from anonymizer.models import EntropyLDiversity, KAnonymity, TCloseness
from anonymizer.families.lgb.models import LUnique

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.spec.types import Algorithm, Column, ReleaseSpec


def pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """The LGB algorithms take exactly one k-anonymity and bucket principles (l-unique,
    entropy-l-diversity, t-closeness) for the attributes holding sensitive values (section 4,
    footnote 1)."""
    ks = [i for i, m in enumerate(models) if m.sensitive is None and not isinstance(m, LUnique)]
    if len(ks) != 1 or not isinstance(models[ks[0]], KAnonymity):
        raise SpecError("models", f"{algorithm.name} needs exactly one k-anonymity (for the local equivalence "
                                  "groups) besides its bucket principles")
    protected = {c.name for c in columns if c.flag or c.role == "sensitive"}
    named: set[str] = set()
    for i, m in enumerate(models):
        if i in ks:
            continue
        if not isinstance(m, (LUnique, EntropyLDiversity, TCloseness)):
            raise SpecError(f"models[{i}]", f"{algorithm.name} protects local buckets with l-unique, "
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
        raise SpecError("columns", f"{algorithm.name} needs sensitive values: give a quasi column a 'flag' "
                                   "or a column the role 'sensitive'")


def ungated(spec: ReleaseSpec) -> str | None:
    """Why the cross-version gate cannot read a release of this spec, or ``None``. It
    follows one sensitive column's buckets per person (:mod:`anonymizer.families.lgb.invariance`):
    a bucket publishes no box, so without ``history.person`` nothing compares two versions,
    and flagged QIs or a second sensitive column have no one bucket per person."""
    if spec.history.person is None:
        return "the lgb family's buckets publish no box, so its gate needs history.person"
    if any(c.flag for c in spec.columns) or len(spec.sensitive) != 1:
        return "the lgb family's gate follows one sensitive column with no flagged QI"
    return None
