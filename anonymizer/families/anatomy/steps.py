"""Paper 002's MSB algorithms in the one release pipeline (:mod:`anonymizer.families`):
groups, then the two anatomy tables (the QI table and the sensitive table, published
together), verified and measured (:mod:`.form`), and read with the release's earlier
versions (m-invariance, :mod:`.invariance`; the gate, :mod:`anonymizer.versions.combination`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.release.candidate import FamilySteps
from anonymizer.versions import invariance as shared
from anonymizer.families.anatomy import form
from anonymizer.families.anatomy.invariance import SIG, invariant, signed_rows
from anonymizer.families.anatomy.msb import MsbResult, msb
from anonymizer.plan import Plan
from anonymizer.versions import combination
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.versions.released import Released
from anonymizer.numbers import fmt

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult
    from anonymizer.versions.continuation import Continuation


def run(engine: Engine, plan: Plan, history: Continuation) -> Rounds[MsbResult]:
    form.check_names(plan)
    kept = history.state
    result = msb(engine, plan) if kept is None else invariant(engine, plan, *kept)
    return Rounds(result, result.suppressed, f"{result.notes['groups']} groups")


def build(engine: Engine, plan: Plan, rounds: Rounds[MsbResult]) -> form.AnatomyCandidate:
    return form.build(engine, plan, rounds.result, counterfeits=shared.keeps_signatures(plan))


def verify(engine: Engine, plan: Plan, rounds: Rounds[MsbResult],
           built: form.AnatomyCandidate) -> tuple[dict, list[dict]]:
    """The model on both tables."""
    figures = form.judge(engine, plan, built, rounds.result.buckets)
    return figures, form.verify(plan, built, figures)


def released(engine: Engine, plan: Plan, rounds: Rounds[MsbResult], built: form.AnatomyCandidate,
             checked: tuple[dict, list[dict]]) -> Released | None:
    """The candidate as the gate reads it: a group's box is
    its members' QI values, its values the composite vectors (each attribute counted apart)."""
    result = rounds.result
    rows, boxes = engine.work("gate_records"), engine.work("gate_groups")
    group_id = ident(form.GROUP_ID)
    sens = [k.column.name for k in plan.sensitive]
    engine.run("families/anatomy/records.sql.j2", target=rows, sens_table=built.sens_table, group_id=group_id,
               sens=[ident(s) for s in sens], count=ident(form.COUNT))
    engine.run("families/anatomy/members.sql.j2", target=boxes, qi_table=built.qi_table, group_id=group_id,
               qis=[ident(q.name) for q in plan.qis], box=ident("members"))
    people = members = groups = links = None
    if plan.person is not None:   # groups kept under independent too: invariant may follow
        signed = result.rows or signed_rows(engine, plan, plan.base)
        people, members, groups = shared.gate_inputs(engine, result.assign, signed, signed, SIG, result.kept)
        links = engine.work("gate_linked")
        engine.run("families/anatomy/linked.sql.j2", target=links, assign=result.assign, base=plan.base,
                   qis=[{"dom": q.dom} for q in plan.qis])
    model = plan.models[0]
    return Released(
        rows, boxes, form.GROUP_ID, ["members"], sens, "+".join(sens) if plan.person is not None else None,
        people, members, groups, bound=combination.smallest_l(model), parts=len(sens), overlap=True, links=links,
        levels={k.column.name: _levels(k.column.security) for k in plan.sensitive})


def _levels(security) -> tuple[int, dict]:
    """A sensitive column's default level and named values' levels (no ``security``: level 2)."""
    return (security.default, dict(security.values)) if security else (2, {})


def measure(engine: Engine, plan: Plan, rounds: Rounds[MsbResult], built: form.AnatomyCandidate,
            checked: tuple[dict, list[dict]]) -> Verified:
    figures, checks = checked
    suppressed = plan.null_suppressed + rounds.suppressed
    result = rounds.result
    return Verified(built.qi_table, built.qi_columns, (), built.rows, suppressed, built.groups, checks,
                    {"groups": built.groups, "min_group_size": checks[0]["min_group_size"]},
                    form.metrics(plan, figures, suppressed),
                    {"rounds": result.notes.get("greedy_steps", 0), **result.notes},
                    parts=(("sensitive", built.sens_table, built.sens_columns),))


def summary_lines(r: ReleaseResult) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "residual_added" in a:
        lines.append(f"  greedy        {a['buckets']} buckets over {a['dimensions']} sensitive attributes; "
                     f"{a['greedy_steps']} steps (batch {a['batch']}) formed {a['groups']} groups, "
                     f"{a['residual_added']} records added to them, {a['suppressed']} suppressed")
    if "invariance" in a:
        inv = a["invariance"]
        lines.append(shared.summary_line(inv, "groups", "records"))
    if "additional_information_loss" in u:
        lines.append(f"  utility       additional information loss {fmt(u['additional_information_loss'])} "
                     f"(Def. 14), suppression ratio {fmt(u['suppression_ratio'])} (Def. 15)")
    return lines


class Steps(FamilySteps[MsbResult, form.AnatomyCandidate, tuple[dict, list[dict]]]):
    """This family's steps (:class:`~anonymizer.release.candidate.FamilySteps`), the functions above."""

    label = "MSB"
    run, build, verify = staticmethod(run), staticmethod(build), staticmethod(verify)
    released, measure, summary_lines = staticmethod(released), staticmethod(measure), staticmethod(summary_lines)
    check_versions = staticmethod(shared.one_signature)


STEPS = Steps()
