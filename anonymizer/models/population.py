"""The population table of k-map and delta-presence in a release, coded as its input is.

A release's source is the *research sample*; a model ``{type: k-map, k: 5, population: t}``
or ``{type: delta-presence, dmin: 0, dmax: 0.5, population: t}`` names a table ``t`` with the
same quasi-identifier columns holding raw values (the data set the sample was drawn from),
as ARX 3.9.2 takes the whole data set as the population and a ``DataSubset`` as the sample
(``org.deidentifier.arx.criteria.KMap``, ``DPresence``). The population is generalized with
the release's own hierarchies, at the release's levels, so a class of the sample and the
population class it falls in are the same hierarchy nodes:

- :func:`coding_source`, at planning: each population table exists and has the QI columns
  (an error names ``models[i].population``); each QI's domain and hierarchy are then built
  over the sample's and the populations' values together (ARX builds them over the whole data
  set), so every population value has its nodes;
- :func:`code_populations`: each population coded (``models/population_codes.sql.j2``) and
  counted per code vector, refused when it does not hold the sample (a row vector it lacks or
  holds fewer rows of: ``models/population_gaps.sql.j2``);
- :func:`classes_sql`: its classes at a level vector ``(gid, F, sampled)``
  (``models/population_classes.sql.j2``), what the model templates read as ``pop``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.hierarchy.spec import is_numeric_type

if TYPE_CHECKING:
    from anonymizer.models.base import PrivacyModel
    from anonymizer.plan import Plan


def relation_of(model: PrivacyModel) -> str:
    """The quoted table a population model names (``[catalog.][schema.]table``)."""
    return table(*getattr(model, "population").split("."))


def coding_source(engine: Engine, models: Sequence[PrivacyModel], source: str, quasi: Sequence[str]) -> str:
    """The relation whose values the QIs' domains and hierarchies are built over: ``source``,
    or, when a model names a population, ``source`` and every population's QI columns
    together (``UNION ALL``). Each population is checked: it exists and has every QI column
    (matched case-insensitively) of a type that fits the source's (the same, or both numeric).

    Raises:
        SpecError: naming ``models[i].population``.
    """
    mine = engine.columns(source)
    parts = [f"SELECT {', '.join(ident(q) for q in quasi)} FROM {source}"]
    for i, m in enumerate(models):
        if not m.needs_population:
            continue
        where, shown = f"models[{i}].population", getattr(m, "population")
        try:
            theirs = engine.columns(relation_of(m), shown)
        except DataError as exc:
            raise SpecError(where, f"names no table that can be read ({exc})", shown) from exc
        by_lower = {n.lower(): n for n in theirs}
        cols = []
        for q in quasi:
            real = by_lower.get(q.lower())
            if real is None:
                raise SpecError(where, f"table {shown} has no column {q!r} (a quasi-identifier of the release); "
                                       f"it has {', '.join(map(repr, theirs))}", shown)
            a, b = mine[q].upper(), theirs[real].upper()
            if a != b and not (is_numeric_type(a) and is_numeric_type(b)):
                raise SpecError(where, f"column {real!r} of {shown} is {b}, the source's {q!r} is {a}: give the "
                                       "population's raw values, as the source holds them", shown)
            cols.append(f"{ident(real)} AS {ident(q)}")
        parts.append(f"SELECT {', '.join(cols)} FROM {relation_of(m)}")
    return source if len(parts) == 1 else "(" + "\nUNION ALL\n".join(parts) + ")"


def code_populations(engine: Engine, plan: Plan) -> dict[int, str]:
    """Each population model's index -> its coded population (a work table per table named,
    ``models/population_codes.sql.j2``), checked to hold ``plan.base``, the coded sample.

    Raises:
        DataError: naming ``models[i].population``, when the population lacks rows of the sample.
    """
    coded: dict[str, str] = {}
    out = {}
    qis = [{"code": ident(q.code), "dom": q.dom} for q in plan.qis]
    for i, m in enumerate(plan.models):
        if not m.needs_population:
            continue
        rel = relation_of(m)
        if rel not in coded:
            cols = engine.columns(rel)
            by_lower = {n.lower(): n for n in cols}
            target = engine.work(f"population{len(coded)}")
            engine.run("models/population_codes.sql.j2", target=target, population=rel, base=plan.base,
                       qis=[{**q, "col": ident(by_lower[p.name.lower()])} for q, p in zip(qis, plan.qis)])
            gaps, rows = engine.one("models/population_gaps.sql.j2", base=plan.base, codes=target, qis=qis)
            if gaps:
                raise DataError(f"models[{i}].population", f"table {getattr(m, 'population')} does not hold the "
                                f"release's source (the research sample): it lacks, or holds fewer rows of, {gaps} "
                                f"of its QI value combinations ({rows} rows)")
            coded[rel] = target
        out[i] = coded[rel]
    return out


def classes_sql(engine: Engine, plan: Plan, i: int) -> str:
    """Model ``i``'s population classes ``(gid, F, sampled)`` at the level vector bound as
    ``$level<j>`` (``models/population_classes.sql.j2``)."""
    return engine.sql("models/population_classes.sql.j2", codes=plan.populations[i],
                      qis=[{"code": ident(q.code), "hier": q.hier} for q in plan.qis])
