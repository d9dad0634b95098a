"""Versions read together: the cross-version gate and the release's memory of what it published.

The adversary (README, "Privacy across versions") holds every version a release ever
published, pruned or not, the audit table and this code, knows targets' quasi-identifiers
and knows when each target was in the source (joined, left, changed). Two attacks follow,
and the gate runs both in SQL on the candidate of version n against every earlier version
before anything is published:

- **Difference** (Xiao and Tao 2007, section 1, the "critical absence"; Byun et al. 2006):
  a class box (the labels a reader sees) that two versions both publish gives away, by the
  multiset difference of its sensitive values, what the people who joined (the counts that
  grew) or left (the counts that shrank) hold. Each non-empty side of such a difference is
  read as a class of its own and must meet every declared model that applies to a multiset:
  at least k people, distinct l, entropy l, recursive (c, l) and alpha. t-closeness is not
  judged on differences (recorded as ``not_checked``).
- **Intersection** (Xiao and Tao 2007, Lemma 1): a person present in several versions, with
  the same sensitive value, has as candidate values the intersection of the value sets of
  their classes over those versions. With the spec's ``history.person`` the gate keeps that
  intersection per person and requires at least l values (the bound every l-diversity model
  implies for a set of candidates); a person whom earlier versions already left below l
  (versions published under ``independent``) is counted (``already_below``), and the new
  version must not narrow them further. Without a person key it cannot be judged, and the
  figures say so.

``history.guarantee: invariant`` (the default) refuses a version that fails either check:
nothing is published and the error names the versions, the check and how many people.
``independent`` publishes each version on its own checks and records the measured figures
(``figures.combination`` of the audit row; the report and ``anonymizer history`` show them).

What the gate needs of earlier versions is what they published: per class box, attribute
and value, the published count, with the version that first published that box with that
multiset (the latest, for anatomy's boxes: below), kept in the release's snapshot schema (:data:`MEMORY`) even when ``prune`` drops the
snapshots. A box a later version publishes again with a multiset the memory holds for it is
not stored again (``remember.sql.j2``): a comparison with that copy finds what a comparison
with the later version would, so the memory, and the difference check that reads it, grow
with the boxes and multisets ever published, not with the number of versions (issue 55); anatomy's
boxes, which a reader links by their members, are kept by the members that name one record,
once, under the latest version that published them (``linked_rows.sql.j2``,
``forget_copies.sql.j2``). The per-person state (group,
value, since, candidates) is private: it lives in schema :data:`STATE_SCHEMA` of the
connection's own database (beside the source, never the output database or a published
schema), one pair of tables per release. It is written before the version publishes
(replacing what an attempt that failed left) and the older versions' rows are dropped once
it has.

Anatomy publishes QIs as they are, so a reader identifies its groups by their members:
two versions' groups that a member links (``overlap``, ``links``: one whose QI values name one
record in each version and whose person's value and QI values stood in between) are
compared as one.

Every family publishes sequences that pass (m-invariance, :mod:`anonymizer.versions.invariance`),
on DuckDB and, for the families that run there, on Spark: the state and the memory then live
in Spark's catalog. What the gate cannot follow (LGB or identity-reserved releases without
``history.person``) is refused a re-publication of a changed source under ``invariant``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from anonymizer.engine.names import ident, in_catalog, table
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, PrivacyCheckFailed, SpecError, UnsupportedError
from anonymizer.versions import difference
from anonymizer.versions.released import Released
from anonymizer.release.publish import latest, owned
from anonymizer.target import Target

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.models.base import LBounded
    from anonymizer.plan import Plan


#: the release's memory of its published classes (in ``output.snapshot_schema``)
MEMORY = "_classes"
#: its columns (memory_table.sql.j2)
MEMORY_COLUMNS = ("release", "version", "box", "attr", "value", "n")
#: the schema of the private per-person state, in the connection's own database
STATE_SCHEMA = "_anon_state"

#: the columns of the private state tables after ``version`` (state_table.sql.j2)
PEOPLE, GROUPS = ("pid", "gid", "value", "since", "cand", "member", "qsince", "seen"), ("gid", "value", "n")
#: model type -> the rule the difference check applies to each side of a difference
RULES = {"k-anonymity": "k", "distinct-l-diversity": "distinct", "entropy-l-diversity": "entropy",
         "recursive-cl-diversity": "recursive", "alpha-k-anonymity": "alpha",
         "lsl-diversity": "multi", "multi-l-diversity": "multi", "l-unique": "distinct"}


@dataclass
class Combination:
    """The gate's outcome: its figures (audit, report) and what publishing keeps."""

    figures: dict
    current: str
    people: str | None = None
    groups: str | None = None
    notes: list[str] = field(default_factory=list)
    #: where the difference check links boxes by their members (``overlap``), what the memory
    #: keeps of the version (``linked_rows.sql.j2``, read before publishing: a work table cannot
    #: be written in the publishing transaction), each copy under the latest version that
    #: published it (``forget_copies.sql.j2``); ``None``: ``current``, each box's multiset
    #: once, under the first version that published it (``remember.sql.j2``)
    kept: str | None = None
    #: whether the memory held any version of the release when the gate read it: where it held
    #: none, there is no earlier copy of any box to leave out, and ``remember.sql.j2`` appends
    #: ``current`` as it is (on Spark, no window over it)
    held: bool = True


def memory_table(target: Target) -> str:
    return in_catalog(target.output.catalog, target.output.snapshot_schema, MEMORY)


def state_tables(target: Target) -> tuple[str, str]:
    """The private state of ``target``'s release: (people, groups), in the connection's database."""
    return table(STATE_SCHEMA, f"{target.release}__people"), table(STATE_SCHEMA, f"{target.release}__groups")


def earlier(engine: Engine, target: Target) -> list[int]:
    """The versions of the release the memory holds, oldest first."""
    if not owned(engine, target.output.catalog, target.output.snapshot_schema, MEMORY, MEMORY_COLUMNS):
        return []
    return [v for (v,) in engine.execute(f"SELECT DISTINCT version FROM {memory_table(target)} WHERE release = $r "
                                         "ORDER BY version", {"r": target.release}).fetchall()]


def previous_state(engine: Engine, target: Target, published: int, part: str = "people") -> int | None:
    """The newest version (up to ``published``, the latest published one) whose private state
    ``part`` (``people`` or ``groups``) stands, or ``None``."""
    if engine.relation(None, STATE_SCHEMA, f"{target.release}__{part}") is None:
        return None
    people, groups = state_tables(target)   # a state an older release wrote gains the columns since added
    engine.run("versions/combination/state_table.sql.j2", schema=ident(STATE_SCHEMA), people=people, groups=groups)
    state = table(STATE_SCHEMA, f"{target.release}__{part}")
    (version,) = engine.execute(f"SELECT max(version) FROM {state} WHERE version <= $v", {"v": published}).fetchone()
    return version


def refuse_unsupported(target: Target, missing: str, has_earlier: bool) -> None:
    """A release the gate cannot check (``missing`` says why, ``the lgb family has no
    cross-version gate yet``) may re-publish on a changed source only under ``independent``."""
    if has_earlier and target.history.guarantee == "invariant":
        raise UnsupportedError(
            f"history: invariant (the default) checks a new version against every earlier one, and {missing}: "
            f"release {target.release} cannot publish a version of a changed source under it. Set "
            "'history: independent' to publish each version on its own checks (the adversary who keeps earlier "
            "versions may then learn more than each version allows), or publish under a new release name")


def check_state_home(engine: Engine, target: Target) -> None:
    """Under ``invariant`` with ``history.person`` the private state must outlive the run:
    refused before any work when the run's own database is read-only, or in memory while
    the release goes to a database file (the next version would keep no one's signature),
    or when the state the latest version wrote is gone."""
    if target.history.guarantee != "invariant" or target.history.person is None:
        return
    path, readonly = engine.state_home()
    where = None
    if readonly:
        where = "that database is open read-only (the command line opens --db read-only when output.database is set)"
    elif path is None and target.output.database is not None:
        where = "that database is in memory while the release goes to output.database, so the state would be lost "\
                "when the run ends and the next version could keep no one's signature"
    if where:
        raise SpecError("history.person", f"keeps each person's signature in private state beside the source (schema "
                                          f"{STATE_SCHEMA} of the database the run opens), and {where}. Publish beside "
                                          "the source (leave output.database out, with a writable --db FILE), or set "
                                          "'history: independent'")
    last = latest(engine, target)
    if last is not None and _kept_state(last) and previous_state(engine, target, last["version"]) is None:
        raise DataError(f"{STATE_SCHEMA}.{target.release}__people",
                        f"is missing, though v{last['version']} of release {target.release} kept each person's signature "
                        "there (dropped, or a run killed while it was rewritten): a version started afresh would let "
                        "an adversary who holds the versions on both sides of the gap intersect across it. Restore "
                        "the state, publish under a new release name, or set 'history: independent'")


def _kept_state(row: dict) -> bool:
    """Whether the audit row's version wrote private state (it was gated with ``history.person``)."""
    figures = row.get("figures")
    figures = json.loads(figures) if isinstance(figures, str) else figures or {}
    return bool((figures.get("combination") or {}).get("person"))


def gate(engine: Engine, plan: Plan, released: Released) -> Combination:
    """Run both checks (module docstring) on the candidate of the release's next version;
    raise under ``invariant`` when one fails."""
    target = plan.target
    last = latest(engine, target)
    published = last["version"] if last else None
    with engine.for_aggregate(released.classes, released.rows) as on:   # Spark: on its driver, aggregates both
        boxes, current = published_classes(on, released)
    versions = earlier(engine, target)
    figures: dict[str, Any] = {"guarantee": target.history.guarantee, "person": target.history.person is not None,
                               "compared": versions, "difference": [], "isolated": 0, "not_checked": []}
    rules, params = _rules(released.models or plan.models, released.attrs, figures, released.levels)
    result = Combination(figures, current, groups=released.groups, held=bool(versions))
    if released.overlap:   # each box by its followed members, kept once, under its latest version
        result.kept = engine.work("memory_rows")
        engine.run("versions/combination/linked_rows.sql.j2", target=result.kept, current=current)
    _intersection(engine, target, plan.models, released, (published or 0) + 1, published, result)
    if released.private:
        versions = figures["compared"] = []   # no box links a class across versions: through the people who stood
        if rules and result.people and published:
            difference.through_people(engine, target, released, previous_state(engine, target, published), rules,
                                      params, figures, result.people, state_tables(target))
    links = None
    if released.overlap and released.links and result.people:
        links = engine.work("gate_links")
        engine.run("versions/combination/links.sql.j2", target=links, links=released.links, boxes=boxes,
                   state=result.people)
    if versions and rules:
        difference.check(engine, target, rules, params, figures, current=current, memory=memory_table(target),
                         overlap=released.overlap, links=links)
    engine.release_tables(boxes, *filter(None, [links]))
    if target.history.guarantee == "invariant":
        _refuse(target, figures)
    return result


def published_classes(engine: Engine, released: Released, name: str = "published_classes") -> tuple[str, str]:
    """The candidate's class boxes ``(eq_class, box)`` and what it publishes per box, attribute
    and value (``current.sql.j2``): two work tables, the second named ``name``."""
    boxes, current = engine.work(f"{name}_boxes"), engine.work(name)
    engine.run("versions/combination/class_boxes.sql.j2", target=boxes, classes=released.classes,
               eq_class=ident(released.eq_class), labels=[ident(lab) for lab in released.labels])
    engine.run("versions/combination/current.sql.j2", {f"a{i}": a for i, a in enumerate(released.attrs)},
               target=current, rows=released.rows, weight=released.weight, boxes=boxes,
               eq_class=ident(released.eq_class), attrs=[ident(a) for a in released.attrs])
    return boxes, current


def colliding(engine: Engine, plan: Plan, released: Released, into: str) -> int:
    """Write into ``into`` ``(eq_class)`` the candidate's classes whose box an earlier version
    published with a multiset the difference check refuses; returns how many. What the
    gate would refuse, found before it runs, so that m-invariance can merge those groups."""
    target = plan.target
    rules, params = _rules(released.models or plan.models, released.attrs, {"not_checked": []})
    if not rules or not earlier(engine, target):
        return 0
    boxes, current = published_classes(engine, released, "colliding_classes")
    failing = engine.work("colliding_boxes")
    engine.run("versions/combination/difference.sql.j2", {"release": target.release, **params}, target=failing,
               current=current, memory=memory_table(target), rules=rules, boxes=True, overlap=released.overlap,
               links=None)
    engine.run("versions/combination/colliding.sql.j2", target=into, boxes=boxes, failing=failing)
    engine.release_tables(boxes, current, failing, always=True)
    return engine.count(into)


def _rules(models, attrs: list[str], figures: dict, levels: dict | None = None) -> tuple[list[dict], dict]:
    """The difference check's rules for the declared models, with their bound parameters. A
    side's people are counted on each sensitive attribute (every person moved in or out
    moves one value; a joiner and a leaver of the same value cancel, unseen), on the box's
    size without one."""
    rules: list[dict] = []
    params: dict = {}

    def add(kind: str, model, attr: str, **bound) -> None:
        i = len(rules)
        params.update({f"attr{i}": attr, **{f"{name}{i}": v for name, v in bound.items()}})
        rules.append({"i": i, "kind": kind, "value": "value" in bound, "model": str(model)})

    for m in models:
        kind = RULES.get(m.spec_type)
        if kind is None:
            figures["not_checked"].append(str(m))
        elif kind == "alpha":
            add(kind, m, m.attribute, alpha=m.alpha, **({} if m.value is None else {"value": m.value}))
        elif kind == "recursive":
            add(kind, m, m.attribute, l=m.l, c=m.c)
        elif kind == "multi":   # anatomy's: each value's l on every sensitive attribute (Def. 10)
            for attr in attrs:
                default, named = (levels or {}).get(attr, (2, {}))
                add("levels", m, attr, l=m.l_of(default), names=list(named),
                    ls=[m.l_of(level) for level in named.values()])
        elif kind != "k":
            add(kind, m, m.attribute, l=m.l)
        if kind in ("k", "alpha"):   # alpha-k's k bounds each side's people too
            for attr in attrs or [""]:
                add("k", m, attr, k=m.k)
    return rules, params


def smallest_l(model) -> int:
    """The fewest distinct values a group of paper 002's models holds on each attribute: the
    smallest l of a security level (L_sl-diversity), or l (multi-attribute l-diversity)."""
    return min(model.l_of(level) for level in range(3))


def _intersection(engine: Engine, target: Target, models: tuple[PrivacyModel, ...], released: Released, version: int,
                  published: int | None, result: Combination) -> None:
    """Each person's candidate values intersected since their value last changed (module docstring)."""
    figures = result.figures
    if released.people is None:
        figures["intersection"] = {"checked": False, "why": "no history.person: a person cannot be followed "
                                                            "across versions"}
        return
    repeated, example = engine.one("versions/combination/repeated_people.sql.j2", people=released.people)
    if repeated:
        raise DataError(f"history.person {target.history.person}",
                        f"names {repeated} more rows than people (e.g. {example!r} repeats): a person key names "
                        "one row per person")
    lmodels = [cast("LBounded", m)
               for m in models if RULES.get(m.spec_type) in ("distinct", "entropy", "recursive")]
    bound = released.bound if released.bound is not None else max(
        [int(m.l) for m in lmodels if m.attribute == released.followed], default=None)
    people, _ = state_tables(target)
    before = previous_state(engine, target, published) if published else None
    state = engine.work("people_state")
    engine.run("versions/combination/people.sql.j2", {"version": version, **({"previous": before} if before else {})},
               target=state, people=released.people, members=released.members,
               previous=people if before else None, parts=released.parts, links=released.links)
    total, smallest, below, already, followed = engine.one("versions/combination/candidates.sql.j2",
                                                           {"l": bound or 0, "version": version}, state=state,
                                                           parts=released.parts)
    figures["intersection"] = {"checked": bound is not None, "attribute": released.followed, "people": total,
                               "followed": followed, "smallest": smallest, "bound": bound,
                               "below": below if bound else 0, "already_below": already if bound else 0}
    result.people = state


def _refuse(target: Target, figures: dict) -> None:
    for entry in figures["difference"]:
        for f in entry["failing"]:
            raise PrivacyCheckFailed(
                f"{f['model']} across versions", None, f["sides"], f"{target.output.schema}.{target.output.view}",
                reason=f"compared with v{entry['version']}, {f['sides']} class box(es) published in both differ by "
                       f"a multiset of values that breaks it (the values of the people who joined, left or moved "
                       f"between classes), isolating {f['people']} people (difference check; history: invariant; "
                       "'history: independent' publishes each version on its own checks)")
    inter = figures.get("intersection", {})
    if inter.get("below"):
        raise PrivacyCheckFailed(
            f"{inter['bound']} candidate values across versions", inter["smallest"], 0,
            f"{target.output.schema}.{target.output.view}", achieved_is="the fewest candidate values of a person",
            reason=f"{inter['below']} people would be left with fewer than {inter['bound']} candidate sensitive "
                   f"values, and fewer than before, once their classes in every version since they last changed "
                   f"are intersected (smallest: {inter['smallest']}; intersection check; history: invariant)")


def summary(figures: dict | None, parameters: dict | None) -> dict | None:
    """What an audit row says of its version read with the earlier ones (``figures`` and
    ``parameters`` of the row, parsed), for people (``anonymizer history``, the report):
    the guarantee, the versions compared, the people a difference isolates, the smallest
    candidate set and how many fall below l, and the counterfeits (``unit``: what they
    count, ``rows``, or ``individuals`` in an identity-reserved release); ``None`` for a row
    written before the gate."""
    gate = (figures or {}).get("combination")
    if gate is None:
        return None
    inter = gate.get("intersection") or {}
    invariance = ((parameters or {}).get("chosen") or {}).get("invariance") or {}
    return {"guarantee": gate["guarantee"], "compared": gate["compared"], "isolated": gate["isolated"],
            "smallest": inter.get("smallest") if inter.get("checked") else None,
            "below": inter.get("below", 0), "already_below": inter.get("already_below", 0), "counterfeits": invariance.get("counterfeits", 0),
            "unit": invariance.get("unit", "rows")}


def keep_state(engine: Engine, target: Target, combination: Combination, version: int) -> None:
    """Write the candidate version's private state, replacing what an unpublished attempt left
    (before publishing: the state sits in another database than an ``output.database``)."""
    if combination.people is None and combination.groups is None:
        return
    people, groups = state_tables(target)
    engine.run("versions/combination/state_table.sql.j2", schema=ident(STATE_SCHEMA), people=people, groups=groups)
    for state, rows, columns in ((people, combination.people, PEOPLE), (groups, combination.groups, GROUPS)):
        engine.run("versions/combination/state_drop.sql.j2", {"version": version}, state=state, newer=True)
        if rows is not None:
            engine.run("versions/combination/state_insert.sql.j2", {"version": version}, state=state, rows=rows,
                       columns=columns)


def forget_older(engine: Engine, target: Target, version: int) -> None:
    """Once ``version`` has published, the state of older versions is not read again."""
    if engine.relation(None, STATE_SCHEMA, f"{target.release}__people") is None:
        return
    for state in state_tables(target):
        engine.run("versions/combination/state_drop.sql.j2", {"version": version}, state=state, newer=False)


def remember(engine: Engine, target: Target, combination: Combination, version: int) -> None:
    """Append the version's published classes to the memory (inside the publishing transaction)."""
    engine.run("versions/combination/memory_table.sql.j2",
               schema=in_catalog(target.output.catalog, target.output.snapshot_schema), memory=memory_table(target))
    if combination.kept is not None:   # the older copies of what this version publishes again
        engine.run("versions/combination/forget_copies.sql.j2", {"release": target.release}, memory=memory_table(target),
                   rows=combination.kept)
    engine.run("versions/combination/remember.sql.j2", {"release": target.release, "version": version},
               memory=memory_table(target), current=combination.kept or combination.current,
               compact=combination.kept is None and combination.held)
