"""Differentially private counts, sums and means for analysts: :func:`dp_count`,
:func:`dp_sum`, :func:`dp_mean` (and ``anonymizer dp count|sum|mean``).

The SQL is the macro library's (``anon_dp_cells``, ``anon_dp_count``, ``anon_dp_sum``,
``anon_dp_mean`` in ``sql/anonymizer_macros.sql``): each person's contribution bounded, the
cells aggregated, in the database. No macro draws noise, because SQL has no secret source:
this module draws it (:mod:`anonymizer.dp.noise`, discrete Laplace from ``secrets``) at the
scale the bounds and ε set, binds it to the macro as a parameter, and spends ε (and δ) from
the budget ledger (:mod:`anonymizer.dp.ledger`) before anything is drawn. The ledger and the
figures are those of a dp-aggregates release (:mod:`anonymizer.families.aggregates.cells`):

- sensitivities (L1): the count ``G R``; a sum ``G R 2^20`` units (a value clamped to
  ``[lo, hi]`` on a grid of ``2^20`` steps of ``max(|lo|, |hi|)``); the persons per cell ``G``;
- ε split evenly over the noisy quantities (a mean has two) and, without ``keys``, the private
  selection, which alone spends δ: a cell one person makes appears with probability ≤ δ
  (:func:`anonymizer.dp.noise.selection_threshold`).

A query is one event of the ledger (``spend``, its ``release`` the query's name); its account
is ``budget["recipient"]``, shared with the releases that name that recipient.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import duckdb
import pandas as pd

from anonymizer import macros
from anonymizer.dp import ledger
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.families.aggregates.cells import counted, selection, summed, with_noise
from anonymizer.fields import name_field
from anonymizer.numbers import number
from anonymizer.spec.differential import budget_fields
from anonymizer.target import Budget, Output, Target

#: the column types a sum or a mean reads (and DECIMAL(p, s))
NUMBERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
           "UHUGEINT", "FLOAT", "DOUBLE"}
#: the query kinds and their noisy quantities per cell (a mean: its count and its sum)
KINDS = {"count": ("count",), "sum": ("sum",), "mean": ("count", "sum")}


@dataclass(frozen=True)
class Query:
    """One DP query, checked: what it aggregates, how each person is bounded, its cells
    (``keys``: a table declaring them; ``None``: the data's, selected privately) and its ε, δ."""

    kind: str
    table: str
    by: tuple[str, ...]
    person: str
    value: str | None
    bounds: tuple[float, float] | None
    epsilon: float
    delta: float
    keys: str | None
    groups_per_person: int
    rows_per_group: int

    @property
    def spends(self) -> tuple[float, float]:
        """What the query spends: δ only with the private selection (no ``keys``)."""
        return self.epsilon, self.delta if self.keys is None else 0.0

    @property
    def name(self) -> str:
        """The query as the ledger names it."""
        return f"anon_dp_{self.kind}({self.table})"


def dp_count(con: duckdb.DuckDBPyConnection, table: str, by: list[str], person: str, *, epsilon: float,
             budget: dict, **options: Any) -> pd.DataFrame:
    """The noisy count of rows per cell of ``by`` in ``table``, each ``person`` bounded.

    Example (the docs' page ``differential-privacy.md`` runs it)::

        anonymizer.dp_count(con, "visits", ["region"], "patient", epsilon=0.5,
                            budget={"epsilon": 5, "delta": 1e-6, "recipient": "ann"}, delta=1e-7)

    Args:
        epsilon: what the query spends (and ``delta``, needed without ``keys``).
        budget: ``{epsilon, delta, recipient}``: the account's totals (as a release's spec
            declares them) and its name.
        options: ``keys`` (a table whose rows are the cells to publish, each one even when
            empty; without it the data's cells, selected privately), ``delta``,
            ``groups_per_person`` and ``rows_per_group`` (default 1 each).
    Returns:
        One row per cell published: the ``by`` columns and ``count``.
    Raises:
        SpecError: a bad argument (nothing spent). BudgetExhausted: the account cannot pay.
    """
    return run(con, query("count", table, by, person, None, None, epsilon, options), budget)


def dp_sum(con: duckdb.DuckDBPyConnection, table: str, by: list[str], person: str, value: str,
           bounds: tuple[float, float], *, epsilon: float, budget: dict, **options: Any) -> pd.DataFrame:
    """The noisy sum of ``value`` clamped to ``bounds`` per cell (``by`` columns and ``sum``);
    the rest as :func:`dp_count`."""
    return run(con, query("sum", table, by, person, value, bounds, epsilon, options), budget)


def dp_mean(con: duckdb.DuckDBPyConnection, table: str, by: list[str], person: str, value: str,
            bounds: tuple[float, float], *, epsilon: float, budget: dict, **options: Any) -> pd.DataFrame:
    """The noisy count and mean of ``value`` clamped to ``bounds`` per cell (``by`` columns,
    ``count`` and ``mean``: the noisy sum over the noisy count, clamped); as :func:`dp_count`."""
    return run(con, query("mean", table, by, person, value, bounds, epsilon, options), budget)


def query(kind: str, table: str, by: list[str], person: str, value: str | None,
          bounds: tuple[float, float] | None, epsilon: float, options: dict) -> Query:
    """The arguments checked (a :class:`SpecError` naming the first wrong one)."""
    unknown = set(options) - {"keys", "delta", "groups_per_person", "rows_per_group"}
    if unknown:
        raise SpecError(sorted(unknown)[0], "is not an option of a DP query (keys, delta, groups_per_person, "
                                            "rows_per_group)")
    if not isinstance(by, (list, tuple)) or not by:
        raise SpecError("by", "must list at least one column (the cells' dimensions)", by)
    dims = tuple(name_field(b, "by") for b in by)
    eps = float(number(epsilon, "epsilon", 0, 10, low_open=True, what="a number in (0, 10]"))
    keys = options.get("keys")
    delta = options.get("delta")
    if keys is None and delta is None:
        raise SpecError("delta", "is needed when the cells are the data's (no keys): the chance that a cell one "
                                 "person makes is published, e.g. 1e-6")
    d = 0.0 if delta is None else float(number(delta, "delta", 0, 1, low_open=True, high_open=True,
                                               what="a number in (0, 1)"))
    if bounds is not None:
        if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
            raise SpecError("bounds", "must be (lo, hi): the range each value is clamped to", bounds)
        lo, hi = (float(number(b, "bounds", what="a finite number")) for b in bounds)
        if not lo < hi:
            raise SpecError("bounds", "must be (lo, hi) with lo < hi", bounds)
        bounds = (lo, hi)
    whole = {k: int(number(options.get(k, 1), k, 1, 10 ** 6, whole=True)) for k in ("groups_per_person",
                                                                                    "rows_per_group")}
    return Query(kind, name_field(table, "table"), dims, name_field(person, "person"),
                 None if value is None else name_field(value, "value"), bounds, eps, d,
                 None if keys is None else name_field(keys, "keys"), **whole)


def run(con: duckdb.DuckDBPyConnection, q: Query, budget: dict, schema: str = "_anon_releases") -> pd.DataFrame:
    """Spend ``q``'s ε and δ from ``budget``'s account, draw its noise and run its macro."""
    total_epsilon, total_delta, recipient = budget_fields(budget)
    if recipient is None:
        raise SpecError("budget.recipient", "is required of a query: the account it spends from (who receives "
                                            "the figures)")
    if q.spends[0] > total_epsilon or q.spends[1] > total_delta:
        raise SpecError("epsilon", f"the query spends epsilon {q.spends[0]:g} and delta {q.spends[1]:g}, more than "
                                   f"the budget's total (epsilon {total_epsilon:g}, delta {total_delta:g})")
    target = Target(q.name, Output(view=q.name, snapshot_schema=schema),
                    budget=Budget(total_epsilon, total_delta, recipient, q.spends))
    engine = Engine(con)
    ledger.check(engine, target)   # an account that cannot pay: refused before the data is read
    _require_columns(con, q)
    macros.install(con, temporary=True)
    args = _arguments(q)
    # the cells anon_dp_cells numbers: the declared ones, or the data's (an aggregate, read once)
    distinct = "SELECT count(*) FROM (SELECT DISTINCT COLUMNS(lambda c: list_contains($dims, c)) FROM query_table($t))"
    cells = int((con.execute(distinct, {"dims": list(q.by), "t": q.keys or q.table}).fetchone() or (0,))[0])
    ledger.spend(engine, target, q.name, note="a query")   # before any noise is drawn
    draws = noisy(q, cells)
    names = {"count": "count_noise", "sum": "sum_noise"} if q.kind == "mean" else {q.kind: "noise"}
    bound = {**args, **{names[k]: draws[k] for k in KINDS[q.kind]}}
    if q.keys is None:
        bound.update(selection_noise=draws["selection"], threshold=draws["threshold"][0])
    positional = ["tbl", "dims", "person"] + (["value", "lo", "hi"] if q.value else []) + \
        [names[k] for k in KINDS[q.kind]]
    call = ", ".join(f"${p}" for p in positional) + "".join(
        f", {p} := ${p}" for p in bound if p not in positional)
    return con.execute(f"SELECT * FROM anon_dp_{q.kind}({call}) ORDER BY ALL", bound).df()


def noisy(q: Query, cells: int) -> dict[str, list[int]]:
    """One secret draw per cell of each noisy quantity (and the selection's, with its
    threshold), at a dp-aggregates release's scales (:mod:`anonymizer.families.aggregates.cells`)."""
    g, r = q.groups_per_person, q.rows_per_group
    epsilon = Fraction(q.epsilon) / (len(KINDS[q.kind]) + (1 if q.keys is None else 0))
    quantity = {"count": counted("count", g, r), "sum": summed("sum", g, r)}
    out = {k: with_noise([0] * cells, quantity[k], epsilon, 0.0, False)[0] for k in KINDS[q.kind]}
    if q.keys is None:
        out["selection"], tau, _ = selection(cells, g, epsilon, q.delta)
        out["threshold"] = [tau]
    return out


def _require_columns(con: duckdb.DuckDBPyConnection, q: Query) -> None:
    """Refuse a table or a column that is not there, naming it, and a measured column that is
    not a number (before anything is spent)."""
    for table, names in ((q.table, [*q.by, q.person] + ([q.value] if q.value else [])),
                         *(((q.keys, list(q.by)),) if q.keys else ())):
        try:
            have = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM query_table($t))",
                                    {"t": table}).fetchall())
        except duckdb.Error:
            raise SpecError("keys" if table == q.keys else "table", "is not a table or view of this database",
                            table) from None
        missing = [n for n in names if n not in have]
        if missing:
            raise SpecError("keys" if table == q.keys else "by, person, value",
                            f"{table} has no column {', '.join(missing)} (it has {', '.join(have)})") from None
    kind = con.execute("SELECT column_type FROM (DESCRIBE SELECT * FROM query_table($t)) WHERE column_name = $c",
                       {"t": q.table, "c": q.value}).fetchone() if q.value else None
    if kind is not None and not (kind[0] in NUMBERS or kind[0].startswith("DECIMAL")):
        raise SpecError("value", f"must be a numeric column ({q.value} is {kind[0]})", q.value)


def _arguments(q: Query) -> dict[str, Any]:
    """The macro's bound arguments but the noise: the table, the columns, the bounds, a fresh key."""
    out: dict[str, Any] = {"tbl": q.table, "dims": list(q.by), "person": q.person,
                           "groups_per_person": q.groups_per_person, "rows_per_group": q.rows_per_group,
                           "key": secrets.token_hex(16)}
    if q.value is not None and q.bounds is not None:
        out.update(value=q.value, lo=q.bounds[0], hi=q.bounds[1])
    if q.keys is not None:
        out["keys"] = q.keys
    return out
