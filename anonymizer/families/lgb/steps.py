"""Paper 000's LGB algorithms in the one release pipeline (:mod:`anonymizer.families`):
Algorithm 1 (bucketization, local generalization), the LGB table of Fig. 2, its
verification (Corollary 3) and its section 4.1 metrics (:mod:`.form`), and the release's
earlier versions (m-invariance of the buckets, :mod:`.invariance`; the gate,
:mod:`anonymizer.versions.combination`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from anonymizer.engine.session import Engine
from anonymizer.release.candidate import FamilySteps
from anonymizer.versions import invariance as shared
from anonymizer.families.lgb import form
from anonymizer.families.lgb.algorithm import LgbResult, lgb
from anonymizer.families.lgb.invariance import SIG, bucket_assign, bucketized, check, invariant, signed_rows
from anonymizer.families.lgb.options import ungated
from anonymizer.models import EntropyLDiversity
from anonymizer.families.lgb.models import LUnique
from anonymizer.plan import Plan
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.versions.released import Released
from anonymizer.numbers import fmt

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult
    from anonymizer.versions.continuation import Continuation


def run(engine: Engine, plan: Plan, history: Continuation) -> Rounds[LgbResult]:
    kept = history.state
    result = lgb(engine, plan) if kept is None else invariant(engine, plan, *kept)
    return Rounds(result, result.suppressed, f"{result.notes['groups']} local equivalence groups")


def build(engine: Engine, plan: Plan, rounds: Rounds[LgbResult]) -> form.LgbCandidate:
    return form.build(engine, plan, rounds.result)


def verify(engine: Engine, plan: Plan, rounds: Rounds[LgbResult],
           built: form.LgbCandidate) -> tuple[dict, list[dict]]:
    """Corollary 3 on the table."""
    figures = form.judge(engine, built)
    return figures, form.verify(engine, plan, rounds.result, built, figures)


def released(engine: Engine, plan: Plan, rounds: Rounds[LgbResult], built: form.LgbCandidate,
             checked: tuple[dict, list[dict]]) -> Released | None:
    """The candidate as the gate reads it, where the gate covers
    the release: the classes are the buckets of the one bucketized attribute, with no box
    (``private``: compared through the people who stood in them)."""
    if ungated(plan.target.history, plan.columns) is not None:
        return None
    result = rounds.result
    x = bucketized(result.attrs)
    classes = engine.work("gate_buckets")
    engine.run("families/lgb/bucket_classes.sql.j2", target=classes, candidate=built.table, a=x.index)
    signed = result.signed or signed_rows(engine, plan, result.buckets.dealt, x)
    assign = result.assign or bucket_assign(engine, result.buckets.dealt, x)
    people, members, groups = shared.gate_inputs(engine, assign, signed, signed, SIG, result.assign is not None)
    assert x.principle is not None   # the bucketized attribute has its principle (subsets.attributes)
    principle = replace(x.principle, attribute=x.name)
    bound = principle.l if isinstance(principle, (LUnique, EntropyLDiversity)) else None
    return Released(built.table, classes, f"__bid{x.index}", ["bucket"], [x.name], x.name, people, members, groups,
                    bound=int(bound) if bound is not None else None, private=True, models=(principle,))


def measure(engine: Engine, plan: Plan, rounds: Rounds[LgbResult], built: form.LgbCandidate,
            checked: tuple[dict, list[dict]]) -> Verified:
    figures, checks = checked
    result = rounds.result
    return Verified(built.table, built.columns, (form.GID, form.ROW_ID), built.rows,
                    plan.null_suppressed + result.suppressed, built.groups, checks,
                    {"groups": built.groups, "smallest_group": figures["smallest"]},
                    form.metrics(engine, plan, result, built, figures),
                    {"rounds": result.groups.rounds, **result.notes})


def summary_lines(r: ReleaseResult) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "bucketization_rounds" in a:
        classes = ", ".join(f"{n} {kind}" for n, kind in a["attribute_classes"].items() if kind != "qi")
        buckets = ", ".join(f"{n} {b}" for n, b in a["buckets"].items())
        lines.append(f"  subsets       {a['subsets']} by the QI partition (Def. 8), {a['subsets_suppressed']} "
                     f"suppressed (under k rows); bucketized: {classes}")
        lines.append(f"  buckets       {buckets} (Alg. 2, {a['bucketization_rounds']} rounds); "
                     f"{a['groups']} local equivalence groups ({a['generalization_rounds']} rounds)")
    if "invariance" in a:
        inv = a["invariance"]
        lines.append(shared.summary_line(inv, "buckets", "rows (gid NULL)"))
    if "c_dm" in u:
        lines.append(f"  utility       C_DM {u['c_dm']}, NCP(T) {fmt(u['ncp'])}, NCP per QI cell "
                     f"{fmt(u['ncp_per_qi_cell'])} (section 4.1)")
    return lines


class Steps(FamilySteps[LgbResult, form.LgbCandidate, tuple[dict, list[dict]]]):
    """This family's steps (:class:`~anonymizer.release.candidate.FamilySteps`), the functions above."""

    label = "LGB"
    run, build, verify = staticmethod(run), staticmethod(build), staticmethod(verify)
    released, measure, summary_lines = staticmethod(released), staticmethod(measure), staticmethod(summary_lines)
    check_versions = staticmethod(check)


STEPS = Steps()
