"""m-invariance (Xiao and Tao, "m-Invariance: Towards Privacy Preserving Re-publication of
Dynamic Datasets", SIGMOD 2007) around the release's generalizing algorithm.

A version n > 1 of a release with ``history.person`` keeps every person's *signature*, the
multiset of sensitive values of their class, fixed across versions: then the intersection of
a person's candidate values over versions is their signature, and a class box seen in two
versions shows the same multiset (no difference to read). The paper's four steps (its Fig. 6),
each one template of ``templates/families/generalized/invariance/``:

1. *division* (``division.sql.j2``): a person present before with the same sensitive value
   returns to their private group;
2. *balancing* (``fill.sql.j2``): a place a leaver opened in a group is taken by a new row of
   the same value that lies inside the group's box (so no box widens);
3. *new groups* (``rest.sql.j2``): the rows no group took are grouped by the release's
   algorithm (Mondrian, full-domain, ...) run on them alone; a group's signature is then
   what it holds;
4. *counterfeits and boxes* (``counterfeits.sql.j2``, ``assign.sql.j2``): a place nobody
   holds is published as a counterfeit row of its value (copying a member's QI codes, so no
   box widens), each class publishes its count of counterfeits, and each group is
   generalized to the box of its rows; class numbers are drawn anew every version.

Choices where the paper is silent or differs from our setting:

- The paper's groups are m-unique (m distinct values, one each). Ours keep the multiset of
  whatever class the algorithm made (k rows, the declared l-diversity), so the versions
  meet the same models as version 1, and the signature is kept with its multiplicities.
- A person whose sensitive value changed (Li and Zhou 2008, m-Distinct's "updates") leaves
  their place as a counterfeit and enters as a new row; the intersection check then follows
  them from that version on (the adversary who knows of the change no longer intersects).
  QI changes keep the person in their group (its box may move).
- Rows the release's algorithm cannot group (too few new rows for the models) are held
  back, counted as suppressed (they count against ``suppression_limit``).
- The cost of a version is one pass over the table per step: the groups themselves are not
  re-split, only the new rows are grouped by the algorithm.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed, UnsupportedError
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
    if len(plan.sensitive) > 1:
        raise UnsupportedError("history: invariant with history.person keeps one sensitive column's signature; "
                               f"this release has {len(plan.sensitive)} ({', '.join(k.column.name for k in plan.sensitive)}). "
                               "Set 'history: independent', or release them apart")
    if plan.passthrough:
        raise UnsupportedError("history: invariant with history.person publishes counterfeit rows, and a passed-"
                               f"through column ({', '.join(k.column.name for k in plan.passthrough)}) would tell them from "
                               "real rows; give it role identifier (dropped), or set 'history: independent'")


def invariant(engine: Engine, plan: Plan, inner: Callable[[Engine, Plan], AlgorithmResult],
              people: str, groups: str, previous: int) -> AlgorithmResult:
    """Version n of an m-invariant release (module docstring): ``people`` and ``groups`` are
    the private state tables, ``previous`` the version whose state they hold."""
    start = time.perf_counter()
    value = followed(plan)
    qis = [q.code for q in plan.qis]
    bound = {"previous": previous}
    kept, filled, rest = engine.work("inv_kept"), engine.work("inv_filled"), engine.work("inv_rest")
    engine.run(_T + "division.sql.j2", bound, target=kept, base=plan.base, value=value, people=people, groups=groups)
    engine.run(_T + "fill.sql.j2", {**bound, **plan.key.params()}, target=filled, base=plan.base, value=value, kept=kept, groups=groups,
               qis=qis)
    engine.run(_T + "rest.sql.j2", target=rest, base=plan.base, kept=kept, filled=filled)
    new_rows = _count(engine, rest)
    (top,) = engine.execute(f"SELECT coalesce(max(gid), 0) FROM {groups} WHERE version = $v", {"v": previous}).fetchone()
    placed = engine.work("inv_placed")
    engine.run(_T + "placed.sql.j2", target=placed, kept=kept, filled=filled)
    held, inner_notes = new_rows, {}
    if new_rows:
        grouped = _group_new(engine, plan, inner, rest, new_rows)
        if grouped is not None:
            held, inner_notes = grouped.suppressed, {"rounds": grouped.rounds}
            engine.run(_T + "new_groups.sql.j2", {"top": top}, placed=placed, assign=grouped.assign, rest=rest,
                       value=value)
    fakes, rows = engine.work("inv_fakes"), engine.work("inv_rows")
    blank = ["p0"] + ([plan.individual.internal] if plan.individual else [])
    engine.run(_T + "counterfeits.sql.j2", {**bound, **plan.key.params()}, target=fakes, base=plan.base,
               placed=placed, groups=groups, value=value, blank=blank,
               value_type=engine.columns(plan.base)[value] if value else None)
    engine.run(_T + "with_counterfeits.sql.j2", target=rows, base=plan.base, fakes=fakes)
    assign = engine.work("inv_assign")
    engine.run(_T + "assign.sql.j2", plan.key.params(), target=assign, placed=placed, fakes=fakes, rows=rows,
               qis=len(plan.qis))
    classes, counterfeits, real = engine.execute(
        f"SELECT count(DISTINCT __cid), count(*) FILTER (WHERE __rid < 0), count(*) FILTER (WHERE __rid >= 0) "
        f"FROM {assign}").fetchone()
    notes = {"invariance": {"previous": previous, "returned": _count(engine, kept), "placed": _count(engine, filled),
                            "new_rows": new_rows, "held_back": held, "counterfeits": counterfeits}, **inner_notes}
    engine.release_tables(kept, filled, rest)
    return AlgorithmResult(assign, classes, plan.base_rows - real, inner_notes.get("rounds", 0),
                           time.perf_counter() - start, notes, base=rows, groups=True, counterfeits=counterfeits)


def merge(engine: Engine, plan: Plan, result: AlgorithmResult, colliding: str, attempt: int) -> AlgorithmResult:
    """Merge each group of ``result`` whose class is in ``colliding`` with its neighbour
    (``merge.sql.j2``) and box the groups again (``assign.sql.j2``): the repair when a box
    would repeat an earlier version's with another multiset."""
    merged, assign = engine.work(f"inv_merged{attempt}"), engine.work(f"inv_assign{attempt}")
    engine.run(_T + "merge.sql.j2", target=merged, assign=result.assign, colliding=colliding, qis=len(plan.qis))
    engine.run(_T + "assign.sql.j2", plan.key.params(), target=assign, placed=merged, fakes=None,
               rows=result.base or plan.base, qis=len(plan.qis))
    engine.release_tables(merged, result.assign, always=True)
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
    (they are held back this version)."""
    if rows < plan.spec.k:
        return None
    try:
        return inner(engine, replace(plan, base=rest, base_rows=rows))
    except PrivacyCheckFailed:
        return None


def first_groups(engine: Engine, plan: Plan, result: AlgorithmResult) -> str:
    """Each group's published multiset ``(gid, value, n)``, the private state the next
    version keeps: m-invariance's groups, or the classes of a version that starts one."""
    target = engine.work("inv_groups")
    engine.run(_T + "groups.sql.j2", target=target, assign=result.assign, rows=result.base or plan.base,
               value=followed(plan), gid=result.groups)
    return target


def _count(engine: Engine, table: str) -> int:
    return engine.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def counterfeit_column(engine: Engine, classes: str, assign: str) -> None:
    """Publish each class's count of counterfeit rows in the class table (``counterfeits``)."""
    engine.run(_T + "counterfeit_counts.sql.j2", classes=classes, assign=assign, column=ident(COUNTERFEITS))


#: the class table's column counting a class's counterfeit rows
COUNTERFEITS = "counterfeits"
