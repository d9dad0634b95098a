"""Mondrian's strict cuts along a declared hierarchy (``algorithm.labels: hierarchy``, the
default): each round's median cut on a QI with a hierarchy moves to a boundary between the
nodes under the partition's covering node (families/generalized/mondrian/snap.sql.j2, over
each code's ladder of nodes, ladders.sql.j2), so that Mondrian's classes (LeFevre, DeWitt and
Ramakrishnan, ICDE 2006) are labelled by low nodes of the user's hierarchy. Used by
:mod:`.mondrian`'s rounds, whose ``_Run`` is the ``run`` here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anonymizer.families.generalized.mondrian import _Run


def snap_dims(run: _Run) -> list[dict] | None:
    """The QIs whose strict cuts snap to their hierarchy (see :func:`snap_to_hierarchy`), or
    None."""
    dims = [{"dim": q.index, "hier": q.hier} for q in run.plan.qis if q.column.hierarchy is not None]
    if not dims or run.relaxed or run.inputs.labels != "hierarchy":
        return None
    return dims


def snap_context(run: _Run, cand: str, hist: str, dims: list[dict]) -> dict:
    return {"cand": cand, "hist": hist, "positions": run.t("positions"), "ladders": run.ladders,
            "dims": [d["dim"] for d in dims]}


def snap_to_hierarchy(run: _Run, prepare_only: bool = False) -> None:
    """Strict cuts of QIs with a declared hierarchy move to the nearest boundary between the
    children of the partition's covering node (families/generalized/mondrian/snap.sql.j2), so that classes end up
    labelled by low nodes. Relaxed partitioning halves exactly and keeps its median cuts, as
    do releases with ``algorithm.labels: values``. ``prepare_only``: make the ladders the
    snaps read, and no snap."""
    dims = snap_dims(run)
    if dims is None:
        return
    if run.ladders is None:   # once per run: each code's nodes, leaf to top
        run.ladders = run.t("ladders")
        run.engine.run("families/generalized/mondrian/ladders.sql.j2", target=run.ladders, dims=dims)
    if not prepare_only:
        run.engine.run("families/generalized/mondrian/snap.sql.j2", select=False, **snap_context(run, run.t("cand"), run.t("hist"), dims))
