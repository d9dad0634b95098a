"""Aggregate query answering error of an identity-reserved release (paper 004 section 5, Eq. 19).

Paper 004 (Wang et al. 2018) measures utility with random queries

    SELECT COUNT(*) FROM D* WHERE pred(A_1) AND .. AND pred(A_lambda) AND pred(A_s)

on ``lambda`` randomly selected QI attributes and the sensitive attribute. ``prec`` is the
answer on the original table; the estimate on the anonymized table is

    est = sum over the classes Q of  p_Q^{A_1} x .. x p_Q^{A_lambda} x num_Q^{A_s}     (19)

with ``p_Q^{A_j} = |pred(A_j) ∩ r_q.A_j| / |r_q.A_j|`` the share of the class's generalized
value on ``A_j`` that satisfies the predicate, and ``num_Q^{A_s}`` the number of individuals
of Q satisfying ``pred(A_s)``; the relative error ratio is ``|est - prec| / prec``.

Inputs: ``original``, a relation with the source records' true values (``__rid``, the QI
columns, the sensitive column, under their names), and ``candidate``, the Table 4 form
(``anonymizer.families.identity_reserved.form``: ``ec_id``, ``id_num``, per numeric QI ``<name>_low``/``_high``,
per categorical QI ``<name>_values``, the sensitive column as text). Suppressed records are
in ``original`` (``prec`` counts them) and not in ``candidate`` (they add nothing to ``est``).

Everything row-level is SQL (``templates/reproduce/p004/ir_qe_*.sql.j2``): the QIs' domains are
ranked; every source record gets a compact row (position, sensitive value, QI ranks); every
class's generalized value becomes domain ranks (a numeric interval the contiguous ranks of
the source values inside it, a categorical set the ranks of its listed values); one
statement joins each query with the classes holding its sensitive value, multiplies the
factors and sums (``est``), and with the source records holding that value (``prec``).
Python draws the queries (Q small rows: the anchor records' ranks) and reads one summary row.

Choices where the paper is silent (it cites [23, 29] for the query type):

- Domain of a QI: its distinct values in ``original`` (all source records, suppressed ones
  included), ranked in numeric order (numeric QIs) or text order (categorical QIs, compared
  as ``CAST(value AS VARCHAR)``). ``|r_q.A_j|`` counts domain values: for a numeric class
  ``[low, high]`` the distinct source values inside it (not ``high - low + 1``), for a
  categorical class its listed values (values absent from the source count too).
- Each query is anchored on a random source record (uniform over the records, so frequent
  values are drawn more often): ``pred(A_s)`` is ``A_s = `` its sensitive value, and each
  ``pred(A_j)`` covers b values containing the record's own, b uniform in
  ``1..ceil(m_j / 2)``: a range of b consecutive domain values of a numeric QI (its start
  uniform among the ranges that contain the anchor's value), the anchor's value plus b - 1
  others drawn uniformly of a categorical QI. ``prec >= 1`` then always (the anchor matches);
  with predicates drawn independently of the data most queries of lambda = |QI| would have
  ``prec = 0`` and be discarded. Queries with ``prec = 0`` (possible only with given queries)
  are discarded and counted, not redrawn.
- The ``lambda = dims`` QIs are drawn uniformly without replacement (all of them when
  ``dims >= |QI|``).
- ``pred(A_s)`` is one sensitive value. A value appears at most once among an individual's
  records (paper 004 section 2.1: "s_j appears in any individual at most once"), so the
  individuals of Q satisfying it (``num``, counted as distinct ``id_num``) are also its
  records, and COUNT(*) on the original counts the same unit. Were a value repeated within
  an individual, ``est`` would count it once and ``prec`` twice.
- Queries come from ``random.Random(seed)`` and the records in ``__rid`` order, so one seed
  gives the same queries for every candidate of one source (an experiment compares
  algorithms on one query set).
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.engine.names import ident
from anonymizer.reproduce.work_tables import WorkTables

#: the work tables of one evaluation.
TABLES = ("dom", "records", "preds", "classes", "answers")


@dataclass(frozen=True)
class IRPredicate:
    """``pred(A_j)`` on the QI at index ``qi`` of the ``qis`` list: it holds for the domain
    values whose ranks (1-based, in the domain order of the module docstring) are listed."""

    qi: int
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class IRQuery:
    """``COUNT(*) WHERE pred(A_1) AND .. AND A_s = s`` (``s`` as text)."""

    s: str
    preds: tuple[IRPredicate, ...]


def ir_query_error(engine: Engine, original: str, candidate: str, qis: Sequence[Mapping[str, Any]],
                   sensitive: str, *, queries: int = 1000, dims: int = 1, seed: int = 0) -> dict:
    """Relative error ratio of ``queries`` random COUNT queries on ``lambda = dims`` QIs and
    the sensitive attribute (Eq. 19), answered on ``candidate`` against ``original``.

    ``qis``: per QI ``{"name", "numeric"}``; ``sensitive``: the sensitive column's name.
    Returns ``{"relative_error" (mean), "median", "min", "max", "queries" (used), "drawn",
    "discarded" (prec = 0), "dims", "query_set" (a fingerprint of the queries drawn: equal
    fingerprints, equal queries), "seconds"}``, JSON-ready.
    """
    _count("queries", queries)
    _count("dims", dims)
    with WorkTables(engine, "irqe", TABLES) as t:
        cols = _prepare(engine, original, candidate, qis, sensitive, t)
        drawn = _draw(engine, t, cols, queries, dims, seed)
        _answer(engine, candidate, cols, sensitive, drawn, t)
        n, used, discarded, mean, median, low, high = engine.one("reproduce/p004/ir_qe_summary.sql.j2",
                                                                 answers=t["answers"])
    return {"relative_error": _num(mean), "median": _num(median), "min": _num(low), "max": _num(high),
            "queries": int(used), "drawn": int(n), "discarded": int(discarded), "dims": len(drawn[0].preds),
            "query_set": hashlib.sha256(repr(drawn).encode()).hexdigest()[:12], "seconds": t.seconds}


def draw_ir_queries(engine: Engine, original: str, qis: Sequence[Mapping[str, Any]], sensitive: str,
                    queries: int = 1000, dims: int = 1, seed: int = 0) -> list[IRQuery]:
    """The queries :func:`ir_query_error` draws for ``original`` (see the module's choices)."""
    _count("queries", queries)
    _count("dims", dims)
    with WorkTables(engine, "irqe", TABLES) as t:
        cols = _prepare(engine, original, None, qis, sensitive, t)
        return _draw(engine, t, cols, queries, dims, seed)


def ir_query_answers(engine: Engine, original: str, candidate: str, qis: Sequence[Mapping[str, Any]],
                     sensitive: str, queries: Sequence[IRQuery]) -> list[dict]:
    """``est``, ``prec`` and ``error`` (``|est - prec| / prec``, None when prec = 0) of each
    given query, in order."""
    queries = [IRQuery(str(q.s), tuple(q.preds)) for q in queries]
    if not queries or any(not q.preds for q in queries):
        raise SpecError("queries", "must be a non-empty list of queries with at least one QI predicate")
    with WorkTables(engine, "irqe", TABLES) as t:
        cols = _prepare(engine, original, candidate, qis, sensitive, t)
        _n, m, _holes = engine.one("reproduce/p004/ir_qe_sizes.sql.j2", records=t["records"], dom=t["dom"])
        for pred in (p for q in queries for p in q.preds):
            if not 0 <= pred.qi < len(cols) or not pred.ranks or not all(1 <= r <= m[pred.qi] for r in pred.ranks):
                raise SpecError("queries", "predicate on an unknown QI or a rank outside its domain", pred)
        if any(len({p.qi for p in q.preds}) != len(q.preds) for q in queries):
            raise SpecError("queries", "a query names a QI twice")
        _answer(engine, candidate, cols, sensitive, queries, t)
        rows = engine.execute(f"SELECT est, prec FROM {t['answers']} ORDER BY q").fetchall()
    return [{"est": float(est), "prec": int(prec), "error": abs(est - prec) / prec if prec > 0 else None}
            for est, prec in rows]


# -- steps ----------------------------------------------------------------------------------
def _prepare(engine: Engine, original: str, candidate: str | None, qis: Sequence[Mapping[str, Any]],
             sensitive: str, t: "WorkTables") -> list[dict]:
    """Check the arguments (and the candidate), rank the domains, compact the records."""
    cols = _columns(qis)
    if not isinstance(sensitive, str) or not sensitive:
        raise SpecError("sensitive", "must be the sensitive column's name", sensitive)
    sens = ident(sensitive)
    have = {c.lower() for c in engine.columns(original)}
    missing = [n for n in ["__rid", *(c["name"] for c in cols), sensitive] if n.lower() not in have]
    if missing:
        raise DataError(original, f"lacks the columns {', '.join(missing)} (needs __rid, the QIs, the sensitive)")
    if candidate is not None:
        _check_candidate(engine, candidate, cols, sens)
    engine.run("reproduce/p004/ir_qe_domain.sql.j2", original=original, qis=cols, target=t["dom"])
    engine.run("reproduce/p004/ir_qe_records.sql.j2", original=original, dom=t["dom"], qis=cols, sensitive=sens,
               target=t["records"])
    return cols


def _columns(qis: Sequence[Mapping[str, Any]]) -> list[dict]:
    qis = list(qis)
    names = [q.get("name") for q in qis]
    if not qis or len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
        raise SpecError("qis", "need at least one QI, with distinct non-empty names", names)
    return [{"name": q["name"], "numeric": bool(q.get("numeric")), "col": ident(q["name"]),
             "low": ident(f"{q['name']}_low"), "high": ident(f"{q['name']}_high"),
             "vals": ident(f"{q['name']}_values")} for q in qis]


def _check_candidate(engine: Engine, candidate: str, cols: list[dict], sens: str) -> None:
    rows, _classes, holes, *forms = engine.one("reproduce/p004/ir_qe_check.sql.j2", candidate=candidate, qis=cols,
                                               sensitive=sens)
    if not rows:
        raise DataError(candidate, "has no records to answer queries on")
    if holes:
        raise DataError(candidate, f"{holes} records lack an ec_id, id_num or sensitive value")
    for c, bad in zip(cols, forms):
        if bad:
            raise DataError(candidate, f"{bad} classes do not show one generalized value of {c['name']} "
                                       "(several, or a missing, empty or inverted one)")


def _draw(engine: Engine, t: "WorkTables", cols: list[dict], queries: int, dims: int, seed: int) -> list[IRQuery]:
    """Anchor records first (positions), then per query its QIs and their value sets."""
    d = len(cols)
    n, m, holes = engine.one("reproduce/p004/ir_qe_sizes.sql.j2", records=t["records"], dom=t["dom"])
    if not n:
        raise DataError("original", "has no records to draw queries from")
    if holes or len(m or []) != d:
        raise DataError("original", f"{holes} records have a NULL QI or sensitive value; queries are anchored on "
                                    "complete records")
    rng = random.Random(seed)
    positions = [rng.randrange(n) for _ in range(queries)]
    anchors = engine.rows("reproduce/p004/ir_qe_anchors.sql.j2", {"pos": positions}, records=t["records"])
    out = []
    for _k, s, ranks in anchors:
        chosen = rng.sample(range(d), min(dims, d))
        out.append(IRQuery(s, tuple(IRPredicate(p, _value_set(rng, m[p], ranks[p], numeric=cols[p]["numeric"]))
                                    for p in chosen)))
    return out


def _value_set(rng: random.Random, m: int, anchor: int, *, numeric: bool) -> tuple[int, ...]:
    """b values (b uniform in 1..ceil(m/2)) containing the anchor's rank: consecutive ranks of
    a numeric QI, the anchor plus b - 1 random others of a categorical one."""
    b = rng.randint(1, max(1, math.ceil(m / 2)))
    if numeric:
        start = rng.randint(max(1, anchor - b + 1), min(anchor, m - b + 1))
        return tuple(range(start, start + b))
    others = [x + 1 + (x + 1 >= anchor) for x in rng.sample(range(m - 1), b - 1)]
    return tuple(sorted([anchor, *others]))


def _answer(engine: Engine, candidate: str, cols: list[dict], sensitive: str, queries: Sequence[IRQuery],
            t: "WorkTables") -> None:
    flat = [(q, j, pr.qi + 1, list(pr.ranks), query.s)
            for q, query in enumerate(queries) for j, pr in enumerate(query.preds, 1)]
    params = {k: [row[i] for row in flat] for i, k in enumerate(("q", "j", "p", "ranks", "s"))}
    engine.run("reproduce/p004/ir_qe_predicates.sql.j2", params, target=t["preds"])
    engine.run("reproduce/p004/ir_qe_classes.sql.j2", candidate=candidate, dom=t["dom"], qis=cols, target=t["classes"])
    engine.run("reproduce/p004/ir_qe_answers.sql.j2", preds=t["preds"], classes=t["classes"], records=t["records"],
               candidate=candidate, sensitive=ident(sensitive), target=t["answers"])


def _count(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SpecError(name, "must be a whole number >= 1", value)


def _num(value: Any) -> float | None:
    return None if value is None else float(value)
