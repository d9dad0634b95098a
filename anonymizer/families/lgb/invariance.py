"""m-invariance (:mod:`anonymizer.versions.invariance`; Xiao and Tao, SIGMOD 2007) for LGB,
paper 000's table. The paper builds its ``divide_buckets`` (Algorithm 2, line 9) on
m-invariance's assignment; across versions the buckets keep m-invariance's signatures too.

- **The signature** is the multiset of a local bucket's sensitive values. One bucketized
  attribute is kept: one column with role ``sensitive`` and no flagged QI (:func:`check`). A
  person's semi-sensitive cells move between the buckets and the local equivalence groups
  as their flags change, and a second attribute would restart with the first's changes.
- **No box.** A bucket publishes no QI range (its rows sit in many local equivalence
  groups), so a newcomer takes any open place of its value in a bucket.
- **New buckets** are formed by Algorithm 2 on the new rows alone; rows it cannot bucketize
  (the new rows as a whole fail the principle) are held back, counted as suppressed.
- **Local equivalence groups** are formed afresh every version by LGB_MDP or LGB_NCP over
  the real rows placed in a bucket: they publish QI ranges only, no sensitive value, and a
  person's bucket does not depend on them (Corollary 3: bucketization and generalization
  are independent).
- **Counterfeits** are rows of the LGB table that hold a bucket cell only: no local
  equivalence group (``gid`` NULL) and no QI value. Each bucket's values are dealt to its
  rows, counterfeits included, by the release's random permutation, so a counterfeit row
  shows a random value of its bucket, not the one it stands for; a bucket's count of
  counterfeits is its rows with ``gid`` NULL, as the paper publishes per group.
"""

from __future__ import annotations

import time
from dataclasses import replace

from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed, UnsupportedError
from anonymizer.versions import invariance as shared
from anonymizer.families.lgb.algorithm import LgbResult, local_generalization
from anonymizer.families.lgb.bucketize import Buckets, local_bucketization
from anonymizer.families.lgb.subsets import Attribute, attributes, qi_partition, value_pairs
from anonymizer.plan import Plan

#: the work column holding a row's bucketized value (as text: codes change between versions)
SIG = "__v"


def check(plan: Plan) -> None:
    """What m-invariance cannot keep for LGB, refused before any work (module docstring):
    flagged QIs, more than one sensitive column, passed-through columns (a counterfeit row
    could not fill them without telling itself apart)."""
    flagged = [q.name for q in plan.qis if q.flag]
    if flagged:
        raise UnsupportedError(f"history: invariant with history.person keeps the buckets of one sensitive column; "
                               f"flagged QIs ({', '.join(flagged)}) move a person's cells between buckets and local "
                               "equivalence groups as their flags change. Set 'history: independent'")
    shared.one_signature(plan)
    shared.no_passthrough(plan)


def bucketized(attrs: list[Attribute]) -> Attribute:
    """The one attribute whose buckets keep their signatures."""
    (x,) = [a for a in attrs if a.bucketized]
    return x


def signed_rows(engine: Engine, plan: Plan, pairs: str, x: Attribute) -> str:
    """``(__rid, p0, __v)``: each row's person and bucketized value as text (``signed.sql.j2``)."""
    target = engine.work("lgb_signed")
    engine.run("families/lgb/signed.sql.j2", {"a": x.index}, target=target, base=plan.base, pairs=pairs, dom=x.dom)
    return target


def bucket_assign(engine: Engine, dealt: str, x: Attribute) -> str:
    """``(__rid, __cid)``: attribute ``x``'s buckets as groups of rows (``bucket_assign.sql.j2``)."""
    target = engine.work("lgb_bucket_assign")
    engine.run("families/lgb/bucket_assign.sql.j2", {"a": x.index}, target=target, dealt=dealt)
    return target


def invariant(engine: Engine, plan: Plan, people: str, groups: str, previous: int) -> LgbResult:
    """Version n of an m-invariant LGB release: ``people`` and ``groups`` are the private
    state tables, ``previous`` the version whose state they hold."""
    start = time.perf_counter()
    k = plan.k
    subsets = qi_partition(engine, plan, k)
    attrs = attributes(engine, plan, subsets, (groups, previous))
    x = bucketized(attrs)
    pairs = value_pairs(engine, plan, attrs, subsets)
    signed = signed_rows(engine, plan, pairs, x)
    rounds = 0

    def group_new(rest: str, rows: int) -> tuple[str | None, int, dict]:
        nonlocal rounds
        fresh = engine.work("lgb_new_pairs")
        engine.run("families/lgb/kept_pairs.sql.j2", {"a": x.index}, target=fresh, rows=rest, dom=x.dom,
                   assign=None)
        try:   # Alg. 2 on the new rows alone (t-closeness: against the whole version's values)
            new = local_bucketization(engine, attrs, fresh, plan.key, whole=pairs)
        except PrivacyCheckFailed:    # the new rows as a whole fail the principle: held back
            return None, rows, {"buckets_formed": 0}
        rounds = new.rounds
        assign = bucket_assign(engine, new.dealt, x)
        engine.release_tables(new.dealt, new.shown, new.ranges, fresh, always=True)
        return assign, 0, {"buckets_formed": new.buckets[x.name]}

    kept = shared.keep(engine, plan, shared.Signature(signed, SIG, [{"col": SIG, "type": "VARCHAR", "part": None}], []),
                       group_new, people, groups, previous)
    dealt, shown = engine.work("lgb_dealt"), engine.work("lgb_shown")
    engine.run("families/lgb/kept_pairs.sql.j2", {"a": x.index}, target=dealt, rows=kept.rows, dom=x.dom,
               assign=kept.assign)
    engine.run("families/lgb/bucket_shuffle.sql.j2", plan.key.params(), target=shown, dealt=dealt)
    real = engine.work("lgb_real")
    engine.run("families/lgb/real_rows.sql.j2", target=real, base=subsets.base, assign=kept.assign)
    t1 = time.perf_counter()
    legs = local_generalization(engine, plan, real, k, plan.key)          # Alg. 1, line 7
    buckets = Buckets(dealt, shown, rounds, {x.name: kept.classes}, {}, "", "m-invariance")
    notes = {"subsets": len(subsets.kept), "subsets_suppressed": len(subsets.dropped),
             "attribute_classes": {a.name: a.kind for a in attrs}, "bucketization_rounds": rounds,
             "buckets": buckets.buckets, "bucket_leaves": {}, "generalization_rounds": legs.rounds,
             "groups": legs.classes, "generalization_seconds": round(time.perf_counter() - t1, 4), **kept.notes}
    return LgbResult(attrs, replace(subsets, base=real), buckets, legs, time.perf_counter() - start, notes,
                     held=plan.base_rows - subsets.suppressed - kept.real, signed=kept.rows, assign=kept.assign,
                     counterfeits=kept.counterfeits)
