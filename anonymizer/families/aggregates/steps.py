"""dp-aggregates in the one release pipeline (:mod:`anonymizer.families`): the noisy cells
(:mod:`.cells`) are the candidate; verification re-reads the bounded rows in SQL (no person
beyond its cells and rows, no value beyond its bounds); nothing is read by the cross-version
gate (the versions compose in the budget ledger)."""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.aggregates import options
from anonymizer.families.aggregates.cells import UNITS, Cells, cells, check_keys, measured, steps_of
from anonymizer.plan import Plan
from anonymizer.release.candidate import FamilySteps, ReleaseResult, Rounds, Verified
from anonymizer.versions.continuation import Continuation


def run(engine: Engine, plan: Plan, history: Continuation) -> Rounds[Cells]:
    result = cells(engine, plan)
    return Rounds(result, 0, f"{result.cells} cells")


def build(engine: Engine, plan: Plan, rounds: Rounds[Cells]) -> Cells:
    return rounds.result


def verify(engine: Engine, plan: Plan, rounds: Rounds[Cells], built: Cells) -> list[dict]:
    """The bounds the noise was scaled to, re-read on the bounded rows (``check_bounds.sql.j2``);
    each check's figure is the bound declared, never what the rows hold."""
    a = options.of(plan)
    valued = measured(a)
    row = engine.one("families/aggregates/check_bounds.sql.j2", bounded=built.bounded,
                     qis=[ident(q.code) for q in plan.qis], values=[ident(f"m{j}") for j in range(len(valued))])
    # the verdicts only: what the rows hold (a person's most cells, the values' extremes) is the
    # input's, outside epsilon, and the audit and the summary show these entries
    most_cells, most_rows = int(row[0]), int(row[1])
    checks = [{"model": f"at most {a.groups_per_person} cell(s) per person", "figure": a.groups_per_person,
               "holds": most_cells <= a.groups_per_person},
              {"model": f"at most {a.rows_per_group} row(s) per person and cell", "figure": a.rows_per_group,
               "holds": most_rows <= a.rows_per_group}]
    for j, m in enumerate(valued):
        lo, hi = row[2 + 2 * j], row[3 + 2 * j]
        checks.append({"model": f"{m[0]} within [{m[1][0]:g}, {m[1][1]:g}]", "figure": list(m[1]),
                       "holds": lo is None or (-UNITS <= lo and hi <= UNITS)})
    for c in checks:
        if not c["holds"]:   # a bug of ours: the bounding template let a person through
            raise PrivacyCheckFailed(str(c["model"]), c["figure"], 0, reason="the contribution bounding did not hold on "
                                                                        "the bounded rows (a bug: please report it)")
    return checks


def released(engine: Engine, plan: Plan, rounds: Rounds[Cells], built: Cells, checked: list[dict]) -> None:
    return None


def measure(engine: Engine, plan: Plan, rounds: Rounds[Cells], built: Cells, checked: list[dict]) -> Verified:
    return Verified(built.published, built.columns, tuple(q.name for q in plan.qis), built.cells, 0, built.cells,
                    checked, {"cells": built.cells}, {}, dict(built.notes))


def summary_lines(r: ReleaseResult) -> list[str]:
    n = (r.algorithm or {}).get("dp_aggregates") or {}
    if not n:
        return []
    scales = ", ".join(f"{k[:-6] if k.endswith('_scale') else k[:-6]} {v:.4g}" for k, v in n.items()
                       if k.endswith("_scale") or k.endswith("_sigma"))
    keys = f"private keys (threshold {n['threshold']} persons)" if n["keys"] == "private" else "public keys"
    return [f"  DP cells      epsilon {n['epsilon']:g}, delta {n['delta']:g}: {n['noise']} noise, "
            f"{n['quantities']} noisy quantities (epsilon {n['epsilon_each']:.4g} each), {keys}; at most "
            f"{n['groups_per_person']} cell(s) and {n['rows_per_group']} row(s) a cell per person",
            f"  noise         {scales} (units: rows; a sum's units are its bounds' largest magnitude / {UNITS})"]


class Steps(FamilySteps[Cells, Cells, list[dict]]):
    """This family's steps, the functions above."""

    label = "dp-aggregates"
    run, build, verify = staticmethod(run), staticmethod(build), staticmethod(verify)
    released, measure, summary_lines = staticmethod(released), staticmethod(measure), staticmethod(summary_lines)
    refuse = staticmethod(check_keys)


STEPS = Steps()
