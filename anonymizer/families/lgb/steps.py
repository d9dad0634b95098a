"""Paper 000's LGB algorithms in the one release pipeline (:mod:`anonymizer.families`):
Algorithm 1 (bucketization, local generalization), the LGB table of Fig. 2, its
verification (Corollary 3) and its section 4.1 metrics (:mod:`.form`)."""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.families.lgb import form
from anonymizer.families.lgb.algorithm import lgb
from anonymizer.plan import Plan
from anonymizer.release.candidate import Rounds, Verified
from anonymizer.release.summary import fmt


def run(engine: Engine, plan: Plan) -> Rounds:
    result = lgb(engine, plan)
    return Rounds(result, result.suppressed, f"{result.notes['groups']} local equivalence groups")


def build(engine: Engine, plan: Plan, rounds: Rounds) -> form.LgbCandidate:
    return form.build(engine, plan, rounds.result)


def verify(engine: Engine, plan: Plan, rounds: Rounds, built: form.LgbCandidate) -> tuple[dict, list[dict]]:
    figures = form.judge(engine, built)
    return figures, form.verify(engine, plan, rounds.result, built, figures)


def measure(engine: Engine, plan: Plan, rounds: Rounds, built: form.LgbCandidate,
            checked: tuple[dict, list[dict]]) -> Verified:
    figures, checks = checked
    result = rounds.result
    return Verified(built.table, built.columns, (form.GID, form.ROW_ID), built.rows,
                    plan.null_suppressed + result.suppressed, built.groups, checks,
                    {"groups": built.groups, "smallest_group": figures["smallest"]},
                    form.metrics(engine, plan, result, built, figures),
                    {"rounds": result.groups.rounds, **result.notes})


def summary_lines(r) -> list[str]:
    a, u = r.algorithm or {}, r.utility or {}
    lines = []
    if "bucketization_rounds" in a:
        classes = ", ".join(f"{n} {kind}" for n, kind in a["attribute_classes"].items() if kind != "qi")
        buckets = ", ".join(f"{n} {b}" for n, b in a["buckets"].items())
        lines.append(f"  subsets       {a['subsets']} by the QI partition (Def. 8), {a['subsets_suppressed']} "
                     f"suppressed (under k rows); bucketized: {classes}")
        lines.append(f"  buckets       {buckets} (Alg. 2, {a['bucketization_rounds']} rounds); "
                     f"{a['groups']} local equivalence groups ({a['generalization_rounds']} rounds)")
    if "c_dm" in u:
        lines.append(f"  utility       C_DM {u['c_dm']}, NCP(T) {fmt(u['ncp'])}, NCP per QI cell "
                     f"{fmt(u['ncp_per_qi_cell'])} (section 4.1)")
    return lines
