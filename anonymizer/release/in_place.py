"""Publishing in place: a release's per-row candidate written where its snapshot will live,
verified there, and renamed into the snapshot when the version publishes.

An engine that copies a table only by reading and writing every row
(``Capabilities.publishes_in_place``: Spark) writes a generalized release's per-row candidate
beside the snapshots, as ``<release>__candidate_<run id>`` in the snapshot schema, in the
snapshot's published columns and format, in its content's order (by class, then by the
published columns: nothing of the source's order, no draw) (``form/candidate.sql.j2`` with
``in_place``); verification reads that table, and :func:`~anonymizer.release.publish.publish` renames it to
``<release>__v<N>`` (:func:`settle`): the published rows are the very rows verified, and no
pass copies or compares them. DuckDB copies its candidate from the in-memory work database
in the publishing transaction instead, and compares the copy.
"""

from __future__ import annotations

from anonymizer.engine.names import ident, in_catalog
from anonymizer.engine.session import Engine
from anonymizer.target import Target


def placed(engine: Engine, target: Target) -> str | None:
    """Where a release's per-row candidate is written to be published in place (module
    docstring), or ``None``: a work table, copied into its snapshot when it publishes. A
    partitioned layout is copied (Spark's own catalog loses a partitioned table's partitions
    when it renames it). The name is the run's own, ``<release>__candidate_<run id>``: never a
    snapshot's (``<release>__v<N>``), and never another run's, so a concurrent run of the same
    release cannot replace the rows this one verified (its rename fails instead). The table
    stands only while the run writes it: a run that does not publish drops it; a killed run
    leaves it, unpublished, until someone drops it."""
    out = target.output
    if not engine.capabilities.publishes_in_place or out.partition_by:
        return None
    run = engine.open_work().rsplit("_", 1)[-1]   # this run's: a concurrent run of the release writes its own
    return in_catalog(out.catalog, out.snapshot_schema, f"{target.release}__candidate_{run}")


def settle(engine: Engine, target: Target, snap_name: str, candidate: str) -> None:
    """Rename the candidate verified in place (:func:`placed`) to its snapshot ``snap_name``."""
    snapshot = in_catalog(target.output.catalog, target.output.snapshot_schema, snap_name)
    engine.run("publish/settle.sql.j2", candidate=candidate, name=ident(snap_name))
    engine.undo(lambda: engine.execute(f"DROP TABLE IF EXISTS {snapshot}", template="<undo snapshot>"))
