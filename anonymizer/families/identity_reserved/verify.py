"""Identity-reserved models on whole tables, in SQL (paper 004): every class's verdict
(Theorems 3.1, 3.2; Python runs Algorithm 2 on the classes SQL leaves undecided), the
verification of a candidate, its figures, and the vulnerable classes of section 5. The
models themselves are in :mod:`.models`."""

from __future__ import annotations

import uuid
from typing import Any, Iterable

from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.families.identity_reserved.hitting_sets import min_hitting_set_size, sat_el
from anonymizer.families.identity_reserved.models import (
    _P,
    EIRLDiversity,
    _IRModel,
)
from anonymizer.models.base import PrivacyModel

# -- whole tables in SQL ----------------------------------------------------------------------

def class_counts_sql(records: str, cid: str, pid: str, s: str) -> str:
    """SQL text of the per-class counts (``templates/models/ir_class_counts.sql.j2``) of a records
    relation, as a parenthesised subquery; ``cid``, ``pid``, ``s`` are quoted expressions."""
    return "(" + render("models/ir_class_counts.sql.j2", records=records, cid=cid, pid=pid, s=s) + ")"


def decide_classes(engine: Engine, model: _IRModel, records: str, cid: str, pid: str, s: str,
                   target: str) -> dict[str, int]:
    """Write ``target (cid, ok BOOLEAN)``: whether every class of ``records`` satisfies ``model``.

    ``records`` is any relation (quoted table or view, or a parenthesised subquery) and ``cid``,
    ``pid``, ``s`` are quoted expressions over it giving the class, the individual and the
    sensitive value (text, never NULL). The SQL verdict (:meth:`verdict_sql` over
    ``ir_class_counts``) decides every class; for the classes it leaves NULL (EIR l-diversity
    only) the sets ``{S(p)}`` of just those classes are read, one row per class, and Algorithm 2
    (:func:`.hitting_sets.sat_el`) decides each.

    Returns ``classes``, ``failing``, ``decided_in_sql``, ``decided_in_python``.
    """
    return _decide(engine, model, class_counts_sql(records, cid, pid, s), records, cid, pid, s, target)


def _decide(engine: Engine, model: _IRModel, counts: str, records: str, cid: str, pid: str, s: str,
            target: str) -> dict[str, int]:
    engine.run("models/ir_decide.sql.j2", model.params(_P), target=target, counts=counts,
               verdict=model.verdict_sql(_P))
    classes, failing, undecided = engine.one("models/ir_decided_summary.sql.j2", target=target)
    if undecided:
        passing = []
        cur = engine.run("models/ir_class_sets.sql.j2", records=records, cid=cid, pid=pid, s=s,
                         decided=target, which="undecided")
        while batch := cur.fetchmany(256):           # one class's sets at a time
            for c, _, sets in batch:
                if sat_el(sets, model.l):            # type: ignore[attr-defined]
                    passing.append(c)
        engine.run("models/ir_set_verdicts.sql.j2", {"passing": passing}, target=target)
        failing += undecided - len(passing)
    return {"classes": classes, "failing": failing, "decided_in_sql": classes - undecided,
            "decided_in_python": undecided}


class _Scratch:
    """Work tables of one verify/vulnerable call, dropped at the end."""

    def __init__(self, engine: Engine):
        self.engine, self.tag = engine, uuid.uuid4().hex[:8]
        self.names: list[str] = []

    def __call__(self, name: str) -> str:
        table = self.engine.work(f"ir_{name}_{self.tag}")
        self.names.append(table)
        return table

    def drop(self) -> None:
        for table in self.names:
            self.engine.drop(table)


def _counts(engine: Engine, scratch: _Scratch, records: str, cid: str, pid: str, s: str) -> str:
    counts = scratch("counts")
    engine.run("models/ir_class_counts.sql.j2", into=counts, records=records, cid=cid, pid=pid, s=s)
    return counts


def verify(engine: Engine, models: Iterable[PrivacyModel], records: str, cid: str, pid: str,
           s: str) -> list[dict[str, Any]]:
    """Check every identity-reserved model of ``models`` (others are skipped) on ``records``.

    Arguments as :func:`decide_classes`. One dict per model: ``model`` (text), ``holds``,
    ``failing``, ``classes``, ``decided_in_sql``, ``decided_in_python``, ``figures`` (numbers)
    and ``figure`` (the same as text):

    * IR k: ``min_individuals`` (smallest ``n_Q``); IR (k, l): also ``min_values`` (smallest
      ``m_Q``);
    * IR / EIR (alpha, beta): ``max_record_share`` (largest ``|R(p)|/|Q|``) and
      ``max_value_share`` (largest ``|R(s)|/|Q|`` for IR, ``|P(s)|/n_Q`` for EIR);
    * EIR l-diversity: ``min_hitting_set``, the smallest minimum hitting set over the classes,
      exact when some class fails (it is below ``l``: found by branch and bound over the failing
      classes in order of their lower bound, stopping when no class can go lower); when every
      class holds it is reported as ``l`` with ``at_least: True`` (each class's minimum is
      ``>= l``; larger minima are not computed).

    ``figures`` is empty when there is no class.
    """
    scratch = _Scratch(engine)
    out = []
    try:
        counts = _counts(engine, scratch, records, cid, pid, s)
        for i, model in enumerate(models):
            if not isinstance(model, _IRModel):
                continue
            decided = scratch(f"ok{i}")
            stats = _decide(engine, model, counts, records, cid, pid, s, decided)
            cur = engine.run("models/ir_verify.sql.j2", counts=counts, decided=decided)
            row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
            figures = _figures(engine, model, row, counts, decided, records, cid, pid, s) if row["classes"] else {}
            out.append({"model": str(model), "holds": stats["failing"] == 0, **stats,
                        "figures": figures, "figure": _figure_text(figures)})
    finally:
        scratch.drop()
    return out


def _figures(engine: Engine, model: _IRModel, row: dict, counts: str, decided: str, records: str,
             cid: str, pid: str, s: str) -> dict[str, Any]:
    if not isinstance(model, EIRLDiversity):   # each model names its figures' columns
        return {name: row[column] for name, column in model.figure_columns.items()}
    if not row["failing"]:
        return {"min_hitting_set": model.l, "at_least": True}
    best = int(row["failing_tau_ub"])
    cur = engine.run("models/ir_class_sets.sql.j2", {"below": best}, records=records, cid=cid, pid=pid,
                     s=s, decided=decided, counts=counts, which="failing")
    while best > 1 and (batch := cur.fetchmany(64)):
        for _, lower, sets in batch:
            if lower >= best:
                break
            best = min(best, min_hitting_set_size(sets, limit=best))
        else:
            continue
        break
    return {"min_hitting_set": best, "at_least": False}


def _figure_text(figures: dict[str, Any]) -> str:
    if not figures:
        return "no class"
    if "min_hitting_set" in figures:
        return f"smallest minimum hitting set {'>= ' if figures['at_least'] else ''}{figures['min_hitting_set']}"
    return ", ".join(f"{k.replace('_', ' ')} {v:.4g}" if isinstance(v, float) else f"{k.replace('_', ' ')} {v}"
                     for k, v in figures.items())


def vulnerable(engine: Engine, ir_model: _IRModel, records: str, cid: str, pid: str, s: str) -> dict[str, Any]:
    """Vulnerable equivalence classes (section 5): classes satisfying ``ir_model`` but not its
    :meth:`enhanced` version. Returns ``vulnerable`` (Num_vec), ``satisfying`` (classes satisfying
    the IR model), ``classes`` (Num_ec: all classes, the denominator the paper writes) and
    ``percent`` ``= 100 * Num_vec / Num_ec``. Raises ``ValueError`` for a model without an
    enhanced version (IR k-anonymity)."""
    eir = ir_model.enhanced() if hasattr(ir_model, "enhanced") else None
    if eir is None:
        raise ValueError(f"{ir_model} has no enhanced (EIR) version to count vulnerable classes against")
    scratch = _Scratch(engine)
    try:
        counts = _counts(engine, scratch, records, cid, pid, s)
        a, b = scratch("ok_ir"), scratch("ok_eir")
        _decide(engine, ir_model, counts, records, cid, pid, s, a)
        _decide(engine, eir, counts, records, cid, pid, s, b)
        classes, satisfying, vuln = engine.one("models/ir_vulnerable.sql.j2", ir=a, eir=b)
    finally:
        scratch.drop()
    return {"vulnerable": vuln, "satisfying": satisfying, "classes": classes,
            "percent": 100.0 * vuln / classes if classes else 0.0}
