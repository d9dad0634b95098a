"""Paper 004's identity-reserved algorithms in the one release pipeline
(:mod:`anonymizer.families`): individuals (Id_num), DAnonyIR or GeneIR, the Table 4 table,
verified and measured (:mod:`.form`), and the release's earlier versions (m-invariance of
the individuals' lists, :mod:`.invariance`; the gate, :mod:`anonymizer.versions.combination`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from anonymizer.engine.session import Engine
from anonymizer.release.candidate import FamilySteps
from anonymizer.versions import invariance as shared
from anonymizer.families.identity_reserved import form, invariance
from anonymizer.families.identity_reserved.individuals import individuals
from anonymizer.families.identity_reserved.options import gate_models, ungated
from anonymizer.plan import Plan
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.versions.released import Released
from anonymizer.numbers import fmt
from anonymizer.engine.names import ident
from anonymizer.families.identity_reserved.result import IRResult

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult
    from anonymizer.versions.continuation import Continuation

#: what the algorithm hands on: the records table, the algorithm's result, the individuals'
#: signatures (an m-invariant release) or None
IRRounds = tuple[str, IRResult, "invariance.Signed | None"]


def run(engine: Engine, plan: Plan, history: Continuation) -> Rounds[IRRounds]:
    """Alg. 1 line 1 (Id_num), then Algorithm 1 (DAnonyIR) or GeneIR; in an m-invariant
    version, the individuals keep their classes' lists first (:mod:`.invariance`)."""
    kept = history.state
    signed: invariance.Signed | None
    if kept is not None:
        rec, result, signed = invariance.invariant(engine, plan, *kept)
    else:
        people = individuals(engine, plan)
        engine.say(f"{plan.algorithm}: {people.count} individuals, {people.records} records, "
                   f"{len(plan.qis)} QIs")
        result = form.run_algorithm(engine, plan, people)
        rec, signed = people.rec, invariance.first(engine, plan, people, result) if _gated(plan) else None
    return Rounds((rec, result, signed), result.suppressed_records, f"{result.suppressed_individuals} individuals "
                                                                    "suppressed")


def _gated(plan: Plan) -> bool:
    """Whether the cross-version gate reads this release's individuals (a person key
    naming the individuals)."""
    return ungated(plan.target.history, plan.columns) is None


def _plan(plan: Plan, signed: invariance.Signed | None) -> Plan:
    """The plan whose ``base`` holds the published records (counterfeits too)."""
    return plan if signed is None else replace(plan, base=signed.base)


def build(engine: Engine, plan: Plan, rounds: Rounds[IRRounds]) -> form.IRCandidate:
    """The candidate (the driver then merges the groups whose labels an earlier version
    published with another multiset of lists: :func:`repairable`, :func:`merge_groups`)."""
    rec, result, signed = rounds.result
    return form.build(engine, _plan(plan, signed), rec, result, counterfeits=bool(signed and signed.kept))


def repairable(engine: Engine, plan: Plan, rounds: Rounds[IRRounds], built: form.IRCandidate) -> Released | None:
    """The candidate's labels for the driver's repair, in an m-invariant version (:mod:`.invariance`)."""
    _, _, signed = rounds.result
    return _released(engine, plan, built) if signed and signed.kept else None


def merge_groups(engine: Engine, plan: Plan, rounds: Rounds[IRRounds], built: form.IRCandidate, colliding: str,
                 attempt: int) -> form.IRCandidate:
    """The groups of the classes in ``colliding`` merged with their neighbours
    (:func:`.invariance.merge`), and the candidate built again."""
    rec, result, signed = rounds.result
    assert signed is not None   # repairable: an m-invariant version's signatures
    rec, result, signed = invariance.merge(engine, plan, built.table, rec, result, signed, colliding, attempt)
    form.drop(engine, plan, built)
    rounds.result = (rec, result, signed)
    return form.build(engine, _plan(plan, signed), rec, result, counterfeits=True)


def verify(engine: Engine, plan: Plan, rounds: Rounds[IRRounds],
           built: form.IRCandidate) -> list[dict]:
    """The model and the table's form."""
    _, _, signed = rounds.result
    return form.verify(engine, _plan(plan, signed), built)


def released(engine: Engine, plan: Plan, rounds: Rounds[IRRounds], built: form.IRCandidate,
             checked: list[dict]) -> Released | None:
    """The candidate as the gate reads it, with the individuals' signatures, where the gate
    follows them (DuckDB, a release it covers: :func:`_gated`); else ``None``."""
    _, _, signed = rounds.result
    if signed is None:
        return None
    people, members, groups = shared.gate_inputs(engine, signed.assign, signed.rows, signed.rows, invariance.SIG,
                                                 signed.kept)
    return _released(engine, plan, built, people=people, members=members, groups=groups)


def _released(engine: Engine, plan: Plan, built: form.IRCandidate, signed: invariance.Signed | None = None,
              **state) -> Released:
    """The candidate as the gate reads it: one row per published individual whose value is
    its list, and the classes' boxes are their QI labels; ``state``: the person tables."""
    rows, classes = engine.work("gate_individuals"), engine.work("gate_classes")
    engine.release_tables(rows, classes, always=True)
    sens = plan.sensitive[0].column.name
    engine.run("families/identity_reserved/invariance/gate_rows.sql.j2", target=rows, candidate=built.table,
               sens=ident(sens))
    engine.run("families/identity_reserved/invariance/gate_classes.sql.j2", target=classes, candidate=built.table,
               labels=[ident(q.name) for q in plan.qis])
    models, bound = gate_models(form.model_of(plan), sens)
    return Released(rows, classes, form.EC_ID, [q.name for q in plan.qis], [sens], sens, bound=bound, models=models,
                    **state)


def measure(engine: Engine, plan: Plan, rounds: Rounds[IRRounds], built: form.IRCandidate,
            checked: list[dict]) -> Verified:
    _, result, signed = rounds.result
    checks = checked
    notes = {"rounds": result.rounds, **result.notes}
    k = getattr(form.model_of(plan), "k", None)
    if signed is not None and signed.kept and k:   # classes under k real individuals (counterfeits fill them)
        notes["invariance"]["thin_classes"] = shared.thin(engine, signed.assign, k)
    return Verified(built.table, built.columns, (form.EC_ID, "__pos"), built.rows,
                    plan.null_suppressed + result.suppressed_records, built.classes, checks,
                    {"classes": built.classes, "individuals": built.individuals},
                    form.metrics(engine, plan, built, result, counterfeits=bool(signed and signed.kept)), notes,
                    # the source's records would tell, version to version, how many the leavers held
                    audit_rows_in=built.rows + plan.null_suppressed + result.suppressed_records
                    if signed is not None and signed.kept else None)


def summary_lines(r: ReleaseResult) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "merges" in a:   # DAnonyIR
        lines.append(f"  clustering    {a['steps']} argmin steps (Alg. 1 lines 7-8), {a['merges']} classes merged, "
                     f"{a['residual']} residual individuals: {a['joined']} joined a class, "
                     f"{a['residual'] - a['joined']} suppressed (Alg. 7)")
    if "invariance" in a:
        inv = a["invariance"]
        lines.append(shared.summary_line(inv, "classes", f"individuals; {inv['held_records']} records of "
                                                          "individuals who gained them held back"))
    if "nloss" in u:
        lines.append(f"  individuals   {u['individuals']} in {u['classes']} classes ({fmt(u['individuals_per_class'])} "
                     f"per class), {u['suppressed_individuals']} suppressed")
        lines.append(f"  utility       NLoss {fmt(u['nloss'])} (Eq. 15); per QI "
                     + ", ".join(f"{k} {fmt(v)}" for k, v in u["nloss_per_qi"].items()))
        if "vulnerable" in u:
            v = u["vulnerable"]
            lines.append(f"  vulnerable    {v['vulnerable']} of {v['classes']} classes satisfy the IR model but not "
                         f"its EIR version (section 5)")
    return lines


class Steps(FamilySteps[IRRounds, form.IRCandidate, list[dict]]):
    """This family's steps (:class:`~anonymizer.release.candidate.FamilySteps`), the functions above."""

    label = "identity-reserved"
    run, build, verify = staticmethod(run), staticmethod(build), staticmethod(verify)
    released, measure, summary_lines = staticmethod(released), staticmethod(measure), staticmethod(summary_lines)
    check_versions = staticmethod(invariance.check)
    repairable, merge = staticmethod(repairable), staticmethod(merge_groups)


STEPS = Steps()
