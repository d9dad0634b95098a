"""The budget ledger of differentially private releases: ``anonymizer budget show`` and
``anonymizer budget refresh`` (:mod:`anonymizer.dp.ledger`)."""

from __future__ import annotations

import click

from anonymizer.cli.params import db_option, echo_json, json_option, open_db

_DB = "DuckDB database file holding the releases' audit table and budget ledger."
_schema = click.option("--schema", default="_anon_releases", show_default=True,
                       help="The releases' snapshot schema, which holds the ledger (a spec's output.snapshot_schema).")


@click.group()
def budget() -> None:
    """The privacy budgets of differentially private releases and queries: what each account (a
    release, the recipient its spec names, or an account opened for `anonymizer dp` queries) may
    spend in epsilon and delta, what its versions and queries spent, and its refreshes. A run
    that would overspend is refused before any work; only `anonymizer budget refresh` renews a
    budget, and the ledger keeps why.

    \b
    Examples:
      anonymizer budget open ann --epsilon 5 --delta 1e-6 --reason "ann's study, 2027" --db warehouse.duckdb
      anonymizer budget show --db warehouse.duckdb
      anonymizer budget show adult_dp --db warehouse.duckdb --json
      anonymizer budget refresh adult_dp --db warehouse.duckdb --reason "new data-sharing agreement, 2027"
    """


@budget.command()
@click.argument("account", required=False)
@db_option(help=_DB + " Opened read-only.")
@_schema
@json_option
def show(account: str | None, db: str, schema: str, as_json: bool) -> None:
    """Every account (or ACCOUNT): its totals, spent and left since its last refresh, what it
    spent over its life when it was refreshed (what its recipients may hold: a refresh renews a
    budget, it does not undo a disclosure), and each event (open, spend by a release's version,
    refresh with its reason)."""
    from anonymizer.dp import ledger
    from anonymizer.engine.session import Engine
    from anonymizer.errors import SpecError
    with open_db(db, read_only=True, must_exist=True) as con:
        found = ledger.accounts(Engine(con), None, schema)
    if account is not None:
        found = [a for a in found if a.name == account]
        if not found:
            raise SpecError("ACCOUNT", "has no budget in this database's ledger", account)
    if as_json:
        echo_json({"accounts": [_as_dict(a) for a in found]})
        return
    if not found:
        click.echo("no budget: no differentially private version was published here")
    for a in found:
        click.echo(_format(a))


@budget.command(name="open")
@click.argument("account")
@click.option("--epsilon", required=True, type=click.FloatRange(0, min_open=True), help="The account's total epsilon.")
@click.option("--delta", required=True, type=click.FloatRange(0, 1, max_open=True), help="The account's total delta.")
@click.option("--reason", required=True, help="Who the account is for and why (kept in the ledger).")
@db_option(help=_DB)
@_schema
@json_option
def open_(account: str, epsilon: float, delta: float, reason: str, db: str, schema: str, as_json: bool) -> None:
    """Open ACCOUNT with its total epsilon and delta: the account the differentially private
    queries of `anonymizer dp` spend from (a query names an account that is open; a release's
    account opens with its first version). The ledger keeps the event and its reason.

    \b
    Example:
      anonymizer budget open ann --epsilon 5 --delta 1e-6 --reason "ann's study, 2027" --db warehouse.duckdb
    """
    from anonymizer.dp import ledger
    from anonymizer.engine.session import Engine
    with open_db(db, must_exist=True) as con:
        opened = ledger.open_account(Engine(con), None, schema, account, (epsilon, delta), reason)
    if as_json:
        echo_json(_as_dict(opened))
    else:
        click.echo(_format(opened))


@budget.command()
@click.argument("account")
@click.option("--reason", required=True, help="Why the budget is renewed (kept in the ledger).")
@click.option("--epsilon", type=click.FloatRange(0, min_open=True), help="New total epsilon (default: the same).")
@click.option("--delta", type=click.FloatRange(0, 1, max_open=True), help="New total delta (default: the same).")
@db_option(help=_DB)
@_schema
@json_option
def refresh(account: str, reason: str, epsilon: float | None, delta: float | None, db: str, schema: str,
            as_json: bool) -> None:
    """Renew ACCOUNT's budget: spending counts again from zero, with its totals (or new ones,
    --epsilon, --delta), and the ledger keeps the event and its reason. What the versions
    published before spent is not undone: their epsilon still composes with what follows for
    whoever holds them; a refresh is a decision of policy (a new recipient, a new agreement),
    never a repair."""
    from anonymizer.dp import ledger
    from anonymizer.engine.session import Engine
    with open_db(db, must_exist=True) as con:
        engine = Engine(con)
        before = ledger.read(engine, None, schema, account)
        total = None if before is None or (epsilon is None and delta is None) else (
            epsilon if epsilon is not None else before.total[0], delta if delta is not None else before.total[1])
        after = ledger.refresh(engine, None, schema, account, total, reason)
    if as_json:
        echo_json(_as_dict(after))
    else:
        click.echo(_format(after))


def _as_dict(a) -> dict:
    return {"account": a.name, "total": {"epsilon": a.total[0], "delta": a.total[1]},
            "spent": {"epsilon": a.spent[0], "delta": a.spent[1]}, "left": {"epsilon": a.left[0], "delta": a.left[1]},
            "lifetime": {"epsilon": a.lifetime[0], "delta": a.lifetime[1]}, "refreshes": a.refreshes,
            "events": [{k: v for k, v in e.items() if k != "account"} for e in a.cumulative()]}


def _format(a) -> str:
    lines = [f"account {a.name}: epsilon {a.spent[0]:g} of {a.total[0]:g} spent ({a.left[0]:g} left), "
             f"delta {a.spent[1]:g} of {a.total[1]:g}"]
    if a.refreshes:   # a refresh renews the budget; what was spent before it stays disclosed
        lines[0] += (f"; over its life, across {a.refreshes} refresh{'es' if a.refreshes > 1 else ''}: "
                     f"epsilon {a.lifetime[0]:g}, delta {a.lifetime[1]:g}")
    for e in a.cumulative():
        when = str(e["created_at"])[:19]
        if e["event"] == "spend":
            run = f"v{e['version']}" if e["version"] is not None else f"({e['reason']})"
            lines.append(f"  {when}  spend    {e['release']} {run}: epsilon {e['epsilon']:g}, delta "
                         f"{e['delta']:g} (cumulative epsilon {e['spent'][0]:g} of {e['total'][0]:g})")
        else:
            lines.append(f"  {when}  {e['event']:<8} totals epsilon {e['epsilon']:g}, delta {e['delta']:g}"
                         + (f": {e['reason']}" if e["reason"] else ""))
    return "\n".join(lines)
