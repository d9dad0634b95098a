"""m-invariance (:mod:`anonymizer.versions.invariance`) around the generalized family's
algorithms: the signature is one sensitive column's values, and a group's box is the range of
its rows' QI codes, so a newcomer takes an open place only inside the group's box (no box
widens), a counterfeit copies the QI codes of one real member of its group, and each class
publishes its count of counterfeits. QI changes keep a person in their group (its box may
move). When a box would repeat an earlier version's with another multiset, the colliding
groups are merged (:func:`merge`, ``merge.sql.j2``).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.versions import invariance as shared
from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.options import mondrian_inputs
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.plan import Plan

_T = "families/generalized/invariance/"


def followed(plan: Plan) -> str | None:
    """The internal column of the sensitive attribute whose signature is kept (``None``: a
    release without one, whose groups keep their sizes only)."""
    return plan.sensitive[0].internal if plan.sensitive else None


def check(plan: Plan) -> None:
    """What m-invariance cannot keep, refused before any work: more than one sensitive column
    (one signature per person), and passed-through columns, which a counterfeit row could not
    fill without telling itself apart from the real rows."""
    shared.one_signature(plan)
    shared.no_passthrough(plan)


def invariant(engine: Engine, plan: Plan, inner: Callable[[Engine, Plan], AlgorithmResult],
              people: str, groups: str, previous: int) -> AlgorithmResult:
    """Version n of an m-invariant release: ``people`` and ``groups`` are the private state
    tables, ``previous`` the version whose state they hold."""
    start = time.perf_counter()
    value = followed(plan)
    values = [{"col": value, "type": engine.columns(plan.base)[value], "part": None}] if value else []
    rounds = []

    def group_new(rest: str, rows: int) -> tuple[str | None, int, dict]:
        grouped = _group_new(engine, plan, inner, rest, rows)
        if grouped is None:
            return None, rows, {}
        rounds.append(grouped.rounds)
        return grouped.assign, grouped.suppressed, {"rounds": grouped.rounds}

    kept = shared.keep(engine, plan, shared.Signature(plan.base, value, values, [q.code for q in plan.qis]),
                       group_new, people, groups, previous)
    return AlgorithmResult(kept.assign, kept.classes, plan.base_rows - kept.real, sum(rounds),
                           time.perf_counter() - start, kept.notes, base=kept.rows, groups=True,
                           counterfeits=kept.counterfeits)


def merge(engine: Engine, plan: Plan, result: AlgorithmResult, colliding: str, attempt: int) -> AlgorithmResult:
    """Merge each group of ``result`` whose class is in ``colliding`` with its neighbour
    (:func:`anonymizer.versions.invariance.merge`): the repair when a box would repeat an
    earlier version's with another multiset."""
    assign = shared.merge(engine, plan, result.assign, result.base or plan.base, colliding, attempt)
    (classes,) = engine.execute(f"SELECT count(DISTINCT __cid) FROM {assign}").fetchone()
    notes = dict(result.notes, invariance=dict(result.notes.get("invariance", {}), merges=attempt + 1))
    # the groups are boxed by their rows' codes now: no level vector, no class cells of before
    return replace(result, assign=assign, classes=classes, notes=notes, labels="ranges", levels=None, cells=None)


def as_groups(engine: Engine, result: AlgorithmResult) -> AlgorithmResult:
    """The classes of a first version kept as its groups (``__gid``, the class), so that a
    version whose release published before without signatures can be merged like any other
    (:func:`merge`)."""
    assign = engine.work("inv_classes")
    engine.run(_T + "as_groups.sql.j2", target=assign, assign=result.assign)
    return replace(result, assign=assign, groups=True)


def _group_new(engine: Engine, plan: Plan, inner: Callable[[Engine, Plan], AlgorithmResult], rest: str,
               rows: int) -> AlgorithmResult | None:
    """The release's algorithm on the new rows alone (step 3), or ``None`` when they cannot
    meet the models by themselves: fewer than k rows, or the rows as a whole fail a model
    (they are held back this version). Where the release's algorithm generalizes at fixed
    levels (full-domain, the lattice searches) and leaves rows out, Mondrian groups them
    instead if it leaves fewer: the new rows of a night are a sparse sample, whose cells at
    the release's levels mostly hold fewer than k (issue 55: at 8 % joiners a night, a
    full-domain release needed more than its 10 % suppression at the second version). The
    version's classes are boxes of codes either way (ranges)."""
    if rows < plan.k:
        return None
    new = replace(plan, base=rest, base_rows=rows)
    result = _grouped(lambda: inner(engine, new))
    if plan.algorithm != "mondrian" and (result is None or result.suppressed):
        ranged = _grouped(lambda: mondrian(engine, new, mondrian_inputs(new)))
        if ranged is not None and (result is None or ranged.suppressed < result.suppressed):
            if result is not None:
                engine.release_tables(result.assign, *filter(None, [result.cells]), always=True)
            result = ranged
    return result


def _grouped(run: Callable[[], AlgorithmResult]) -> AlgorithmResult | None:
    """``run``'s result, or ``None`` when the rows as a whole fail a model."""
    try:
        return run()
    except PrivacyCheckFailed:
        return None


def counterfeit_column(engine: Engine, classes: str, assign: str) -> None:
    """Publish each class's count of counterfeit rows in the class table (``counterfeits``)."""
    engine.run(_T + "counterfeit_counts.sql.j2", classes=classes, assign=assign, column=ident(COUNTERFEITS))


#: the class table's column counting a class's counterfeit rows
COUNTERFEITS = "counterfeits"
