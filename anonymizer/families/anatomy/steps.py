"""Paper 002's MSB algorithms in the one release pipeline (:mod:`anonymizer.families`):
groups, then the two anatomy tables (the QI table and the sensitive table, published
together), verified and measured (:mod:`.form`)."""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.families.anatomy import form
from anonymizer.families.anatomy.msb import msb
from anonymizer.plan import Plan
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.release.summary import fmt


def run(engine: Engine, plan: Plan) -> Rounds:
    form.check_names(plan)
    result = msb(engine, plan)
    return Rounds(result, result.suppressed, f"{result.notes['groups']} groups")


def build(engine: Engine, plan: Plan, rounds: Rounds) -> form.AnatomyCandidate:
    return form.build(engine, plan, rounds.result)


def verify(engine: Engine, plan: Plan, rounds: Rounds, built: form.AnatomyCandidate) -> tuple[dict, list[dict]]:
    figures = form.judge(engine, plan, built, rounds.result.buckets)
    return figures, form.verify(plan, built, figures)


def measure(engine: Engine, plan: Plan, rounds: Rounds, built: form.AnatomyCandidate,
            checked: tuple[dict, list[dict]]) -> Verified:
    figures, checks = checked
    suppressed = plan.null_suppressed + rounds.suppressed
    result = rounds.result
    return Verified(built.qi_table, built.qi_columns, (), built.rows, suppressed, built.groups, checks,
                    {"groups": built.groups, "min_group_size": checks[0]["min_group_size"]},
                    form.metrics(plan, figures, suppressed), {"rounds": result.notes["greedy_steps"], **result.notes},
                    parts=(("sensitive", built.sens_table, built.sens_columns),))


def summary_lines(r) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "greedy_steps" in a:
        lines.append(f"  greedy        {a['buckets']} buckets over {a['dimensions']} sensitive attributes; "
                     f"{a['greedy_steps']} steps (batch {a['batch']}) formed {a['groups']} groups, "
                     f"{a['residual_added']} records added to them, {a['suppressed']} suppressed")
    if "additional_information_loss" in u:
        lines.append(f"  utility       additional information loss {fmt(u['additional_information_loss'])} "
                     f"(Def. 14), suppression ratio {fmt(u['suppression_ratio'])} (Def. 15)")
    return lines
