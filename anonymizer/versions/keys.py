"""The person key across versions (issue 55): stable, or refused before any work.

A release with ``history: {guarantee: invariant, person: pid}`` follows each person across
versions by the key's text (the private state, :mod:`anonymizer.versions.combination`). A key
whose values change between two runs (a BIGINT read back as DOUBLE, ``17`` becoming
``17.0``; a VARCHAR re-encoded; surrogate keys regenerated or permuted by a reload) makes
everyone look new: the gate then finds no one to follow, and an adversary who follows
people by their quasi-identifiers intersects the versions on both sides. So version n > 1
of a release whose previous version kept private state is compared, in SQL over small
aggregates, with a private record of the previous version's people (:data:`SCHEMA`, beside
the state, never published: per person the key as text and a digest of their QI and
sensitive values; per version the key column's type):

- **type**: the key column's type differs from the one recorded;
- **re-keyed**: more of the previous people than ``history.max_rekeyed`` (default 0.1), beyond
  what chance gives (:data:`MARGIN`, :data:`FEWEST`), are found again by their QI and
  sensitive values under another key (a key that is new or whose values changed: the
  adversary's own way of following them);
- **reassigned**: more of those whose key returned than ``history.max_rekeyed`` come back with
  other QI or sensitive values (keys permuted among people whose values repeat, which the
  re-keyed count cannot see since chance explains it there; or a QI or sensitive column read
  in another type or encoding, which changes every digest);
- **churn**: more of them than ``history.max_churn`` (default 0.5) have no key in the source now.

Each raises :class:`~anonymizer.errors.DataError` naming the column; nothing is published.
With ``history.key_map: {table, old, new}`` (DuckDB) the private state and the record are
first read under the new keys (once per map: the map's digest is recorded), and the type
is not compared; the checks then judge the map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from anonymizer.engine.names import ident, table
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError
from anonymizer.versions import combination
from anonymizer.spec.types import ReleaseSpec
from anonymizer.target import Target

#: the private record lives beside the private state
SCHEMA = combination.STATE_SCHEMA
#: people found again under another key count only beyond chance: by more than MARGIN standard
#: deviations of the chance count (a count of mean ``expected``: variance <= mean) and FEWEST
#: people (in a table of four, one joiner with a leaver's QIs and value is no evidence)
MARGIN, FEWEST = 3.0, 2
#: the columns of the key record after ``version`` (key_tables.sql.j2)
KEY_COLUMNS = ("pid", "print")
_T = "versions/"


@dataclass(frozen=True)
class Keys:
    """The source's people as this run reads them (``current``: a work table of ``(pid,
    print)``), the key column's type and the digest of the last key map applied to the state."""

    current: str
    type: str
    map: str | None = None


def record_tables(target: Target) -> tuple[str, str]:
    """The private key record of ``target``'s release: (keys, meta), in the connection's database."""
    return table(SCHEMA, f"{target.release}__keys"), table(SCHEMA, f"{target.release}__key_meta")


def check(engine: Engine, spec: ReleaseSpec, source: str, published: int | None) -> Keys | None:
    """The source's people (to record when the version publishes), after refusing a key that
    no longer names the people of version ``published`` (module docstring); ``None`` for a
    release without ``history.person``."""
    history, target = spec.history, spec.target
    if history.person is None:
        return None
    keys = Keys(_current(engine, spec, source), engine.columns(source)[history.person])
    if published is None or history.guarantee != "invariant":
        return keys
    meta = _meta(engine, target, published)
    if history.key_map is not None:
        with engine.transaction():   # the state under new keys only if the map passes the checks
            keys = _remapped(engine, target, keys, meta, published)
            _compare(engine, spec, keys, published)
        return keys
    if meta is not None:
        _same_type(spec, meta, keys.type)
        keys = Keys(keys.current, keys.type, meta[2])
    _compare(engine, spec, keys, published)
    return keys


def keep(engine: Engine, target: Target, keys: Keys, version: int) -> None:
    """Record version ``version``'s people, replacing what an unpublished attempt left."""
    people, meta = record_tables(target)
    engine.run(_T + "key_tables.sql.j2", schema=ident(SCHEMA), keys=people, meta=meta)
    for state in (people, meta):
        engine.run("versions/combination/state_drop.sql.j2", {"version": version}, state=state, newer=True)
    engine.run("versions/combination/state_insert.sql.j2", {"version": version}, state=people, rows=keys.current,
               columns=KEY_COLUMNS)
    engine.run(_T + "meta_insert.sql.j2", {"version": version, "type": keys.type, "map": keys.map}, meta=meta)


def forget_older(engine: Engine, target: Target, version: int) -> None:
    """Once ``version`` has published, the record of older versions is not read again."""
    if engine.relation(None, SCHEMA, f"{target.release}__key_meta") is None:
        return
    for state in record_tables(target):
        engine.run("versions/combination/state_drop.sql.j2", {"version": version}, state=state, newer=False)


def _current(engine: Engine, spec: ReleaseSpec, source: str) -> str:
    current = engine.work("person_keys")
    columns = [ident(c.name) for c in spec.quasi + spec.sensitive]
    engine.run(_T + "current_keys.sql.j2", target=current, source=source, person=ident(str(spec.history.person)),
               columns=columns or ["NULL"])
    return current


def _meta(engine: Engine, target: Target, published: int) -> tuple | None:
    """(version, type, map) of the newest record up to ``published``, or ``None``."""
    if engine.relation(None, SCHEMA, f"{target.release}__key_meta") is None:
        return None
    return engine.one(_T + "meta_row.sql.j2", {"published": published}, meta=record_tables(target)[1])


#: key types whose values read as the same text (17 stays 17): a key widened from one to another
#: (Parquet's int32 read back as int64) names the same people
INTEGERS = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                      "UBIGINT", "UHUGEINT", "INT", "LONG", "SHORT", "BYTE"})


def _text_kind(kind: str) -> str:
    """The type as far as the key's text goes: every integer type is one."""
    return "INTEGER" if kind.upper() in INTEGERS else kind.upper()


def _same_type(spec: ReleaseSpec, meta: tuple, now: str) -> None:
    version, before, _ = meta
    if before is not None and _text_kind(before) != _text_kind(now):
        raise DataError(
            f"history.person {spec.history.person}",
            f"the person key is {now} in {spec.source.table} now and was {before} when v{version} of release "
            f"{spec.release} published: a key read back in another type is another text (17 becomes 17.0), so every "
            f"person would look new and an adversary could intersect the versions on both sides. Cast the column back "
            f"to {before}, or give history.key_map (old key -> new key) if the keys changed on purpose")


def _remapped(engine: Engine, target: Target, keys: Keys, meta: tuple | None, published: int) -> Keys:
    """The private state and key record read under the spec's ``history.key_map`` (once per map)."""
    key_map = target.history.key_map
    assert key_map is not None
    where = f"history.key_map {key_map.table}"
    mapped = table(*key_map.table.split("."))
    old, new = ident(key_map.old), ident(key_map.new)
    try:   # the spec's table and columns, checked first (metadata): a failure after them is ours, not the spec's
        have = engine.columns(mapped, where)
    except DataError as exc:
        raise DataError(where, f"cannot be read with columns {key_map.old} and {key_map.new} ({exc})") from exc
    lacking = [c for c in (key_map.old, key_map.new) if c not in have]
    if lacking:
        raise DataError(where, f"cannot be read with columns {key_map.old} and {key_map.new}: it has no column "
                               f"{lacking[0]!r} (it has {', '.join(have)})")
    pairs, repeated_old, repeated_new, nulls, digest = engine.one(_T + "key_map.sql.j2", map=mapped, old=old, new=new)
    if repeated_old or repeated_new or nulls:
        raise DataError(where, f"must map each old key to one new key and back ({repeated_old} old and "
                               f"{repeated_new} new keys repeat, {nulls} NULLs)")
    if meta is not None and meta[2] == digest:
        return Keys(keys.current, keys.type, digest)   # applied by an earlier attempt or version
    people, _ = combination.state_tables(target)
    record, meta_table = record_tables(target)
    for name in ("people", "keys", "key_meta"):   # what the block rewrites, back as it was if it fails
        engine.keep_for_undo(SCHEMA, f"{target.release}__{name}")
    if combination.previous_state(engine, target, published) is not None:
        engine.run(_T + "remap.sql.j2", state=people, map=mapped, old=old, new=new)
    if meta is not None:
        engine.run(_T + "remap.sql.j2", state=record, map=mapped, old=old, new=new)
    version = meta[0] if meta is not None else published
    engine.run(_T + "key_tables.sql.j2", schema=ident(SCHEMA), keys=record, meta=meta_table)
    engine.run("versions/combination/state_drop.sql.j2", {"version": version}, state=meta_table, newer=True)
    engine.run(_T + "meta_insert.sql.j2", {"version": version, "type": None if meta is None else meta[1],
                                           "map": digest}, meta=meta_table)
    return Keys(keys.current, keys.type, digest)


def _compare(engine: Engine, spec: ReleaseSpec, keys: Keys, published: int) -> None:
    """Refuse a source whose keys no longer name the previous version's people (module docstring)."""
    target, history = spec.target, spec.history
    meta = _meta(engine, target, published)
    if meta is not None and meta[1] is not None:
        version, previous, prints, seen = meta[0], record_tables(target)[0], True, False
    else:   # a version published before the record: its people state, keys only
        state = combination.previous_state(engine, target, published)
        if state is None:
            return
        version, previous, prints, seen = state, combination.state_tables(target)[0], False, True
    people, returning, stable, refound, chance = engine.one(
        _T + "compare.sql.j2", {"version": version}, previous=previous, now=keys.current, prints=prints, seen=seen)
    if not people:
        return
    column, table_name = spec.history.person, spec.source.table or "the source"
    lost = people - stable
    expected = lost * chance / stable if stable else 0.0
    if refound - expected > max(history.max_rekeyed * people, MARGIN * math.sqrt(expected) + FEWEST):
        raise DataError(
            f"history.person {column}",
            f"{refound} of the {people} people of v{version} of release {spec.release} ({refound / people:.0%}) are "
            f"found again in {table_name} by their QI and sensitive values under another key (by chance about "
            f"{expected:.0f}; history.max_rekeyed {history.max_rekeyed:g}): the person keys were regenerated, "
            f"permuted or re-encoded, so the gate would follow no one and an adversary could intersect the versions "
            f"on both sides. Restore the keys, or give history.key_map (old key -> new key)")
    changed = returning - stable if prints else 0   # keys that came back holding other values
    if changed > max(history.max_rekeyed * returning, FEWEST):
        raise DataError(
            f"history.person {column}",
            f"{changed} of the {returning} people of v{version} of release {spec.release} whose key is in "
            f"{table_name} now ({changed / returning:.0%}) came back with other QI or sensitive values "
            f"(history.max_rekeyed {history.max_rekeyed:g}): the person keys were reassigned (permuted, or "
            f"regenerated over the same range), or a QI or sensitive column reads otherwise than when v{version} "
            f"published (another type, another encoding, another column), so the gate could not tell the people "
            f"apart. Restore the keys and the columns, give history.key_map (old key -> new key), or, if so many "
            f"people really changed, raise history.max_rekeyed for this version")
    gone = people - returning
    if gone > history.max_churn * people:
        raise DataError(
            f"history.person {column}",
            f"{gone} of the {people} people of v{version} of release {spec.release} ({gone / people:.0%}) have no key "
            f"in {table_name} now (history.max_churn {history.max_churn:g}): the person keys changed (re-encoded, "
            f"another type, regenerated?), so the gate would follow no one and an adversary could intersect the "
            f"versions on both sides. Restore the keys, give history.key_map (old key -> new key), or, if so many "
            f"people really left, raise history.max_churn")
