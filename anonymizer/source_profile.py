"""What a release reads of its source before any work, in one pass over its rows
(``prepare/source_profile.sql.j2``; on Spark the pass that also collapses the QIs to their
distinct vectors, ``hierarchy/qi_values.sql.j2``, summed by ``prepare/values_profile.sql.j2``): the rows, the NULLs and non-finite values per column, and
the fingerprint of its content (:func:`fingerprint`: an unchanged source publishes nothing
new). :func:`check_profile` refuses what :func:`anonymizer.plan.prepare` cannot release."""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.hierarchy.spec import FLOAT_TYPES
from anonymizer.spec.types import Column, ReleaseSpec


def fingerprint(engine: Engine, columns: tuple[Column, ...], source: str) -> tuple[int, str]:
    """The source's rows and a digest of its count and content in the spec's (resolved)
    ``columns`` (flag columns included); the audit keeps the digest only (``fingerprint.sql.j2``).
    A release reads it with the rest of :class:`SourceProfile`, in the same pass."""
    rows, digest = engine.one("publish/fingerprint.sql.j2", source=source, columns=_printed(columns))
    return rows, digest


def _printed(columns: tuple[Column, ...]) -> list[str]:
    """The columns a source's fingerprint reads (quoted): the spec's, and their flag columns."""
    return [ident(c.name) for c in columns] + [ident(c.flag) for c in columns if c.flag]


@dataclass(frozen=True)
class SourceProfile:
    """What a release reads of its source in one pass (``prepare/source_profile.sql.j2``):
    its rows, the NULLs and the non-finite values per column that has any, and the digest of
    :func:`fingerprint`."""

    rows: int
    nulls: dict[str, int]
    nonfinite: dict[str, int]
    digest: str
    #: the work table of the QIs' distinct vectors read in the same pass (``qi_values.sql.j2``),
    #: where the engine builds hierarchies over them (Spark), with the columns of
    #: :func:`cell_columns`; ``None``: not written
    values: str | None = None


def cell_columns(spec: ReleaseSpec) -> list[str] | None:
    """The columns the QIs' distinct vectors are grouped by beside the QIs: a Mondrian
    release's cells keep the sensitive columns its models read, so that they come out of the
    same pass, as an aggregate of the vectors (:func:`~anonymizer.families.generalized.mondrian.vectors_to_cells`);
    ``None``: the release's algorithm collapses no rows to cells."""
    if spec.algorithm.name != "mondrian":
        return None
    quasi = {c.name for c in spec.quasi}
    return sorted({m.sensitive for m in spec.models if m.sensitive is not None} - quasi)


def vectors_first(engine: Engine, spec: ReleaseSpec) -> bool:
    """Whether a release reads its QIs' distinct vectors in the profile's pass and builds its
    hierarchies over them (:func:`~anonymizer.hierarchy.build.building`) instead of over the
    rows: on an engine whose aggregates run apart from its rows (Spark), and for a
    differentially private release, whose source is a view that leaves out the rows its
    hierarchy files do not cover (:mod:`anonymizer.dp.covered`), evaluated again by each pass
    over it; never where a model reads the population."""
    apart = engine.capabilities.aggregates_apart or (spec.target.budget is not None and bool(spec.quasi))
    return apart and not any(m.needs_population for m in spec.models)


def profile_source(engine: Engine, spec: ReleaseSpec, source: str) -> SourceProfile:
    """The :class:`SourceProfile` of ``source`` for the resolved ``spec``: the columns whose
    NULLs a release suppresses or refuses (QIs, sensitive, individual, flags, the person key)."""
    cols = ([c.name for c in spec.columns if c.role in ("quasi", "sensitive", "individual")]
            + [c.flag for c in spec.columns if c.flag]
            + [c.name for c in spec.columns if c.name == spec.history.person and c.role != "individual"])
    types = engine.columns(source)
    floats = [c for c in cols if types[c].upper() in FLOAT_TYPES]
    inputs = {"columns": [ident(c) for c in cols], "floats": [ident(c) for c in floats], "printed": _printed(spec.columns)}
    values, grouped = None, [c.name for c in spec.quasi] + (cell_columns(spec) or [])
    if vectors_first(engine, spec):
        values = engine.work("qi_values")   # the hierarchies' pass over the rows (hierarchy/build.py: building)
        others = [c for c in cols if c not in grouped]   # a grouped column's NULLs are its NULL vectors' rows
        engine.run("hierarchy/qi_values.sql.j2", target=values, source=source, columns=[ident(c) for c in grouped],
                   profile=dict(inputs, columns=[ident(c) for c in others]))
        nulls = [{"qi": ident(c)} if c in grouped else {"i": others.index(c)} for c in cols]
        with engine.for_aggregate(values) as on:   # Spark: on its driver, up to its bound
            row = on.one("prepare/values_profile.sql.j2", values=values, nulls=nulls, floats=len(floats))
    else:
        row = engine.one("prepare/source_profile.sql.j2", source=source, **inputs)
    counts = row[1:len(cols) + 1], row[len(cols) + 1:len(cols) + 1 + len(floats)]
    return SourceProfile(row[0], {c: n for c, n in zip(cols, counts[0]) if n},
                         {c: n for c, n in zip(floats, counts[1]) if n}, row[-1], values)


def check_profile(spec: ReleaseSpec, source: str, profile: SourceProfile) -> None:
    """Refuse a source :func:`prepare` cannot release: empty, with non-finite values, fewer
    rows than k, or NULLs under ``nulls: error``. A DP release is refused none of these on its
    rows (whether it stops must not tell a fact of one row): it runs its mechanism on an empty
    table or one under k, whose output is then empty; SafePub leaves a NaN or an infinity out
    (:mod:`anonymizer.dp.covered`) and dp-aggregates clamps it to the bounds, NaN to the upper."""
    rows, nulls = profile.rows, profile.nulls
    if rows == 0 and spec.budget is None:   # a DP release runs on no rows too (dp/covered.py): refusing tells of them
        raise DataError(source, "is empty: there is nothing to anonymize")
    if profile.nonfinite and spec.budget is None:
        listing = ", ".join(f"{c} ({n} rows)" for c, n in profile.nonfinite.items())
        raise DataError(source, f"NaN or infinity in {listing}: a value to generalize must be a finite number; "
                                "set those values to NULL (with 'nulls: suppress') or clean them")
    if spec.k > rows and spec.budget is None:   # a DP release runs: its mechanism's output is then empty (and spent)
        raise SpecError("models", f"k={spec.k} is larger than the table ({rows} rows)", spec.k)
    if nulls and spec.nulls == "error":
        listing = ", ".join(f"{n} ({c} NULLs)" for n, c in nulls.items())
        raise DataError(source, f"NULLs in {listing}; clean them, or set 'nulls: suppress' to suppress those rows")
