"""m-invariance (:mod:`anonymizer.versions.invariance`; Xiao and Tao, SIGMOD 2007) for
anatomy, paper 002's two published tables.

- **The signature** is the multiset of a group's composite sensitive vectors (Definition 5),
  what its rows of the sensitive table publish (``signed.sql.j2`` writes each row's vector as
  one value). One sensitive column is kept (:func:`check`): with several, a person whose
  one value changed would restart the others' signatures too, and an adversary who knows
  which value changed keeps intersecting the others across the change.
- **No box.** Anatomy publishes QIs as they are, so a newcomer takes any open place of its
  vector (Xiao and Tao's balancing, with the box condition void).
- **New groups** are formed by the release's MSB algorithm on the new rows alone.
- **Counterfeits** appear in the sensitive table only (the QI table holds real records):
  each group's rows there carry its count of counterfeit records (``counterfeits``), so the
  QI table's group size plus that count is the sensitive table's sum, and aggregate queries
  can discount them, as the paper publishes per group.
- Passed-through columns are kept: no counterfeit row enters the QI table.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from anonymizer.engine.session import Engine
from anonymizer.versions import invariance as shared
from anonymizer.families.anatomy.buckets import build_buckets, build_levels
from anonymizer.families.anatomy.msb import MsbResult, msb
from anonymizer.plan import Plan

if TYPE_CHECKING:
    from anonymizer.families.anatomy.models import LslDiversity, MultiLDiversity

#: the work column holding a row's composite sensitive vector (a JSON list)
SIG = "__sig"


def invariant(engine: Engine, plan: Plan, people: str, groups: str, previous: int) -> MsbResult:
    """Version n of an m-invariant anatomy release: ``people`` and ``groups`` are the private
    state tables, ``previous`` the version whose state they hold. The levels and buckets the
    verification reads are those of every published record, counterfeits included."""
    start = time.perf_counter()
    signed = signed_rows(engine, plan, plan.base)
    types = engine.columns(plan.base)
    values = [{"col": SIG, "type": "VARCHAR", "part": None}] + [
        {"col": k.internal, "type": types[k.internal], "part": i} for i, k in enumerate(plan.sensitive)]

    def group_new(rest: str, rows: int) -> tuple[str | None, int, dict]:
        grouped = msb(engine, replace(plan, base=rest, base_rows=rows))
        engine.release_tables(grouped.levels, grouped.buckets, always=True)   # made again for every record below
        return grouped.assign, grouped.suppressed, {"greedy_steps": grouped.notes["greedy_steps"],
                                                    "groups_formed": grouped.groups}

    kept = shared.keep(engine, plan, shared.Signature(signed, SIG, values, []), group_new, people, groups, previous)
    model = cast("LslDiversity | MultiLDiversity", plan.models[0])   # the release's one model (options.pair)
    published = replace(plan, base=kept.rows)
    levels = build_levels(engine, published, [model.l_of(s) for s in range(3)])
    buckets, _, _ = build_buckets(engine, published, levels, plan.seed)
    return MsbResult(kept.assign, levels, buckets, kept.classes, plan.base_rows - kept.real,
                     time.perf_counter() - start, {"groups": kept.classes, **kept.notes},
                     rows=kept.rows, counterfeits=kept.counterfeits, kept=True)


def signed_rows(engine: Engine, plan: Plan, base: str) -> str:
    """``base`` with each row's composite sensitive vector in column :data:`SIG`."""
    target = engine.work("anatomy_signed")
    engine.run("families/anatomy/signed.sql.j2", target=target, base=base, sens=[k.internal for k in plan.sensitive],
               sig=SIG)
    return target
