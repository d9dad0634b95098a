"""The budget ledger: what the differentially private releases of an account have spent.

An **account** is a release's name, or the ``recipient`` its spec names (one budget for every
release that recipient receives). Its events live in ``<snapshot_schema>._budget`` beside the
audit (``templates/publish/budget_*.sql.j2``):

- ``open``: the account's totals (ε, δ), written by the first version that spends from it, from
  its spec's ``budget:``, or by ``anonymizer budget open`` (:func:`open_account`, the only way
  an account for queries opens);
- ``spend``: one run's ε and δ, written in a transaction of its own when the mechanism starts
  (:func:`spend`, before the sample or the noise is drawn), its version set in the transaction
  that publishes it (:func:`settle`). A run that fails after the mechanism started (every
  sampled row suppressed, a stop, a crash) has spent all the same: its event keeps no version.
  Retrying until a run works would otherwise publish a version chosen by a data-dependent
  event at no cost;
- ``refresh``: new totals, written only by ``anonymizer budget refresh ACCOUNT --reason TEXT``
  (:func:`refresh`); spending counts from the last ``open`` or ``refresh``.

Versions compose sequentially (Dwork and Roth 2014, Theorem 3.16): what an account has spent is
the sum of its versions' ε and of their δ since its last refresh. A run that would take an
account past its totals is refused before any work (:func:`check`, :class:`BudgetExhausted`),
and so is a spec whose totals differ from the account's: only ``refresh`` changes them. A
release keeps its account: a spec naming another account than its earlier versions spent from
(their audit rows' ``parameters.budget``), or a ledger that lost that account, is refused too
(the versions compose whatever the account says). Sums are
``math.fsum`` (correctly rounded) and compared with the totals as they are: never above them.

A database keeps one account of a name: a run or ``budget open`` naming an account that the
ledger of another snapshot schema of the same database holds is refused (:func:`held_elsewhere`),
so that a release published again with another ``snapshot_schema`` (or a query naming another
``--schema``) spends from the account it has, never from a new one. The ledger lives in the
output database, beside the releases it accounts for: another database file is another ledger.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from anonymizer.engine.names import in_catalog
from anonymizer.engine.session import Engine
from anonymizer.errors import BudgetExhausted, SpecError
from anonymizer.release.publish import owned
from anonymizer.target import Target

#: the ledger's table, in the snapshot schema beside the audit
BUDGET = "_budget"
#: its columns (a relation of that name without them is someone else's)
BUDGET_CORE = ("account", "seq", "event", "epsilon", "delta")


@dataclass(frozen=True)
class Account:
    """An account as its events say: its totals since the last ``open`` or ``refresh``, what
    was spent since then, and every event (dicts, oldest first)."""

    name: str
    total: tuple[float, float]
    spent: tuple[float, float]
    events: list[dict]

    @property
    def left(self) -> tuple[float, float]:
        return max(self.total[0] - self.spent[0], 0.0), max(self.total[1] - self.spent[1], 0.0)

    @property
    def lifetime(self) -> tuple[float, float]:
        """What every spend event of the account spent, refreshes or not: what its recipients
        may hold (a refresh renews the budget, it does not undo a disclosure)."""
        spends = [e for e in self.events if e["event"] == "spend"]
        return math.fsum(e["epsilon"] for e in spends), math.fsum(e["delta"] for e in spends)

    @property
    def refreshes(self) -> int:
        return sum(1 for e in self.events if e["event"] == "refresh")

    def cumulative(self) -> list[dict]:
        """The events with ``spent`` (what the account had spent after each, since its last
        open or refresh) and ``total`` (its totals then)."""
        out: list[dict] = []
        spent: list[list[float]] = [[], []]
        total = (0.0, 0.0)
        for e in self.events:
            if e["event"] in ("open", "refresh"):
                spent, total = [[], []], (e["epsilon"], e["delta"])
            else:
                spent[0].append(e["epsilon"])
                spent[1].append(e["delta"])
            out.append({**e, "spent": (math.fsum(spent[0]), math.fsum(spent[1])), "total": total})
        return out


def budget_table(catalog: str | None, schema: str) -> str:
    """The quoted ledger table of a snapshot schema."""
    return in_catalog(catalog, schema, BUDGET)


def read(engine: Engine, catalog: str | None, schema: str, account: str) -> Account | None:
    """The account's events, or ``None`` (no ledger, or no event of it)."""
    if not owned(engine, catalog, schema, BUDGET, BUDGET_CORE):
        return None
    names = ["account", "seq", "event", "release", "version", "epsilon", "delta", "reason", "created_at"]
    events = [dict(zip(names, r)) for r in engine.rows("publish/budget_rows.sql.j2", {"account": account},
                                                       budget=budget_table(catalog, schema), all=False)]
    if not events:
        return None
    return _account(account, events)


def accounts(engine: Engine, catalog: str | None, schema: str) -> list[Account]:
    """Every account of a snapshot schema's ledger."""
    if not owned(engine, catalog, schema, BUDGET, BUDGET_CORE):
        return []
    names = ["account", "seq", "event", "release", "version", "epsilon", "delta", "reason", "created_at"]
    by: dict[str, list[dict]] = {}
    for r in engine.rows("publish/budget_rows.sql.j2", budget=budget_table(catalog, schema), all=True):
        by.setdefault(r[0], []).append(dict(zip(names, r)))
    return [_account(name, events) for name, events in by.items()]


def _account(name: str, events: list[dict]) -> Account:
    last = max(i for i, e in enumerate(events) if e["event"] in ("open", "refresh"))
    since = events[last + 1:]
    spent = (math.fsum(e["epsilon"] for e in since), math.fsum(e["delta"] for e in since))
    return Account(name, (events[last]["epsilon"], events[last]["delta"]), spent, events)


def check(engine: Engine, target: Target) -> Account | None:
    """Refuse, before any work, a run of ``target`` that its budget cannot pay for, or whose
    spec declares other totals than its account's (module docstring)."""
    b = target.budget
    if b is None:
        return None
    _not_held_elsewhere(engine, target.output.catalog, target.output.snapshot_schema, b.account,
                        "output.snapshot_schema")
    account = read(engine, target.output.catalog, target.output.snapshot_schema, b.account)
    before = _earlier_account(engine, target)   # the account the release's earlier versions spent from
    if before is not None and before != b.account:
        raise SpecError("budget.recipient", f"release {target.release} spent from account {before} in its earlier "
                                            f"versions; this spec names account {b.account}. The versions compose "
                                            "whatever the account: keep the release's account (a budget changes "
                                            "only by `anonymizer budget refresh`)", b.account)
    if account is None:
        if before is not None:   # its account's events are gone: what the versions spent is unknown
            raise SpecError("budget", f"release {target.release} spent from account {before}, which the ledger "
                                      f"({target.output.snapshot_schema}.{BUDGET}) no longer holds: restore it; "
                                      "nothing is run")
        return None          # opened by this run's version, from the spec
    if account.total != (b.epsilon, b.delta):
        raise SpecError("budget", f"account {b.account} has a budget of epsilon {account.total[0]:g} and delta "
                                  f"{account.total[1]:g}; this spec declares epsilon {b.epsilon:g} and delta "
                                  f"{b.delta:g}. A budget changes only by `anonymizer budget refresh {b.account} "
                                  "--epsilon E --delta D --reason TEXT` (audited)", {"epsilon": b.epsilon,
                                                                                      "delta": b.delta})
    after = (math.fsum([account.spent[0], b.spends[0]]), math.fsum([account.spent[1], b.spends[1]]))
    if after[0] > account.total[0] or after[1] > account.total[1]:
        raise BudgetExhausted(b.account, b.spends, account.left, account.total)
    return account


def held_elsewhere(engine: Engine, catalog: str | None, schema: str, account: str) -> str | None:
    """The other schema of the database whose ledger (this package's: a table with the ledger's
    columns) holds ``account``, or ``None`` (module docstring: one account of a name a database)."""
    for (other,) in engine.rows("publish/budget_holders.sql.j2", {"database": catalog, "name": BUDGET}):
        if other.lower() == schema.lower():
            continue
        have = {c.lower() for c in engine.columns(in_catalog(catalog, other, BUDGET))}
        if have.issuperset(BUDGET_CORE) and read(engine, catalog, other, account) is not None:
            return str(other)
    return None


def _not_held_elsewhere(engine: Engine, catalog: str | None, schema: str, account: str, field: str) -> None:
    other = held_elsewhere(engine, catalog, schema, account)
    if other is not None:
        raise SpecError(field, f"names schema {schema}, but account {account} is kept in the ledger of schema "
                               f"{other} of this database, which keeps one account of a name so that its spending "
                               f"never starts afresh: use schema {other} (a budget changes only by "
                               f"`anonymizer budget refresh`)", schema)


def _earlier_account(engine: Engine, target: Target) -> str | None:
    """The account the release's latest DP version spent from (its audit row's ``parameters.budget``)."""
    from anonymizer.release.publish import latest
    last = latest(engine, target)
    parameters = (last or {}).get("parameters") or {}
    if isinstance(parameters, str):
        parameters = json.loads(parameters)
    return (parameters.get("budget") or {}).get("account")


def spend(engine: Engine, target: Target, release: str, note: str = "run started; no version published") -> int:
    """Record a run's spending before its mechanism starts (in a transaction of its own, the
    account opened first if this is its first event; checked again inside it: another run may
    have spent since): its ``seq``, which :func:`settle` gives the version it publishes. ``note``:
    the event's reason until then (a query, :mod:`anonymizer.dp.queries`, keeps it)."""
    b = target.budget
    assert b is not None
    catalog, schema = target.output.catalog, target.output.snapshot_schema
    table = budget_table(catalog, schema)
    owned(engine, catalog, schema, BUDGET, BUDGET_CORE)
    with engine.transaction():
        engine.run("publish/budget_table.sql.j2", schema=in_catalog(catalog, schema), budget=table)
        if check(engine, target) is None:
            _event(engine, table, b.account, "open", None, None, (b.epsilon, b.delta), f"opened by {release}", day=True)
        _event(engine, table, b.account, "spend", release, None, b.spends, note, day=True)
        found = read(engine, catalog, schema, b.account)
    assert found is not None
    return int(found.events[-1]["seq"])


def settle(engine: Engine, target: Target, seq: int, version: int) -> None:
    """Give the spend event ``seq`` (:func:`spend`) the version it published: called inside the
    transaction that publishes the version."""
    b = target.budget
    assert b is not None
    engine.run("publish/budget_settle.sql.j2", {"account": b.account, "seq": seq, "version": version},
               budget=budget_table(target.output.catalog, target.output.snapshot_schema))


def open_account(engine: Engine, catalog: str | None, schema: str, account: str, total: tuple[float, float],
                 reason: str) -> Account:
    """Open ``account`` with its totals (``anonymizer budget open``): the only way a query's
    account (:mod:`anonymizer.dp.queries`) comes to be; a release's opens with its first version."""
    if read(engine, catalog, schema, account) is not None:
        raise SpecError("ACCOUNT", "has a budget already: `anonymizer budget refresh` renews it", account)
    _not_held_elsewhere(engine, catalog, schema, account, "--schema")
    _check_reason_and_totals(reason, total)
    table = budget_table(catalog, schema)
    owned(engine, catalog, schema, BUDGET, BUDGET_CORE)
    with engine.transaction():
        engine.run("publish/budget_table.sql.j2", schema=in_catalog(catalog, schema), budget=table)
        _event(engine, table, account, "open", None, None, total, reason)
    opened = read(engine, catalog, schema, account)
    assert opened is not None
    return opened


def _check_reason_and_totals(reason: str, total: tuple[float, float] | None) -> None:
    if not reason.strip():
        raise SpecError("--reason", "must say why (it is kept in the ledger)")
    if total is not None:
        if not (math.isfinite(total[0]) and total[0] > 0):
            raise SpecError("--epsilon", "must be a finite number above 0", total[0])
        if not (math.isfinite(total[1]) and 0 <= total[1] < 1):
            raise SpecError("--delta", "must be a number in [0, 1)", total[1])


def refresh(engine: Engine, catalog: str | None, schema: str, account: str, total: tuple[float, float] | None,
            reason: str) -> Account:
    """Start the account afresh (``anonymizer budget refresh``): its totals ``total`` (``None``:
    the same as before), spending counted from now; ``reason`` is kept with the event."""
    found = read(engine, catalog, schema, account)
    if found is None:
        raise SpecError("ACCOUNT", "has no budget in this database's ledger (a budget opens with the first "
                                   "differentially private version that spends from it)", account)
    _check_reason_and_totals(reason, total)
    with engine.transaction():
        _event(engine, budget_table(catalog, schema), account, "refresh", None, None, total or found.total, reason)
    refreshed = read(engine, catalog, schema, account)
    assert refreshed is not None
    return refreshed


def _event(engine: Engine, table: str, account: str, event: str, release: str | None, version: int | None,
           amounts: tuple[float, float], reason: str | None, day: bool = False) -> None:
    engine.run("publish/budget_insert.sql.j2", {"account": account, "event": event, "release": release,
                                                "version": version, "epsilon": amounts[0], "delta": amounts[1],
                                                "reason": reason}, budget=table, day=day)
