"""Paper 004's identity-reserved algorithms in the one release pipeline
(:mod:`anonymizer.families`): individuals (Id_num), DAnonyIR or GeneIR, the Table 4 table,
verified and measured (:mod:`.form`)."""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.families.identity_reserved import form
from anonymizer.families.identity_reserved.individuals import individuals
from anonymizer.plan import Plan
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.release.summary import fmt


def run(engine: Engine, plan: Plan) -> Rounds:
    """Alg. 1 line 1 (Id_num), then Algorithm 1 (DAnonyIR) or GeneIR."""
    people = individuals(engine, plan)
    engine.say(f"{plan.spec.algorithm.name}: {people.count} individuals, {people.records} records, "
               f"{len(plan.qis)} QIs")
    result = form.run_algorithm(engine, plan, people)
    return Rounds((people, result), result.suppressed_records, f"{result.suppressed_individuals} individuals "
                                                               "suppressed")


def build(engine: Engine, plan: Plan, rounds: Rounds) -> form.IRCandidate:
    people, result = rounds.result
    return form.build(engine, plan, people, result)


def verify(engine: Engine, plan: Plan, rounds: Rounds, built: form.IRCandidate) -> list[dict]:
    return form.verify(engine, plan, built)


def measure(engine: Engine, plan: Plan, rounds: Rounds, built: form.IRCandidate, checked: list[dict]) -> Verified:
    _, result = rounds.result
    return Verified(built.table, built.columns, (form.EC_ID, "__pos"), built.rows,
                    plan.null_suppressed + result.suppressed_records, built.classes, checked,
                    {"classes": built.classes, "individuals": built.individuals},
                    form.metrics(engine, plan, built, result), {"rounds": result.rounds, **result.notes})


def summary_lines(r) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "merges" in a:   # DAnonyIR
        lines.append(f"  clustering    {a['steps']} argmin steps (Alg. 1 lines 7-8), {a['merges']} classes merged, "
                     f"{a['residual']} residual individuals: {a['joined']} joined a class, "
                     f"{a['residual'] - a['joined']} suppressed (Alg. 7)")
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
