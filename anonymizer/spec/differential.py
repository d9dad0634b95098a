"""What a differentially private release (SafePub, :mod:`anonymizer.families.generalized.lattice.safepub`)
changes in a spec: its model is derived, not declared (k-anonymity with SafePub's k, from ε
and δ), every class under k is suppressed whatever their number (``suppression_limit: 1``),
and its versions compose by their ε in the budget, not by the cross-version gate
(``history: independent``; no person key, whose state would be read from the input). It
declares its ``budget:`` (:func:`budget`, :mod:`anonymizer.dp.ledger`)."""

from __future__ import annotations

from typing import Any

from anonymizer.errors import SpecError
from anonymizer.fields import mapping_field, name_field
from anonymizer.models import KAnonymity, PrivacyModel
from anonymizer.numbers import number
from anonymizer.spec.types import Algorithm
from anonymizer.target import Budget

#: the algorithms whose releases are differentially private
DIFFERENTIAL = ("safepub", "dp-aggregates")


def derived_models(data: dict, algorithm: Algorithm) -> tuple[PrivacyModel, ...]:
    """SafePub's k-anonymity, the model its release verifies (dp-aggregates: none, its cells
    hold no row); ``models:`` must be left out."""
    from anonymizer.families.generalized.lattice.safepub import parameters
    if data.get("models") is not None:
        raise SpecError("models", f"{algorithm.name} is differentially private: its guarantee is epsilon and delta "
                                  "(SafePub derives k-anonymity from them): leave models out", data["models"])
    return (KAnonymity(parameters(algorithm.options).k),) if algorithm.name == "safepub" else ()


def suppression(data: dict) -> float:
    """``suppression_limit``: 1 (SafePub suppresses every class under k, whatever their number;
    dp-aggregates suppresses nothing, it bounds each person's rows)."""
    value = data.get("suppression_limit", 1.0)
    if value != 1:
        raise SpecError("suppression_limit", "a differentially private release suppresses what its mechanism says "
                                             "(SafePub: every class under its k), however many rows (a limit would "
                                             "make it depend on the data outside epsilon): leave it out or set 1",
                        value)
    return 1.0


def nulls(data: dict) -> str:
    """``nulls``: suppress (the default here). A run that stopped on a NULL would publish, or
    not, by a fact of one row, outside ε; a row with a NULL left out is the row's own
    transformation, which the guarantee covers."""
    value = data.get("nulls", "suppress")
    if value != "suppress":
        raise SpecError("nulls", "a differentially private release leaves a row with a NULL quasi-identifier out "
                                 "(whether a run stops on one would tell a fact of one row): leave nulls out or set "
                                 "suppress", value)
    return value


def published(algorithm: Algorithm, columns: tuple, default_role: str | None) -> None:
    """SafePub publishes quasi-identifiers only: its guarantee rests on every published row
    standing in a class of at least k rows alike (Li, Qardaji and Su's k-anonymity after
    sampling, which SafePub builds on, generalizes whole rows). A column published as it is
    (sensitive or insensitive) would set a row apart within its class, and a value only one
    person holds would show that they were sampled: make such a column a quasi-identifier
    (with a hierarchy file, flat if need be: ``value;*``) or an identifier (dropped)."""
    if algorithm.name != "safepub":
        return
    kept = [c.name for c in columns if c.role in ("sensitive", "insensitive")]
    if kept or default_role in ("sensitive", "insensitive"):
        where = f"columns.{kept[0]}" if kept else "default_role"
        raise SpecError(where, "SafePub publishes quasi-identifiers only (every published row in a class of k alike): "
                               "a column published as it is would set its row apart, and a value one person holds "
                               "would show that they were sampled; make it a quasi-identifier with a hierarchy file "
                               "or an identifier (dropped), and default_role identifier",
                        kept[0] if kept else default_role)


def history(value: Any) -> Any:
    """``history:`` as SafePub takes it: ``independent`` (the default here) and no person."""
    if value is None:
        return "independent"
    guarantee = value if isinstance(value, str) else value.get("guarantee", "invariant") if isinstance(value, dict) else None
    if guarantee == "invariant":
        raise SpecError("history.guarantee", "a differentially private release's versions compose by their epsilon (the budget), "
                                             "not by the cross-version gate: use independent, or leave history out",
                        guarantee)
    if isinstance(value, dict) and value.get("person") is not None:
        raise SpecError("history.person", "a differentially private release follows no person across versions (its gate would "
                                          "record figures read from the input, outside epsilon)", value["person"])
    return value


def spends(algorithm: Algorithm) -> tuple[float, float]:
    """The (epsilon, delta) one version of a DP release spends (its algorithm's): dp-aggregates
    with public keys and Laplace noise is pure epsilon-DP and spends no delta."""
    o = algorithm.options
    pure = algorithm.name == "dp-aggregates" and o.keys is not None and o.noise == "laplace"
    return float(o.epsilon), 0.0 if pure else float(o.delta)


def budget(value: Any, release: str, algorithm: Algorithm) -> Budget | None:
    """``budget: {epsilon: E, delta: D, recipient: NAME}``: required of a DP release, refused of
    any other; one version's spending must fit in it."""
    if algorithm.name not in DIFFERENTIAL:
        if value is not None:
            raise SpecError("budget", f"is a differentially private release's ({', '.join(DIFFERENTIAL)}); "
                                      f"{algorithm.name} spends none", value)
        return None
    if value is None:
        raise SpecError("budget", "is required of a differentially private release: the total epsilon and delta "
                                  "its versions may spend, e.g. budget: {epsilon: 10, delta: 1.0e-4}")
    epsilon, delta, recipient = budget_fields(value)
    spent = spends(algorithm)
    if spent[0] > epsilon or spent[1] > delta:
        raise SpecError("budget", f"one version spends epsilon {spent[0]:g} and delta {spent[1]:g}, more than the "
                                  f"budget's total (epsilon {epsilon:g}, delta {delta:g})", value)
    return Budget(epsilon, delta, recipient or release, spent)


def budget_fields(value: Any) -> tuple[float, float, str | None]:
    """``budget: {epsilon, delta, recipient}`` read and checked: the totals and the recipient
    (``None`` when not named)."""
    v = mapping_field(value, "budget", {"epsilon", "delta", "recipient"})
    for name in ("epsilon", "delta"):
        if name not in v:
            raise SpecError(f"budget.{name}", "is required (the total its versions may spend)")
    epsilon = float(number(v["epsilon"], "budget.epsilon", 0, low_open=True, what="a positive number"))
    delta = float(number(v["delta"], "budget.delta", 0, 1, high_open=True, what="a number in [0, 1)"))
    recipient = name_field(v["recipient"], "budget.recipient") if v.get("recipient") is not None else None
    return epsilon, delta, recipient

