"""Aggregate query answering error of an LGB table (paper 000 Sec. 4.2, after Zhang et al. 2007).

Paper 000 (Li and He 2022, "Local generalization and bucketization technique for
personalized privacy preservation") Sec. 4.2 measures utility with random queries
``SELECT SUM(salary) WHERE pred(A1) AND .. AND pred(A4)`` answered on the anonymized table
with bounds, following Zhang, Koudas, Srivastava and Yu 2007 ("Aggregate query answering
on anonymized tables", ICDE): ``R_error = (Sum_upper - Sum_lower) / Sum_act``. For a tuple
t, ``Pro_t(A)`` is the probability that t matches pred(A) and ``Pro(t) = prod_A Pro_t(A)``;
per local bucket b of salary, ``P_b = sum_{t in b} Pro(t)`` rounded down and up bounds
the number of matching tuples, and the sums of that many smallest (largest) salaries of b,
summed over the buckets, are ``Sum_lower`` (``Sum_upper``).

The input is the LGB candidate work table: ``__rid``, ``__gid`` and per attribute ``a``
``__lo{a}``/``__hi{a}`` (generalized QI cell: code range), ``__set{a}`` (value-set
generalization of a categorical QI cell: the exact codes covered, else NULL),
``__bid{a}``/``__code{a}`` (sensitive cell: local bucket within ``a``, published code),
``__t{a}`` (the true code, used only for ``Sum_act``). ``attrs`` describe the attributes
(``{"a", "dom", "numeric", "m", "name"}``); ``salary`` is the index of the summed attribute.

Everything row-level is SQL (``templates/reproduce/p000/query_*.sql.j2``): the distinct cells of
every attribute get keys; per query, the probability of every distinct cell and bucket is
computed once (lists indexed by key); one cross join of queries x rows (in chunks of
:data:`CHUNK` queries) drops the pairs with a zero factor, multiplies the four looked-up
factors of the others and sums them per (query, salary bucket); a help table of the sums
of the n smallest and n largest salaries of every bucket turns the rounded counts into
bounds. Python draws the queries (Q x dims small rows) and reads Q rows or one summary row.
The candidate is checked first (one statement): it must be a truthful LGB table, every
generalized cell covering its row's true code and every bucket publishing a permutation of
its rows' true codes; otherwise :class:`DataError` (a true match then always has
``Pro(t) > 0``, which the pruning relies on).

Choices where the paper is silent:

- Attributes of a query: ``dims`` (default 4) distinct attributes drawn uniformly among all
  attributes other than salary (fewer if fewer exist), whatever their kind.
- Categorical ``pred(A)``: ``A IN (v1..vm)`` with m uniform in ``1..ceil(|D|/2)`` and
  m distinct values drawn uniformly from D[A]. Numeric: ``A op v`` with op uniform in
  {>, <, =, >=, <=, <>} and v the number of a domain value drawn uniformly; it is
  evaluated on the domain's numbers (``num``), not on code order.
- ``Pro_t(A)`` of a generalized QI cell: the covered values are equally likely (the covered
  codes are ``__set`` if given, else every domain code in ``[lo, hi]``); an ungeneralized
  value gives 0 or 1. Of a sensitive cell in bucket b: the fraction of b's published values
  (a multiset) satisfying pred(A) -- the permutation inside b is ignored.
- Counts: ``floor(P_b + 1e-9)`` and ``ceil(P_b - 1e-9)`` so float sums of exact integers
  are not pushed off them (a P_b below 1e-9 counts 0 rows), clamped to ``0..|b|``.
- Salaries of a bucket are the domain numbers of its published codes (its multiset).
- ``Sum_act`` is the true SUM(salary) over the candidate's rows (``__t``) matching all
  predicates; a query with ``Sum_act <= 0`` has no relative error: it is discarded and
  counted (``discarded``), not redrawn. The mean, median and max are over the others.
- Queries come from ``random.Random(seed)``, so a seed gives the same queries for every
  table with the same attributes (the tables of one experiment are compared on one set).

- Without the rounding (``unrounded``, to measure what the rounding adds to Fig. 7): a
  bucket's bounds take ``P_b`` rows as it is, the sum of its ``floor(P_b)`` smallest
  (largest) salaries plus ``P_b - floor(P_b)`` of the next one.

Reading the figures: the rounding is per salary bucket, so every bucket a query touches at
all adds up to one row of its largest salary to ``Sum_upper``. Many small buckets (small l)
with coarse QI cells give large errors; a single bucket holding every row rounds only once
and gives a small one. Coarser generalization at a fixed bucketization, and larger buckets
over exact QI cells, both raise the error (paper 000 Fig. 7's trends).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.engine.names import ident
from anonymizer.reproduce.work_tables import WorkTables

#: the work tables of one evaluation.
TABLES = ("cells", "rows", "preds", "sat", "vectors", "mass", "prefix", "answers")

#: the comparison operators of numeric predicates (paper 000 Sec. 4.2).
OPERATORS = (">", "<", "=", ">=", "<=", "<>")
#: how far a float bucket mass may stray from an integer and still count as one.
EPS = 1e-9
#: queries evaluated per cross-join statement (bounds the statement's memory).
CHUNK = 1000


@dataclass(frozen=True)
class Predicate:
    """``pred(A)`` on attribute ``a``: ``op`` is ``"in"`` (A IN codes) or one of
    :data:`OPERATORS` comparing num(A) with num(codes[0])."""

    a: int
    op: str
    codes: tuple[int, ...]


Query = tuple[Predicate, ...]


def draw_queries(attrs: Sequence[Mapping[str, Any]], salary: int, queries: int = 1000,
                 dims: int = 4, seed: int = 0) -> list[Query]:
    """Draw ``queries`` random queries of ``min(dims, attributes other than salary)``
    predicates (see the module's choices), reproducibly from ``seed``."""
    _check_count("queries", queries)
    _check_count("dims", dims)
    eligible = [at for at in attrs if at["a"] != salary]
    if not eligible:
        raise SpecError("attrs", "need an attribute other than salary to query on")
    rng = random.Random(seed)
    return [tuple(_draw_predicate(rng, at) for at in rng.sample(eligible, min(dims, len(eligible))))
            for _ in range(queries)]


def _draw_predicate(rng: random.Random, at: Mapping[str, Any]) -> Predicate:
    m = int(at["m"])
    if at["numeric"]:
        return Predicate(at["a"], rng.choice(OPERATORS), (rng.randrange(m),))
    return Predicate(at["a"], "in", tuple(sorted(rng.sample(range(m), rng.randint(1, math.ceil(m / 2))))))


def _check_count(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SpecError(name, "must be a whole number >= 1", value)


def query_error(engine: Engine, candidate: str, attrs: list[dict], salary: int, *,
                queries: int = 1000, dims: int = 4, seed: int = 0) -> dict:
    """Average relative error of ``queries`` random SUM(salary) queries on an LGB table.

    Returns ``{"queries": used, "drawn", "discarded" (Sum_act = 0), "dims",
    "relative_error" (mean R_error), "median", "min", "max", "unrounded" (mean R_error of
    the bounds taking P_b rows unrounded), "median_unrounded", "seconds"}``, JSON-ready.
    """
    drawn = draw_queries(attrs, salary, queries, dims, seed)
    with WorkTables(engine, "qe", TABLES) as names:
        summary = _answer(engine, candidate, attrs, salary, drawn, names)
        drawn_n, used, discarded, mean, median, low, high, unrounded, median_unrounded = engine.one(
            "reproduce/p000/query_summary.sql.j2", answers=summary)
    return {"queries": int(used), "drawn": int(drawn_n), "discarded": int(discarded),
            "dims": len(drawn[0]), "relative_error": _num(mean), "median": _num(median),
            "min": _num(low), "max": _num(high), "unrounded": _num(unrounded),
            "median_unrounded": _num(median_unrounded), "seconds": names.seconds}


def query_answers(engine: Engine, candidate: str, attrs: list[dict], salary: int,
                  queries: Sequence[Query]) -> list[dict]:
    """Bounds and actual answer of each given query, in order: dicts with ``hits_lower``,
    ``hits_upper`` (summed floor/ceil of P_b), ``expected`` (sum of P_b), ``sum_lower``,
    ``sum_upper``, ``sum_act``, ``r_error`` (None when ``sum_act <= 0``), and the bounds
    without the per-bucket rounding, ``sum_lower_unrounded``, ``sum_upper_unrounded``,
    ``r_error_unrounded``."""
    queries = _checked_queries(attrs, salary, queries)
    with WorkTables(engine, "qe", TABLES) as names:
        answers = _answer(engine, candidate, attrs, salary, queries, names)
        rows = engine.execute(f"SELECT * EXCLUDE (q) FROM {answers} ORDER BY q").fetchall()
    keys = ("hits_lower", "hits_upper", "expected", "sum_lower", "sum_upper", "sum_act", "sum_lower_unrounded",
            "sum_upper_unrounded")
    out = []
    for r in rows:
        o = dict(zip(keys, (int(r[0]), int(r[1]), *map(float, r[2:]))))
        out.append({**o, **{f"r_error{s}": (o[f"sum_upper{s}"] - o[f"sum_lower{s}"]) / o["sum_act"]
                            if o["sum_act"] > 0 else None for s in ("", "_unrounded")}})
    return out


def _answer(engine: Engine, candidate: str, attrs: Sequence[Mapping[str, Any]], salary: int,
            queries: Sequence[Query], t: "WorkTables") -> str:
    """Run the query_* templates in order; return the answers table (one row per query)."""
    cols, sal = _context(attrs, salary)
    _check_cells(engine, candidate, cols, sal)
    engine.run("reproduce/p000/query_cell_keys.sql.j2", candidate=candidate, target=t["cells"], attrs=cols)
    engine.run("reproduce/p000/query_rows.sql.j2", candidate=candidate, cells=t["cells"], target=t["rows"],
               salary=sal)
    _insert_queries(engine, t["preds"], queries, {c["a"]: p for p, c in enumerate(cols, 1)})
    engine.run("reproduce/p000/query_satisfy.sql.j2", preds=t["preds"], target=t["sat"], attrs=cols)
    dims = len(queries[0])
    engine.run("reproduce/p000/query_vectors.sql.j2", sat=t["sat"], cells=t["cells"],
               target=t["vectors"], dims=dims)
    engine.run("reproduce/p000/query_bucket_prefix.sql.j2", candidate=candidate, target=t["prefix"], salary=sal)
    for start in range(0, len(queries), CHUNK):
        engine.run("reproduce/p000/query_bucket_mass.sql.j2", {"q_from": start, "q_to": start + CHUNK - 1},
                   vectors=t["vectors"], rows=t["rows"], target=t["mass"], dims=dims, insert=start > 0)
    engine.run("reproduce/p000/query_answers.sql.j2", {"eps": EPS}, preds=t["preds"], mass=t["mass"],
               prefix=t["prefix"], target=t["answers"])
    return t["answers"]


def _context(attrs: Sequence[Mapping[str, Any]], salary: int) -> tuple[list[dict], dict]:
    """Quoted columns of the queryable attributes (template position p = index + 1) and of
    salary; refuses a missing or categorical salary and repeated attribute indexes."""
    by_a = {at["a"]: at for at in attrs}
    if len(by_a) != len(attrs):
        raise SpecError("attrs", "attribute indexes must be distinct", [at["a"] for at in attrs])
    if salary not in by_a or not by_a[salary]["numeric"]:
        raise SpecError("salary", "must be the index of a numeric attribute in attrs", salary)
    cols = [dict(_columns(at["a"]), a=at["a"], name=at.get("name", str(at["a"])), dom=at["dom"])
            for at in attrs if at["a"] != salary]
    return cols, dict(_columns(salary), dom=by_a[salary]["dom"], name=by_a[salary].get("name", "salary"))


def _columns(a: int) -> dict[str, str]:
    return {k: ident(f"__{k}{a}") for k in ("lo", "hi", "set", "bid", "code", "t")}


def _check_cells(engine: Engine, candidate: str, cols: list[dict], sal: dict) -> None:
    """At least one row; every cell generalized (covering its true value) or bucketized,
    salary wholly bucketized; every bucket a permutation of its rows' true values."""
    rows, *bad = engine.one("reproduce/p000/query_check.sql.j2", candidate=candidate, attrs=cols, salary=sal)
    if not rows:
        raise DataError(candidate, "has no rows to answer queries on")
    for c, cells, buckets in zip([*cols, sal], bad[::2], bad[1::2]):
        what = "are not local bucket cells (__bid, __code)" if c is sal else \
            "are neither generalized cells covering the true value (__lo, __hi, __set) nor local bucket cells"
        if cells:
            raise DataError(candidate, f"{cells} cells of {c['name']} {what}, or their codes (__t, __code) "
                                       "are missing or outside the domain")
        if buckets:
            raise DataError(candidate, f"{buckets} local buckets of {c['name']} do not publish a permutation "
                                       "of their rows' true values")


def _insert_queries(engine: Engine, target: str, queries: Sequence[Query], pos: dict[int, int]) -> None:
    """The queries as a table (q, j, p, op, codes), from bound lists."""
    flat = [(q, j, pos[pr.a], pr.op, list(pr.codes))
            for q, query in enumerate(queries) for j, pr in enumerate(query, 1)]
    params = {k: [row[i] for row in flat] for i, k in enumerate(("q", "j", "p", "op", "codes"))}
    engine.run("reproduce/p000/query_predicates.sql.j2", params, target=target)


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _checked_queries(attrs: Sequence[Mapping[str, Any]], salary: int,
                     queries: Sequence[Query]) -> list[Query]:
    """Refuse an empty list, ragged queries, unknown or salary attributes, bad operators."""
    queries = [tuple(q) for q in queries]
    if not queries or len({len(q) for q in queries}) != 1 or not queries[0]:
        raise SpecError("queries", "must be a non-empty list of queries with equally many predicates")
    doms = {at["a"]: int(at["m"]) for at in attrs if at["a"] != salary}
    for pred in (p for q in queries for p in q):
        if pred.a not in doms or pred.op not in ("in", *OPERATORS) or not pred.codes \
                or not all(0 <= c < doms[pred.a] for c in pred.codes):
            raise SpecError("queries", "predicate on an unknown attribute, operator or code", pred)
    if any(len({p.a for p in q}) != len(q) for q in queries):
        raise SpecError("queries", "a query names an attribute twice")
    return queries
