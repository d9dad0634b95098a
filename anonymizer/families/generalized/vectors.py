"""Mondrian's cells (Alg. 3, line 4: partition_set = {T}, the rows collapsed to one cell per
vector of QI codes and sensitive values) from the source's distinct vectors instead of a pass
over the rows.

On an engine whose aggregates run apart from its rows (Spark), the source's profile groups the
rows by their QIs and the sensitive columns a Mondrian release's models read, with the rows
holding each (:func:`~anonymizer.source_profile.cell_columns`, ``hierarchy/qi_values.sql.j2``),
in the pass that also builds the hierarchies. Where ``base`` left no row out (no NULL where it
filters), each vector stands for its rows in ``base``: coded as ``base`` codes a row
(``prepare/_code.sql.j2``) and summed by cell (``mondrian/cells_of_vectors.sql.j2``), the
vectors give ``base``'s cells, an aggregate of an aggregate, and the release reads its rows
once fewer. The driver copied the vectors for the hierarchies, so their cells are summed there
(:meth:`~anonymizer.engine.session.Engine.for_aggregate`): no Spark job reads them again.
"""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.plan import Plan


def usable_vectors(engine: Engine, plan: Plan, sens: list[str], partition_by: str | None) -> str | None:
    """The table of ``plan.vectors`` where they stand for ``base``'s rows
    (:class:`~anonymizer.plan.Vectors`) and give the cells of the sensitive columns ``sens``
    (quoted internal names, ``"s0"``): no partition column splits the cells, ``plan.base`` is
    the base they stand for, not a subset of it (the rows m-invariance places anew), and they
    hold the columns ``sens`` name; else ``None`` (:func:`~.steps.measure` drops them with base)."""
    vectors = plan.vectors
    if vectors is None or partition_by is not None or plan.base != vectors.base:
        return None
    held = {ident(c) for c in engine.columns(vectors.table)}
    return vectors.table if {ident(named) for named in _named(plan, sens)} <= held else None


def vectors_to_cells(on: Engine, plan: Plan, sens: list[str], raw: str) -> None:
    """Write ``raw`` (``mondrian/cells.sql.j2``'s cells: ``pid``, the QI codes, ``sens``, ``n``)
    from ``plan.vectors`` (:func:`usable_vectors`) on ``on``: the engine that holds them for
    aggregates (Spark: its driver, where they were read once for the hierarchies; no Spark job
    then). They are read once, then dropped: a later run of the algorithm reads base."""
    vectors = plan.vectors
    assert vectors is not None
    columns = [{"col": ident(named), "name": s} for s, named in zip(sens, _named(plan, sens))]
    on.run("families/generalized/mondrian/cells_of_vectors.sql.j2", vectors.lists or None, target=raw,
           vectors=vectors.table, qis=vectors.qis, sens=columns)
    on.release_tables(vectors.table)   # on both sides where the driver copied them
    plan.vectors = None


def _named(plan: Plan, sens: list[str]) -> list[str]:
    named = {ident(k.internal): k.column.name for k in plan.sensitive}
    return [named[s] for s in sens]
