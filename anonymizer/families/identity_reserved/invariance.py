"""m-invariance (:mod:`anonymizer.versions.invariance`; Xiao and Tao, SIGMOD 2007) for paper
004's identity-reserved table, whose unit is the individual, not the record.

- **The signature** of an individual is what the published table shows of it, its records'
  sensitive values (``S(p)`` with multiplicity, sorted, as one JSON list;
  ``signed.sql.j2``); a class keeps the multiset of its individuals' lists. The IR and EIR
  models (Definitions 2.3, 3.3, 3.4) read a class only through that multiset, so a kept class
  meets them as it did when it formed, and a person's candidate lists, intersected over the
  versions, are their class's.
- **Who is who**: ``history.person`` names the individual column (an identity-reserved
  release follows its individuals; :func:`check`).
- **Records that change.** An individual who only *gained* records keeps the list the
  previous version published and their new records are held back (``gained.sql.j2``;
  counted as suppressed, every version after): their new list is an old one plus a value,
  so anyone who knows that they gained a record could pair their old class's lists with
  their new class's and pin both (found by an adversarial review; 66 of 66 such patients
  narrowed below 3 candidate lists in a test of 800 patients). An individual whose records
  changed otherwise (a value replaced or a record removed) has another list: their old
  place becomes a counterfeit and they enter as new (m-Distinct's updates, Li and Zhou
  2008), as in every family; the adversary we claim against knows *when* they changed, not
  how.
- **Boxes** are the ranges of the individuals' QI codes (one value per individual, section
  4.4.3), so a newcomer takes an open place only inside a group's range; the published
  labels are each class's interval or value set (section 2.2), under GeneIR too (the kept
  classes have no hierarchy level of their own).
- **New groups** are formed by the release's algorithm (DAnonyIR or GeneIR) on the new
  individuals alone (their records).
- **Counterfeits** are whole individuals: one counterfeit record per value of the list, with
  the QI codes of a real member of the class; Id_num is drawn anew every version over real and
  counterfeit individuals alike, and each class publishes its count of counterfeit
  individuals (``counterfeits``). Passed-through columns are refused (a counterfeit record
  could not fill them), as is ``renumber: appearance`` (it numbers by the source's order,
  which counterfeits do not have).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from anonymizer.engine.session import Engine
from anonymizer.engine.names import ident
from anonymizer.errors import PrivacyCheckFailed, UnsupportedError
from anonymizer.versions import invariance as shared
from anonymizer.families.identity_reserved.individuals import Individuals, individuals
from anonymizer.families.identity_reserved.result import IRResult
from anonymizer.plan import Plan
from anonymizer.families.identity_reserved import options

_T = "families/identity_reserved/invariance/"
#: the work column holding an individual's list of sensitive values (JSON)
SIG = "__sig"


@dataclass(frozen=True)
class Signed:
    """A version's individuals as m-invariance and the gate read them.

    Attributes:
        rows: one row per individual (``__rid``, its first record's id, negative for a
            counterfeit; ``p0``, ``i0``, ``q<i>``, :data:`SIG`).
        assign: ``(__rid, __cid[, __gid])``: every published individual and its class
            (``__gid``: its private group, in an m-invariant version).
        base: the records the version publishes: ``plan.base``, with the counterfeit records
            (negative ids) in an m-invariant version.
        kept: ``assign`` has ``__gid``.
        counterfeits: counterfeit individuals published.
    """

    rows: str
    assign: str
    base: str
    kept: bool
    counterfeits: int = 0


def check(plan: Plan) -> None:
    """What m-invariance cannot keep here, refused before any work (module docstring)."""
    individual = plan.individual.column.name if plan.individual is not None else None
    if plan.person is None or individual is None or plan.person.column.name != individual:
        raise UnsupportedError("history: invariant keeps an identity-reserved release's individuals across versions: "
                               f"set history.person to the individual column ({individual!r})")
    if options.of(plan).renumber == "appearance":
        raise UnsupportedError("history: invariant publishes counterfeit individuals, and renumber: appearance numbers "
                               "Id_num in the source's row order, which would tell them apart; leave renumber out")
    shared.no_passthrough(plan)


def signed_rows(engine: Engine, plan: Plan) -> str:
    """One row per individual of ``plan.base`` with its list (``signed.sql.j2``)."""
    target = engine.work("ir_signed")
    engine.run(_T + "signed.sql.j2", target=target, base=plan.base, qis=[{"i": q.index} for q in plan.qis], sig=SIG)
    return target


def first(engine: Engine, plan: Plan, people: Individuals, result: IRResult) -> Signed:
    """A version that keeps no signature yet (the first, or one under ``independent``): its
    classes as classes of individual rows (``classes.sql.j2``), each class its own group."""
    assign = engine.work("ir_classes")
    engine.run(_T + "classes.sql.j2", target=assign, assign=result.assign, rec=people.rec)
    return Signed(signed_rows(engine, plan), assign, plan.base, kept=False)


def invariant(engine: Engine, plan: Plan, people: str, groups: str,
              previous: int) -> tuple[str, IRResult, Signed]:
    """Version n of an m-invariant identity-reserved release: ``people`` and ``groups`` are
    the private state tables, ``previous`` the version whose state they hold. Returns the
    published records with their Id_num (``(__rid, pid, s)``, counterfeits too), their
    classes (``assign``: ``(pid, cid, irid)``, ``irid`` negative for a counterfeit individual)
    and the individual rows."""
    from anonymizer.families.identity_reserved.form import run_algorithm
    start = time.perf_counter()
    kept_records = engine.work("ir_kept_records")
    engine.run(_T + "gained.sql.j2", {"previous": previous}, target=kept_records, base=plan.base, people=people)
    held = plan.base_rows - engine.count(kept_records)
    plan = replace(plan, base=kept_records)   # base_rows stays: the held-back records count as suppressed
    lists = signed_rows(engine, plan)
    rounds, steps = [], {}

    def group_new(rest: str, rows: int) -> tuple[str | None, int, dict]:
        if rows < plan.k:
            return None, rows, {}
        base = engine.work("ir_new_records")
        engine.run(_T + "of_individuals.sql.j2", target=base, base=plan.base, rows=rest)
        records = engine.count(base)
        sub = replace(plan, base=base, base_rows=records)
        new = individuals(engine, sub)
        try:
            result = run_algorithm(engine, sub, new)
        except PrivacyCheckFailed:
            engine.release_tables(new.rec, new.ind, base, always=True)
            return None, rows, {}
        assign = engine.work("ir_new_classes")
        engine.run(_T + "classes.sql.j2", target=assign, assign=result.assign, rec=new.rec)
        rounds.append(result.rounds)
        steps.update(result.notes)
        engine.release_tables(new.rec, new.ind, base, always=True)
        return assign, result.suppressed_individuals, {"groups_formed": result.classes}

    individual_rows = replace(plan, base=lists, base_rows=engine.count(lists))
    kept = shared.keep(engine, individual_rows,
                       shared.Signature(lists, SIG, [{"col": SIG, "type": "VARCHAR", "part": None}],
                                        [q.code for q in plan.qis]),
                       group_new, people, groups, previous)
    records = engine.work("ir_records")
    kinds = {"__rid": "rid", "s0": "value", **{f"q{q.index}": "qi" for q in plan.qis}}
    types = engine.columns(plan.base)
    engine.run(_T + "records.sql.j2", target=records, base=plan.base, rows=kept.rows, sig=SIG, stype=types["s0"],
               columns=[{"name": ident(c), "kind": kinds.get(c)} for c in types])
    signed = Signed(kept.rows, kept.assign, records, kept=True, counterfeits=kept.counterfeits)
    rec, numbered = published(engine, plan, signed)
    real_records = engine.count(rec, "__rid >= 0")
    # no count of counterfeit records: its change from a version to the next is the records
    # of the individuals who left, whose lists' lengths it would give away
    notes = dict(kept.notes, invariance=dict(kept.notes["invariance"], unit="individuals", held_records=held))
    result = IRResult(numbered, None, individual_rows.base_rows - kept.real, plan.base_rows - real_records,
                      kept.classes, sum(rounds), {**steps, **notes, "seconds": time.perf_counter() - start})
    return rec, result, signed


def published(engine: Engine, plan: Plan, signed: Signed, attempt: int = 0) -> tuple[str, str]:
    """The published individuals of an m-invariant version in paper 004's contract: their
    records with Id_num (``rec``: ``(__rid, pid, s)``, ``rec.sql.j2``) and their classes
    (``(pid, cid, irid)``, ``irid`` negative for a counterfeit; ``numbered.sql.j2``)."""
    numbered, rec = engine.work(f"ir_numbered{attempt}"), engine.work(f"ir_rec_published{attempt}")
    engine.run(_T + "numbered.sql.j2", plan.key.params(), target=numbered, assign=signed.assign, rows=signed.rows,
               sig=SIG)
    engine.run(_T + "rec.sql.j2", target=rec, numbered=numbered, records=signed.base)
    return rec, numbered


def merge(engine: Engine, plan: Plan, candidate: str, rec: str, result: IRResult, signed: Signed,
          colliding: str, attempt: int) -> tuple[str, IRResult, Signed]:
    """Merge the groups of the candidate's classes in ``colliding`` (``(eq_class)``: ec_id)
    with their neighbours (:func:`anonymizer.versions.invariance.merge`): the repair when a
    class's labels would repeat an earlier version's with another multiset of lists."""
    classes = engine.work(f"ir_colliding{attempt}")
    engine.run(_T + "colliding.sql.j2", target=classes, candidate=candidate, rec=rec, numbered=result.assign,
               colliding=colliding)
    signed = replace(signed, assign=shared.merge(engine, plan, signed.assign, signed.rows, classes, attempt))
    engine.release_tables(rec, result.assign, classes, always=True)
    rec, numbered = published(engine, plan, signed, attempt + 1)
    (count,) = engine.execute(f"SELECT count(DISTINCT cid) FROM {numbered}").fetchone()
    notes = dict(result.notes, invariance=dict(result.notes["invariance"], merges=attempt + 1))
    return rec, replace(result, assign=numbered, classes=count, notes=notes), signed
