"""Differentially private counts, sums and means for analysts: :func:`dp_count`,
:func:`dp_sum`, :func:`dp_mean` (and ``anonymizer dp count|sum|mean``).

The SQL is the macro library's (``anon_dp_declared``, ``anon_dp_cells``, ``anon_dp_count``,
``anon_dp_sum``, ``anon_dp_mean`` in ``sql/anonymizer_macros.sql``): each person's
contribution bounded, the cells aggregated, in the database. No macro draws noise, because SQL
has no secret source: this module draws it (:mod:`anonymizer.dp.noise`, discrete Laplace from
``secrets``) at the scale the bounds and ε set, binds it to the macro as a parameter, and
spends ε (and δ) from the budget ledger (:mod:`anonymizer.dp.ledger`) before anything is
drawn. The figures are those of a dp-aggregates release (:mod:`anonymizer.families.aggregates.cells`):

- sensitivities (L1): the count ``G R``; a sum ``G R 2^20`` units (a value clamped to
  ``[lo, hi]`` on a grid of ``2^20`` steps of ``max(|lo|, |hi|)``); the persons per cell ``G``;
- ε split evenly over the noisy quantities (a mean has two) and, without ``keys``, the private
  selection, which alone spends δ: a cell one person makes appears with probability ≤ δ
  (:func:`anonymizer.dp.noise.selection_threshold`);
- ``keys`` are values, as a release's spec declares them (each dimension's list; the cells are
  their product), cast to the columns' types before anything is spent: never a table, which
  could be derived from the data and publish a cell one person makes.

A query is one ``spend`` event of the ledger (its ``release`` the query's name) on an
``account`` that is open (``anonymizer budget open``); a release naming the same recipient
spends from the same account. Rows whose person is NULL name no one and are left out, and so
are, for a sum or a mean, rows whose value is NULL.
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
from anonymizer.engine.names import ident
from anonymizer.target import Budget, Output, Target

#: the column types a sum or a mean reads (and DECIMAL(p, s))
NUMBERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
           "UHUGEINT", "FLOAT", "DOUBLE"}
#: the query kinds and their noisy quantities per cell (a mean: its count and its sum)
KINDS = {"count": ("count",), "sum": ("sum",), "mean": ("count", "sum")}
#: the ledger's schema unless a query names another
SCHEMA = "_anon_releases"
#: the output's own columns, which no dimension may be named
OUTPUTS = ("count", "sum", "mean")
#: the least ε a query takes (its noise stays within DuckDB's 128-bit integers)
LEAST_EPSILON = 1e-6
#: the least largest magnitude of the bounds (the grid's step, max(|lo|, |hi|) / 2^20, a normal float)
LEAST_BOUND = 2.0 ** -900


@dataclass(frozen=True)
class Query:
    """One DP query, checked: what it aggregates, how each person is bounded, its cells
    (``keys``: each dimension's public values; ``None``: the data's, selected privately) and
    its ε, δ."""

    kind: str
    table: str
    by: tuple[str, ...]
    person: str
    value: str | None
    bounds: tuple[float, float] | None
    epsilon: float
    delta: float
    keys: dict[str, tuple] | None
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
             account: str, **options: Any) -> pd.DataFrame:
    """The noisy count of rows per cell of ``by`` in ``table``, each ``person`` bounded.

    Example (the docs' page ``differential-privacy.md`` runs it)::

        anonymizer.dp_count(con, "visits", ["region"], "patient", epsilon=0.5, delta=1e-7,
                            account="ann")

    Args:
        epsilon: what the query spends (and ``delta``, needed without ``keys``).
        account: the budget account spent from, opened by ``anonymizer budget open``.
        options: ``keys`` (``{dimension: [values]}`` for every dimension: the cells to
            publish, their product, each one even when empty; without it the data's cells,
            selected privately), ``delta``, ``groups_per_person`` and ``rows_per_group``
            (default 1 each), ``schema`` (the ledger's, default ``_anon_releases``).
    Returns:
        One row per cell published: the ``by`` columns and ``count``.
    Raises:
        SpecError: a bad argument (nothing spent). BudgetExhausted: the account cannot pay.
    """
    return run(con, query("count", table, by, person, None, None, epsilon, options), account,
               options.get("schema", SCHEMA))


def dp_sum(con: duckdb.DuckDBPyConnection, table: str, by: list[str], person: str, value: str,
           bounds: tuple[float, float], *, epsilon: float, account: str, **options: Any) -> pd.DataFrame:
    """The noisy sum of ``value`` clamped to ``bounds`` per cell (``by`` columns and ``sum``);
    the rest as :func:`dp_count`."""
    return run(con, query("sum", table, by, person, value, bounds, epsilon, options), account,
               options.get("schema", SCHEMA))


def dp_mean(con: duckdb.DuckDBPyConnection, table: str, by: list[str], person: str, value: str,
            bounds: tuple[float, float], *, epsilon: float, account: str, **options: Any) -> pd.DataFrame:
    """The noisy count and mean of ``value`` clamped to ``bounds`` per cell (``by`` columns,
    ``count`` and ``mean``: the noisy sum over the noisy count, clamped); as :func:`dp_count`."""
    return run(con, query("mean", table, by, person, value, bounds, epsilon, options), account,
               options.get("schema", SCHEMA))


def query(kind: str, table: str, by: list[str], person: str, value: str | None,
          bounds: tuple[float, float] | None, epsilon: float, options: dict) -> Query:
    """The arguments checked (a :class:`SpecError` naming the first wrong one)."""
    unknown = set(options) - {"keys", "delta", "groups_per_person", "rows_per_group", "schema"}
    if unknown:
        raise SpecError(sorted(unknown)[0], "is not an option of a DP query (keys, delta, groups_per_person, "
                                            "rows_per_group, schema)")
    if not isinstance(by, (list, tuple)) or not by:
        raise SpecError("by", "must list at least one column (the cells' dimensions)", by)
    dims = tuple(name_field(b, "by") for b in by)
    if set(dims) & set(OUTPUTS):
        raise SpecError("by", f"names a column as the output's own ({', '.join(OUTPUTS)}): rename it in a view",
                        sorted(set(dims) & set(OUTPUTS)))
    eps = float(number(epsilon, "epsilon", LEAST_EPSILON, 10, what=f"a number in [{LEAST_EPSILON:g}, 10]"))
    keys = _keys(options.get("keys"), dims)
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
        if not lo < hi or max(abs(lo), abs(hi)) < LEAST_BOUND:
            raise SpecError("bounds", "must be (lo, hi) with lo < hi, not both within 2^-900 of 0", bounds)
        bounds = (lo, hi)
    whole = {k: int(number(options.get(k, 1), k, 1, 10 ** 6, whole=True)) for k in ("groups_per_person",
                                                                                    "rows_per_group")}
    return Query(kind, name_field(table, "table"), dims, name_field(person, "person"),
                 None if value is None else name_field(value, "value"), bounds, eps, d, keys, **whole)


def _keys(value: Any, dims: tuple[str, ...]) -> dict[str, tuple] | None:
    """``keys``: every dimension's public values, distinct, none missing."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(dims):
        raise SpecError("keys", f"must give the public values of every dimension ({', '.join(dims)}) and no "
                                "other: {dimension: [values]}", value)
    for name, values in value.items():
        if not isinstance(values, (list, tuple)) or not values or len(set(map(repr, values))) < len(values):
            raise SpecError(f"keys.{name}", "must be a non-empty list of distinct values", values)
    return {d: tuple(value[d]) for d in dims}


def run(con: duckdb.DuckDBPyConnection, q: Query, account: str, schema: str = SCHEMA) -> pd.DataFrame:
    """Spend ``q``'s ε and δ from ``account``, draw its noise and run its macro."""
    engine = Engine(con)
    found = ledger.read(engine, None, name_field(schema, "schema"), name_field(account, "account"))
    if found is None:
        raise SpecError("account", f"is not open in this database's ledger ({schema}): open it with `anonymizer "
                                   f"budget open {account} --epsilon E --delta D --reason TEXT`", account)
    for i, (asked, total) in enumerate(zip(q.spends, found.total)):
        if asked > total:
            raise SpecError(("epsilon", "delta")[i], f"the query spends more than the account's total "
                                                     f"({total:g})", asked)
    target = Target(q.name, Output(view=q.name, snapshot_schema=schema),
                    budget=Budget(found.total[0], found.total[1], account, q.spends))
    ledger.check(engine, target)   # an account that cannot pay: refused before the data is read
    types = _require_columns(con, q)
    macros.install(con, temporary=True)
    keys = None if q.keys is None else _keys_table(con, q, types)
    try:
        args = _arguments(q, keys)
        cells = int((con.execute("SELECT count(*) FROM anon_dp_declared($tbl, $dims, keys := $keys)",
                                 {"tbl": q.table, "dims": list(q.by), "keys": args.get("keys")}).fetchone()
                     or (0,))[0])
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
    finally:
        if keys is not None:
            con.execute(f"DROP TABLE IF EXISTS temp.main.{ident(keys)}")


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


def _require_columns(con: duckdb.DuckDBPyConnection, q: Query) -> dict[str, str]:
    """Refuse a table or a column that is not there, naming it, and a measured column that is
    not a number (before anything is spent); the table's column types."""
    try:
        have = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM query_table($t))",
                                {"t": q.table}).fetchall())
    except duckdb.Error:
        raise SpecError("table", "is not a table or view of this database", q.table) from None
    missing = [n for n in [*q.by, q.person] + ([q.value] if q.value else []) if n not in have]
    if missing:
        raise SpecError("by, person, value", f"{q.table} has no column {', '.join(missing)} (it has "
                                             f"{', '.join(have)})") from None
    kind = have[q.value] if q.value else None
    if kind is not None and not (kind in NUMBERS or kind.startswith("DECIMAL")):
        raise SpecError("value", f"must be a numeric column ({q.value} is {kind})", q.value)
    return have


def _keys_table(con: duckdb.DuckDBPyConnection, q: Query, types: dict[str, str]) -> str:
    """The declared cells, the product of the dimensions' values cast to their columns' types,
    as a TEMP table for the macro (dropped after the query); a value that does not cast is
    refused before anything is spent."""
    assert q.keys is not None
    name = f"__anon_dp_keys_{secrets.token_hex(8)}"
    values = {f"k{j}": list(q.keys[d]) for j, d in enumerate(q.by)}
    for j, d in enumerate(q.by):
        bad = con.execute(f"SELECT list(k) FILTER (WHERE TRY_CAST(k AS {types[d]}) IS NULL AND k IS NOT NULL) "
                          f"FROM unnest($k{j}) AS t(k)", {f"k{j}": values[f"k{j}"]}).fetchone()
        if bad and bad[0]:
            raise SpecError(f"keys.{d}", f"must be values of the column's type ({types[d]})", bad[0])
    columns = ", ".join(f"TRY_CAST(t{j}.k AS {types[d]}) AS {ident(d)}" for j, d in enumerate(q.by))
    sources = " CROSS JOIN ".join(f"unnest($k{j}) AS t{j}(k)" for j in range(len(q.by)))
    con.execute(f"CREATE TEMP TABLE {ident(name)} AS SELECT {columns} FROM {sources}", values)
    return name


def _arguments(q: Query, keys: str | None) -> dict[str, Any]:
    """The macro's bound arguments but the noise: the table, the columns, the bounds, the
    declared cells' table, a fresh key."""
    out: dict[str, Any] = {"tbl": q.table, "dims": list(q.by), "person": q.person,
                           "groups_per_person": q.groups_per_person, "rows_per_group": q.rows_per_group,
                           "key": secrets.token_hex(16)}
    if q.value is not None and q.bounds is not None:
        out.update(value=q.value, lo=q.bounds[0], hi=q.bounds[1])
    if keys is not None:
        out["keys"] = f"temp.main.{ident(keys)}"
    return out
