"""Differentially private queries for analysts: ``anonymizer dp count | sum | mean``
(:mod:`anonymizer.dp.queries`)."""

from __future__ import annotations

from typing import Any, Callable

import click

from anonymizer.cli.params import db_option, echo_json, json_option, open_db


@click.group()
def dp() -> None:
    """Differentially private counts, sums and means of a table, each person's contribution
    bounded in SQL (the macros anon_dp_count, anon_dp_sum, anon_dp_mean), the noise drawn from a
    secure source and epsilon spent from the budget ledger before anything is drawn. A query
    spends from an account opened by `anonymizer budget open`; one the account cannot pay for
    is refused (exit 1); `anonymizer budget show` lists what was spent.

    \b
    Examples:
      anonymizer budget open ann --epsilon 5 --delta 1e-6 --reason "ann's study" --db warehouse.duckdb
      anonymizer dp count visits --by region --person patient --epsilon 0.5 --delta 1e-7 \\
          --account ann --db warehouse.duckdb
      anonymizer dp mean visits --by region --person patient --value minutes --bounds 0 120 \\
          --epsilon 1 --keys region=north,south,east,west --account ann --db warehouse.duckdb
    """


def _options(measured: bool) -> Callable:
    """The options every query command takes (``measured``: also --value and --bounds)."""
    def wrap(f: Callable) -> Callable:
        options = [
            click.argument("table"),
            click.option("--by", required=True, help="The cells' dimensions: columns, comma-separated."),
            click.option("--person", required=True, help="The column naming each person (whose contribution is "
                                                         "bounded)."),
            *([click.option("--value", required=True, help="The column measured."),
               click.option("--bounds", required=True, nargs=2, type=float, metavar="LO HI",
                            help="Each value is clamped to [LO, HI] (its sensitivity; never read from the data).")]
              if measured else []),
            click.option("--epsilon", required=True, type=float, help="What this query spends."),
            click.option("--delta", type=float, help="The chance a cell one person makes is published (needed "
                                                      "without --keys)."),
            click.option("--keys", "keys", multiple=True, metavar="DIM=V1,V2,...",
                         help="The public values of a dimension (give every dimension): the cells are their "
                              "product, each published (default: the data's cells, selected privately)."),
            click.option("--groups-per-person", default=1, show_default=True, type=int,
                         help="Cells one person may add to."),
            click.option("--rows-per-group", default=1, show_default=True, type=int,
                         help="Rows one person may add to a cell."),
            click.option("--account", required=True,
                         help="The budget account spent from (opened by `anonymizer budget open`)."),
            click.option("--schema", default="_anon_releases", show_default=True,
                         help="The snapshot schema holding the budget ledger."),
            db_option(help="DuckDB database file holding the table and the ledger."),
            json_option,
        ]
        for option in reversed(options):
            f = option(f)
        return f
    return wrap


def _query(kind: str, table: str, kw: dict[str, Any]) -> None:
    from anonymizer.dp import queries
    as_json, db, schema, account = kw.pop("as_json"), kw.pop("db"), kw.pop("schema"), kw.pop("account")
    by, person, epsilon = [b.strip() for b in kw.pop("by").split(",")], kw.pop("person"), kw.pop("epsilon")
    value, bounds, keys = kw.pop("value", None), kw.pop("bounds", None), kw.pop("keys")
    options = {k: v for k, v in kw.items() if v is not None}
    if keys:
        options["keys"] = dict(_key_values(k) for k in keys)
    q = queries.query(kind, table, by, person, value, bounds, epsilon, options)
    with open_db(db, must_exist=True) as con:
        frame = queries.run(con, q, account, schema)
    if as_json:
        echo_json({"query": q.name, "epsilon": q.spends[0], "delta": q.spends[1], "account": account,
                   "cells": frame.to_dict(orient="records")})
    else:
        click.echo(f"{q.name}: {len(frame)} cells, epsilon {q.spends[0]:g} and delta {q.spends[1]:g} spent from "
                   f"{account}")
        click.echo(frame.to_string(index=False))


def _key_values(text: str) -> tuple[str, list[str]]:
    """``--keys DIM=V1,V2,...`` as (DIM, [V1, V2, ...])."""
    from anonymizer.errors import SpecError
    dim, sep, values = text.partition("=")
    if not sep or not dim.strip() or not values:
        raise SpecError("--keys", "must be DIM=V1,V2,... (a dimension and its public values)", text)
    return dim.strip(), values.split(",")


def _command(kind: str, measured: bool, doc: str) -> click.Command:
    """The command ``anonymizer dp KIND``, its --help ``doc``."""
    @dp.command(name=kind, help=doc)
    @_options(measured)
    def command(table: str, **kw: Any) -> None:
        _query(kind, table, kw)
    return command


_command("count", False, """The noisy count of TABLE's rows per cell of --by.

    \b
    Example:
      anonymizer dp count visits --by region --person patient --epsilon 0.5 --delta 1e-7 \\
          --account ann --db warehouse.duckdb
    """)
_command("sum", True, """The noisy sum of --value (clamped to --bounds) per cell of --by.

    \b
    Example:
      anonymizer dp sum visits --by region --person patient --value minutes --bounds 0 120 \\
          --epsilon 1 --keys region=north,south,east,west --account ann --db warehouse.duckdb
    """)
_command("mean", True, """The noisy count and mean of --value (clamped to --bounds) per cell of --by.

    \b
    Example:
      anonymizer dp mean visits --by region --person patient --value minutes --bounds 0 120 \\
          --epsilon 1 --keys region=north,south,east,west --account ann --db warehouse.duckdb
    """)
