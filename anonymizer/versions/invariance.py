"""m-invariance (Xiao and Tao, "m-Invariance: Towards Privacy Preserving Re-publication of
Dynamic Datasets", SIGMOD 2007): the steps every family shares, one template each in
``templates/versions/invariance/``.

A version n > 1 of a release with ``history.person`` keeps every person's *signature*, the
multiset of sensitive values of their group, fixed across versions: then the intersection
of a person's candidate values over versions is their signature, and a group seen in two
versions shows the same multiset (no difference to read). The paper's four steps (its Fig. 6):

1. *division* (``division.sql.j2``): a person present before with the same sensitive value
   returns to their private group (those the previous version published before those who
   left and came back);
2. *balancing* (``fill.sql.j2``): a place a leaver opened in a group is taken by a new row of
   the same value (inside the group's box, where the form publishes boxes; without a box,
   places and new rows of a value are matched one to one at random); a returner whose
   own place was taken goes first, to a group publishing their own group's multiset; failing
   that, without a box, they open a group publishing it anew, filled with counterfeits
   (``reopen.sql.j2``); else they are held back this version (``rest.sql.j2``; counted as
   suppressed);
3. *new groups* (``rest.sql.j2``, ``new_groups.sql.j2``): the rows no group took are grouped
   by the release's own algorithm run on them alone (the generalized family falls back to
   Mondrian where a fixed-level algorithm would leave rows out); a group's signature is then
   what it holds;
4. *counterfeits* (``counterfeits.sql.j2``, ``assign.sql.j2``): a place nobody holds is
   published as a counterfeit of its value; each group is numbered anew every version.

The families say how their rows carry the signature (:class:`Signature`): the generalized
family keeps one sensitive column's values inside boxes
(:mod:`anonymizer.families.generalized.invariance`); anatomy keeps the composite sensitive
vectors of its groups, with no box, since it publishes QIs as they are
(:mod:`anonymizer.families.anatomy.invariance`); LGB keeps its local buckets' values, with
no box either, a bucket's rows sitting in many groups (:mod:`anonymizer.families.lgb.invariance`);
the identity-reserved family keeps individuals, not records: a place holds an individual's
list of sensitive values, inside the range of its group's QI codes
(:mod:`anonymizer.families.identity_reserved.invariance`).

Choices where the paper is silent or differs from our setting:

- The paper's groups are m-unique (m distinct values, one each). Ours keep the multiset of
  whatever group the algorithm made, so later versions meet the same models as version 1,
  and the signature is kept with its multiplicities.
- A person whose sensitive value changed (Li and Zhou 2008, m-Distinct's "updates") leaves
  their place as a counterfeit and enters as a new row; the intersection check then follows
  them from that version on (the adversary who knows of the change no longer intersects).
- Rows the release's algorithm cannot group (too few new rows for the models) are held
  back, counted as suppressed (they count against ``suppression_limit``).
- The cost of a version is one pass over the table per step: the groups themselves are not
  re-split, only the new rows are grouped by the algorithm.

Over many versions (issue 55; read with Xiao and Tao 2007, sections 4-5, and Li and Zhou
2008, m-Distinct). Three schemes were built and measured on ``anonymizer bench history``
(20,000 people, 1 % churn a night, k = 10, distinct 3-diversity, a diagnosis of 12 values
whose most frequent holds 21 % and rarest 5.3 %); what ships is the first.

1. *Fixed groups* (this module): a group is a fixed set of places with a fixed box; a
   place a leaver opens is refilled only by a joiner of the same value inside the box, which
   with boxes of k nearby rows almost never happens. After t nights of churn c the
   counterfeit share approaches 1 - (1 - c)^t (measured 46.6 % at t = 60), and the joiners,
   grouped among themselves, form wide boxes: loss 4.1 times the independent re-run's at
   v60, rising about 0.0017 NCP a night. Letting a joiner widen a box to take a place of
   their value trades one for the other: a reach of 0.02 of the QIs' ranges cut the
   counterfeits by a fifth, 0.5 by more than four fifths, while NCP kept rising by 0.0017
   and 0.007 a night.
2. *Signature buckets* (the paper's own scheme; branch ``experiment/signature-buckets``):
   everyone whose signature is a profile P forms one bucket, re-split every version into
   classes of c * P, joiners balance the counts anywhere in the bucket. Cost and loss were
   flat, but loss was 8 times the independent re-run's from the first version (NCP 0.17
   against 0.021), and counterfeits still grew (0.6 % at v1, 4 % at v12: the joiners a
   bucket cannot balance open units of counterfeits). The bound behind the loss: a class
   that repeats a profile exactly holds each of its values, so its box covers a region where
   every value turns up (a coupon collector: about H(12) / 0.053, 57 rows of this table,
   against Mondrian's 10 to 19), at least 2.5 times the NCP in the two wide QIs, whatever
   the split (the per-value halving tried reached 8 times).
3. *Candidate sets only* (considered, not built into the product): a fresh run of the
   algorithm each version, merging a class only where a member's candidate set would fall
   below l, gives loss near the independent run's and no counterfeits, and passes both the
   checks the gate makes. It is not safe against the adversary we claim: a class of an earlier
   version whose members, less a leaver, form classes of a later version inside its box (the
   box shrank, so the exact-box difference check does not compare them) gives the leaver's
   value as the difference of the counts. Xiao and Tao's exact multisets are what closes it.

Why exact multisets, and what they cost. An adversary who knows everyone's QIs knows who
stood in each class whose box holds as many people as it has real rows; any two such classes
of two versions that share someone differ by the people in one and not the other, and where
one side's count of values equals its people, those values are theirs, whatever the boxes
(nested, shifted or equal). That attack (``tests/privacy/test_versions.py``,
``membership_difference_attack``) narrows 2,222 of the 5,200 people of four independent
versions of 4,000 people below 3 values (2,514 sides of a difference, where the equal-box
attack finds 173), and no one under this module. So a class that shares a person with a class of an earlier version may differ
from it only by places of the same values, which is what fixed multisets give; a fresh
grouping per version (scheme 3, or any regrouping of those who stay) does not.

The bound this leaves, at churn c a night and after t nights: the places of the leavers,
a share 1 - (1 - c)^t of the places (45 % at c = 1 %, t = 60), stay counterfeits unless a
joiner of the same value takes them, inside the box or widening it to reach them. To keep
counterfeits at a share f, the joiners must refill all but f of those places; a joiner of a
value of share p finds an open place of its value within a region of about 1 / (f p)
people (at f = 3 % and p from 5.3 % to 21 %: 160 to 630 people, against a class's 10 to
19). Refilling 93 % of the places at t = 60 widens one class a night per joiner, about a
tenth of the classes a night at c = 1 % and k = 10, each to such a region, which multiplies
its NCP by about (region / class) ** (1 / d), 2.0 to 4.0 over d = 3 QIs, and the widened box
stays until that joiner leaves (100 nights on average). So with exact multisets, counterfeits
within 3 % cost about 2 to 4 times the loss of the independent re-run by v60, and a
loss within 1.5 times leaves most places unrefilled (the measured reach experiment above:
a reach of 0.5 of the ranges, NCP rising 0.007 a night, still left a fifth of the
counterfeits). The issue's two targets are not reached together by any scheme that keeps a
class's multiset where it shares someone with an earlier class, and a scheme that does not
keep it discloses as shown; what ships bounds neither, says so in a warning (:func:`drift`)
and keeps the cost of a version flat.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable

from anonymizer.engine.session import Engine
from anonymizer.errors import UnsupportedError
from anonymizer.plan import Plan
from anonymizer.versions import combination
from anonymizer.release.publish import latest

_T = "versions/invariance/"
log = logging.getLogger("anonymizer")


@dataclass(frozen=True)
class Signature:
    """How a family's rows carry the value m-invariance keeps per place.

    Attributes:
        base: the version's rows (``plan.base``, or a copy with the ``value`` column added).
        value: the column holding a row's value, as VARCHAR-castable; ``None``: a release
            without a sensitive column, whose groups keep their sizes only.
        values: the columns a counterfeit takes from a value: ``{col, type, part}``, ``part``
            ``None`` for the whole value, else the element of a JSON list (a composite vector).
        boxes: the columns whose ranges make a group's box (the QI codes), or none.
    """

    base: str
    value: str | None
    values: list[dict]
    boxes: list[str]


@dataclass
class Kept:
    """A version's groups after m-invariance.

    Attributes:
        assign: ``(__rid, __cid, __gid, __lo{i}, __hi{i})``: every published row, counterfeits
            (negative ids) too, with its class drawn anew, its private group and its box.
        rows: the signature's base with the counterfeit rows.
        classes, counterfeits, real: counts of ``assign``.
        notes: what the steps did (``invariance``), for the audit.
    """

    assign: str
    rows: str
    classes: int
    counterfeits: int
    real: int
    notes: dict = field(default_factory=dict)


#: the release's algorithm on the new rows (a table and its row count): ``(assign with
#: (__rid, __cid), or None when they cannot be grouped, rows held back, notes)``
GroupNew = Callable[[str, int], tuple[str | None, int, dict]]


def keeps_signatures(plan: Plan) -> bool:
    """Whether the release keeps each person's signature across versions: ``history:
    invariant`` with ``history.person``."""
    return plan.target.history.guarantee == "invariant" and plan.person is not None


def one_signature(plan: Plan) -> None:
    """Refuse, before any work, a release with more than one sensitive column: a person keeps
    one signature, and a person whose one value changed would lose the others' (an adversary
    who knows which value changed keeps intersecting the others across the change)."""
    if len(plan.sensitive) > 1:
        raise UnsupportedError("history: invariant with history.person keeps one sensitive column's signature; "
                               f"this release has {len(plan.sensitive)} "
                               f"({', '.join(k.column.name for k in plan.sensitive)}): a person whose one value "
                               "changes would lose the others' signatures. Set 'history: independent', or release "
                               "them apart")


def no_passthrough(plan: Plan) -> None:
    """Refuse, before any work, passed-through columns in a form whose counterfeits are rows
    (generalized, LGB): a counterfeit row could not fill them without telling itself apart."""
    if plan.passthrough:
        raise UnsupportedError("history: invariant with history.person publishes counterfeit rows, and a passed-"
                               f"through column ({', '.join(k.column.name for k in plan.passthrough)}) would tell "
                               "them from real rows; give it role identifier (dropped), or set 'history: independent'")


def continued(engine: Engine, plan: Plan) -> tuple[str, str, int] | None:
    """The private state to continue from (people, groups, its version), when an earlier
    version left one; else ``None`` (the algorithm runs as for a first version)."""
    last = latest(engine, plan.target)
    previous = combination.previous_state(engine, plan.target, last["version"], "groups") if last else None
    return None if previous is None else (*combination.state_tables(plan.target), previous)


def keep(engine: Engine, plan: Plan, sig: Signature, group_new: GroupNew, people: str, groups: str,
         previous: int) -> Kept:
    """Version n of an m-invariant release (module docstring): ``people`` and ``groups`` are
    the private state tables, ``previous`` the version whose state they hold."""
    bound = {"previous": previous}
    kept, filled, rest = engine.work("inv_kept"), engine.work("inv_filled"), engine.work("inv_rest")
    engine.run(_T + "division.sql.j2", bound, target=kept, base=sig.base, value=sig.value, people=people,
               groups=groups)
    engine.run(_T + "fill.sql.j2", {**bound, **plan.key.params()}, target=filled, base=sig.base, value=sig.value,
               kept=kept, groups=groups, people=people, qis=sig.boxes)
    engine.run(_T + "rest.sql.j2", bound, target=rest, base=sig.base, kept=kept, filled=filled, people=people,
               value=sig.value)
    new_rows = engine.count(rest)
    (top,) = engine.execute(f"SELECT coalesce(max(gid), 0) FROM {groups} WHERE version = $v", {"v": previous}).fetchone()
    held, grouped = new_rows, None
    inner_notes: dict = {}
    if new_rows:
        grouped, held, inner_notes = group_new(rest, new_rows)
    reopened = None
    if not sig.boxes:   # no box to keep: a returner with no place publishes their group's multiset anew
        reopened = engine.work("inv_reopened")
        (after,) = engine.execute(f"SELECT coalesce(max(__cid), -1) + 1 FROM {grouped}").fetchone() if grouped else (0,)
        engine.run(_T + "reopen.sql.j2", {**bound, "top": top + after, **plan.key.params()}, target=reopened,
                   base=sig.base, kept=kept, filled=filled, people=people, groups=groups, value=sig.value)
    returners = plan.base_rows - engine.count(kept) - engine.count(filled) - new_rows - (
        engine.count(reopened) if reopened else 0)
    placed = engine.work("inv_placed")
    engine.run(_T + "placed.sql.j2", target=placed, kept=kept, filled=filled, reopened=reopened)
    if grouped is not None:
        engine.run(_T + "new_groups.sql.j2", {"top": top}, placed=placed, assign=grouped, rest=rest, value=sig.value)
    fakes, rows = engine.work("inv_fakes"), engine.work("inv_rows")
    blank = ["p0"] + ([plan.individual.internal] if plan.individual else [])
    engine.run(_T + "counterfeits.sql.j2", {**bound, **plan.key.params()}, target=fakes, base=sig.base,
               placed=placed, groups=groups, reopened=reopened, values=sig.values, blank=blank)
    engine.run(_T + "with_counterfeits.sql.j2", target=rows, base=sig.base, fakes=fakes)
    assign = engine.work("inv_assign")
    engine.run(_T + "assign.sql.j2", plan.key.params(), target=assign, placed=placed, fakes=fakes, rows=rows,
               qis=len(sig.boxes))
    classes, counterfeits, real = engine.execute(
        f"SELECT count(DISTINCT __cid), count(*) FILTER (WHERE __rid < 0), count(*) FILTER (WHERE __rid >= 0) "
        f"FROM {assign}").fetchone()
    notes = {"invariance": {"previous": previous, "returned": engine.count(kept), "placed": engine.count(filled),
                            "new_rows": new_rows, "held_back": held, "returners_held": returners,
                            "reopened": engine.count(reopened) if reopened else 0,
                            "counterfeits": counterfeits}, **inner_notes}
    engine.release_tables(kept, filled, rest, *filter(None, [reopened]))
    return Kept(assign, rows, classes, counterfeits, real, notes)


def merge(engine: Engine, plan: Plan, assign: str, rows: str, colliding: str, attempt: int) -> str:
    """Merge each group of ``assign`` whose class (``__cid``) is in ``colliding``
    ``(eq_class)`` with its neighbour (``merge.sql.j2``) and box the groups again, classes drawn
    anew (``assign.sql.j2``): the repair when a box would repeat an earlier version's with
    another multiset. ``rows``: the rows ``assign`` refers to (counterfeits too). Returns the
    new assign (``assign`` is dropped)."""
    merged, out = engine.work(f"inv_merged{attempt}"), engine.work(f"inv_assign{attempt}")
    engine.run(_T + "merge.sql.j2", target=merged, assign=assign, colliding=colliding, qis=len(plan.qis))
    engine.run(_T + "assign.sql.j2", plan.key.params(), target=out, placed=merged, fakes=None, rows=rows,
               qis=len(plan.qis))
    engine.release_tables(merged, assign, always=True)
    return out


def summary_line(inv: dict, groups: str, counterfeits: str) -> str:
    """The summary's line of an m-invariant version (``inv``: its ``invariance`` notes):
    where its rows went, ``groups`` naming the family's groups (``groups``, ``buckets``,
    ``classes``) and ``counterfeits`` what a counterfeit is (``records``, ``rows (gid
    NULL)``, ``individuals``)."""
    return (f"  m-invariance  {inv['returned']} returned to their {groups}, {inv['placed']} took a leaver's place, "
            f"{inv['new_rows'] - inv['held_back']} grouped anew, {inv['held_back']} held back (and "
            f"{inv.get('returners_held', 0)} returners; {inv.get('reopened', 0)} reopened their multiset); "
            f"{inv['counterfeits']} counterfeit {counterfeits}")


def group_state(engine: Engine, assign: str, rows: str, value: str | None, gid: bool) -> str:
    """Each group's published multiset ``(gid, value, n)``, the private state the next
    version keeps: m-invariance's groups (``gid``: ``assign`` has ``__gid``), or the classes
    of a version that starts them."""
    target = engine.work("inv_groups")
    engine.run(_T + "groups.sql.j2", target=target, assign=assign, rows=rows, value=value, gid=gid)
    return target


def gate_inputs(engine: Engine, assign: str, rows: str, base: str, value: str | None,
                gid: bool) -> tuple[str, str, str]:
    """What the intersection check reads of a version (:class:`anonymizer.versions.combination.Released`):
    ``people`` (pid, gid, cid, value: the real rows), ``members`` (cid, value: every
    published row) and the groups' multisets (:func:`group_state`)."""
    people, members = engine.work("gate_people"), engine.work("gate_members")
    engine.run(_T + "people.sql.j2", target=people, assign=assign, base=base, value=value, gid=gid)
    engine.run(_T + "members.sql.j2", target=members, assign=assign, rows=rows, value=value)
    return people, members, group_state(engine, assign, rows, value, gid)


#: the counterfeit share above which a version warns that its release drifts (README, "A
#: release that runs for many versions grows weaker in use")
DRIFT = 0.1


def drift(release: str, inv: dict) -> None:
    """Warn (the ``anonymizer`` logger) when counterfeits make more than :data:`DRIFT` of what
    an m-invariant version publishes (``inv``: its ``invariance`` notes; their unit is the
    family's, rows or individuals): its counts and loss are further from the source's with
    every version, and no setting bounds them yet."""
    real = inv.get("returned", 0) + inv.get("placed", 0) + inv.get("reopened", 0) + \
        inv.get("new_rows", 0) - inv.get("held_back", 0)
    fakes = inv.get("counterfeits", 0)
    if fakes and fakes > DRIFT * (fakes + real):
        log.warning("release %s: %d of the %d %s this version publishes (%.0f %%) are counterfeits, the places of "
                    "people who left, kept so that no version tells what they held; their share and the loss grow "
                    "with every version (README, 'A release that runs for many versions')", release, fakes,
                    fakes + real, inv.get("unit", "rows"), 100 * fakes / (fakes + real))


def thin(engine: Engine, assign: str, k: int) -> int:
    """The classes of ``assign`` with fewer than ``k`` real rows (``thin.sql.j2``)."""
    return engine.one(_T + "thin.sql.j2", {"k": k}, assign=assign)[0]
