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
once fewer.
"""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.plan import Plan


def vectors_to_cells(engine: Engine, plan: Plan, sens: list[str], raw: str, partition_by: str | None) -> bool:
    """Write ``raw`` (``mondrian/cells.sql.j2``'s cells: ``pid``, the QI codes, ``sens``, ``n``)
    from ``plan.vectors``, where they stand for ``base``'s rows (:class:`~anonymizer.plan.Vectors`),
    are grouped by the sensitive columns ``sens`` (quoted internal names, ``"s0"``) name, no
    partition column splits the cells, and ``plan.base`` is the base they stand for, not a
    subset of it (the rows m-invariance places anew). Returns whether it wrote them (then the
    vectors are dropped; else :func:`~.steps.measure` drops them with base)."""
    vectors = plan.vectors
    if vectors is None:
        return False
    named = {ident(k.internal): k.column.name for k in plan.sensitive}
    columns = [{"col": ident(named[s]), "name": s} for s in sens]
    usable = (partition_by is None and plan.base == vectors.base   # not a subset's (m-invariance's joiners)
              and {c["col"] for c in columns} <= {ident(c) for c in engine.columns(vectors.table)})
    if usable:
        engine.run("families/generalized/mondrian/cells_of_vectors.sql.j2", vectors.lists or None, target=raw,
                   vectors=vectors.table, qis=vectors.qis, sens=columns)
        engine.release_tables(vectors.table)
        plan.vectors = None   # read once: a later run of the algorithm reads base
    return usable
