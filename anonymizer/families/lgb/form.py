"""The LGB table of paper 000 (Fig. 2): build it, verify it (Corollary 3), measure it.

Published columns: ``row_id`` (a pseudonym: 1..n in the order of the release's secret random
draw, never the source's row number), ``gid`` (the local equivalence group), and per attribute
``<attr>`` (the group's generalized QI value, or a sensitive value of the row's local
bucket), ``<attr>_bid`` (the bucket, NULL for a QI value: the figure's "-"), and for
numeric attributes ``<attr>_low`` / ``<attr>_high`` (the generalized range, or the value);
insensitive columns pass through, identifiers and flag columns are dropped.

Verification (before anything is published), re-read from the candidate table:

- every local equivalence group has at least k rows (Corollary 1) and one form: QI values
  on the same attributes, generalized alike (Definition 9);
- every local bucket satisfies its attribute's principle: l-unique (Corollary 2: each value
  at most once, at least l values) or t-close to the attribute's sensitive values (EMD);
- every cell is a QI value or a bucketed sensitive value, and each bucket shows exactly
  its rows' values (the permutation inside the bucket lost and invented nothing).

Metrics (section 4.1): C_DM = sum over groups of |LEG|^2, and NCP (Xu et al. 2006) summed
over the QI cells, with its mean per QI cell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from anonymizer.families.lgb.algorithm import LgbResult
from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.generalized.form import check_clashes, set_label_params
from anonymizer.metrics import class_stats, qi as metric_qi
from anonymizer.metrics.ncp import ncp
from anonymizer.models import KAnonymity
from anonymizer.models.check import evaluate
from anonymizer.plan import Plan
from anonymizer.engine.names import ident

ROW_ID, GID = "row_id", "gid"


@dataclass(frozen=True)
class LgbCandidate:
    """The candidate work table, its published columns, and per-attribute descriptions."""

    table: str
    columns: list[str]
    attrs: list[dict]
    rows: int
    groups: int


def published_names(plan: Plan, result: LgbResult) -> list[str]:
    """The published columns, in order; a clash with a generated name is a SpecError."""
    names = [ROW_ID, GID]
    for x in result.attrs:
        names += [x.name, f"{x.name}_bid"] + ([f"{x.name}_low", f"{x.name}_high"] if x.numeric else [])
    names += [k.column.name for k in plan.passthrough]
    check_clashes(names, "a column of the LGB table (row_id, gid, <attr>_bid, <attr>_low, <attr>_high); rename "
                         "it in a view first")
    return names


def build(engine: Engine, plan: Plan, result: LgbResult) -> LgbCandidate:
    """Write the candidate LGB table (templates/families/lgb/table.sql.j2) with its labels."""
    columns = published_names(plan, result)
    assign = result.groups.assign
    by_set = [x.qi for x in result.attrs if x.qi and not x.numeric]
    class_values = engine.work("class_values") if by_set else None
    if by_set:
        engine.run("families/generalized/form/class_ranges.sql.j2", target=class_values, assign=assign, base=result.subsets.base,
                   cells=None, qis=[{"i": q.index, "by_set": True, "lv": False} for q in by_set])
    attrs = [_describe(engine, x, assign, class_values) for x in result.attrs]
    table = engine.work("candidate")
    kept = [{"internal": k.internal, "out": ident(k.column.name)} for k in plan.passthrough]
    engine.run("families/lgb/table.sql.j2", plan.key.params(), target=table, base=plan.base, assign=assign, shown=result.buckets.shown,
               class_values=class_values, attrs=attrs, kept=kept, row_id=ident(ROW_ID), gid=ident(GID))
    rows, groups = engine.execute(f"SELECT count(*), count(DISTINCT __cid) FROM {table}").fetchone()
    return LgbCandidate(table, columns, attrs, rows, groups)


def _describe(engine: Engine, x, assign: str, class_values: str | None) -> dict:
    """One attribute's template description, with the labels of its generalized QI cells."""
    d = {"a": x.index, "qi": x.qi is not None, "i": x.qi.index if x.qi else None, "numeric": x.numeric,
         "dom": x.dom, "hier": x.qi.hier if x.qi else None, "m": x.m, "name": x.name, "by_set": bool(x.qi) and not x.numeric, "labels": None,
         "out": ident(x.name), "out_bid": ident(f"{x.name}_bid"),
         "out_low": ident(f"{x.name}_low"), "out_high": ident(f"{x.name}_high")}
    if x.qi is None:
        return d
    d["labels"] = engine.work(f"labels{x.index}")
    if d["by_set"]:
        engine.run("families/generalized/form/set_labels.sql.j2", set_label_params(x.qi), target=d["labels"],
                   class_ranges=class_values, i=x.qi.index, dom=x.dom)
    else:   # a group's range on the QI, for each row (a bucketized cell's row has none)
        i = x.qi.index
        engine.run("families/generalized/form/range_labels.sql.j2", target=d["labels"], i=i, dom=x.dom,
                   class_ranges=f"(SELECT __lo{i} AS lo{i}, __hi{i} AS hi{i} FROM {assign})")
    return d


def judge(engine: Engine, candidate: LgbCandidate) -> dict:
    """The table's form figures, read back from the candidate in one statement (families/lgb/judge)."""
    keys = ("groups", "smallest", "malformed", "mixed", "altered", "qi_cells")
    return dict(zip(keys, engine.one("families/lgb/judge.sql.j2", candidate=candidate.table, attrs=candidate.attrs)))


def verify(engine: Engine, plan: Plan, result: LgbResult, candidate: LgbCandidate, figures: dict) -> list[dict]:
    """Corollary 3 and the table's integrity, in SQL; PrivacyCheckFailed on the first failure."""
    view = plan.target.view
    if figures["malformed"] or figures["mixed"] or figures["altered"]:
        raise PrivacyCheckFailed("the LGB table's form (Definitions 9 and 10)",
                                 f"{figures['malformed']} malformed cells, {figures['mixed']} groups of mixed "
                                 f"forms, {figures['altered']} bucket values altered", figures["mixed"], view)
    k = KAnonymity(plan.k)
    checks = [_holds(evaluate(engine, k, real_rows(candidate), ["__gid"], None), view)]
    for x in result.attrs:
        if not x.bucketized:
            continue
        source = f"(SELECT __bid{x.index} AS b, __code{x.index} AS v FROM {candidate.table} WHERE __bid{x.index} " \
                 f"IS NOT NULL)"
        assert x.principle is not None   # a bucketized attribute has its principle (subsets.attributes)
        model = replace(x.principle, attribute=x.name)
        checks.append(_holds(evaluate(engine, model, source, ['"b"'], '"v"', prefix=f"a{x.index}"), view))
    return checks


def real_rows(candidate: LgbCandidate) -> str:
    """The candidate's real rows (an m-invariant version adds counterfeit rows, ``__fake``)."""
    return f"(SELECT * FROM {candidate.table} WHERE NOT __fake)"


def _holds(result, view: str) -> dict:
    if not result.holds:
        raise PrivacyCheckFailed(result.model, result.figure, result.failing, view)
    return {"model": result.model, "figure": result.figure, "holds": True, "classes": result.classes}


def ncp_qis(candidate: LgbCandidate) -> list[dict]:
    """The QI attributes as NCP reads them (:func:`anonymizer.metrics.qi`): value-set cells
    (``sized``), with their hierarchy tables for paper 000's convention."""
    return [metric_qi(x["a"], x["dom"], x["numeric"], x["m"], sized=True, hier=x["hier"])
            for x in candidate.attrs if x["qi"]]


def metrics(engine: Engine, plan: Plan, result: LgbResult, candidate: LgbCandidate, figures: dict) -> dict:
    """C_DM and NCP of section 4.1, with group, bucket and suppression figures."""
    stats = class_stats(engine, real_rows(candidate), plan.rows)
    ncp_sum, _ = ncp(engine, real_rows(candidate), ncp_qis(candidate), plan.rows, stats=stats)
    cells = int(figures["qi_cells"] or 0)
    return {"c_dm": stats.sum_squares, "ncp": ncp_sum, "ncp_per_qi_cell": ncp_sum / cells if cells else 0.0,
            "groups": stats.classes, "smallest_group": stats.smallest, "rows": plan.rows,
            "released": stats.released, "suppressed": stats.suppressed,
            "suppression": stats.suppressed / plan.rows, "buckets": result.buckets.buckets,
            "attribute_classes": {x.name: x.kind for x in result.attrs}}
