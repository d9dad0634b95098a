"""What a differentially private release (SafePub, :mod:`anonymizer.families.generalized.lattice.safepub`)
changes in a spec: its model is derived, not declared (k-anonymity with SafePub's k, from ε
and δ), every class under k is suppressed whatever their number (``suppression_limit: 1``),
and its versions compose by their ε in the budget, not by the cross-version gate
(``history: independent``; no person key, whose state would be read from the input)."""

from __future__ import annotations

from typing import Any

from anonymizer.errors import SpecError
from anonymizer.models import KAnonymity, PrivacyModel
from anonymizer.spec.types import Algorithm

#: the algorithms whose releases are differentially private
DIFFERENTIAL = ("safepub",)


def derived_models(data: dict, algorithm: Algorithm) -> tuple[PrivacyModel, ...]:
    """SafePub's k-anonymity, the model its release verifies; ``models:`` must be left out."""
    from anonymizer.families.generalized.lattice.safepub import parameters
    if data.get("models") is not None:
        raise SpecError("models", "SafePub derives its model from algorithm.epsilon and algorithm.delta "
                                  "(k-anonymity with its k): leave models out", data["models"])
    return (KAnonymity(parameters(algorithm.options).k),)


def suppression(data: dict) -> float:
    """``suppression_limit``: 1 (every class under k is suppressed, whatever their number)."""
    value = data.get("suppression_limit", 1.0)
    if value != 1:
        raise SpecError("suppression_limit", "SafePub suppresses every class under its k, however many rows they "
                                             "hold (a limit would make the release depend on the data outside "
                                             "epsilon): leave it out or set 1", value)
    return 1.0


def history(value: Any) -> Any:
    """``history:`` as SafePub takes it: ``independent`` (the default here) and no person."""
    if value is None:
        return "independent"
    guarantee = value if isinstance(value, str) else value.get("guarantee", "invariant") if isinstance(value, dict) else None
    if guarantee == "invariant":
        raise SpecError("history.guarantee", "a SafePub release's versions compose by their epsilon (the budget), "
                                             "not by the cross-version gate: use independent, or leave history out",
                        guarantee)
    if isinstance(value, dict) and value.get("person") is not None:
        raise SpecError("history.person", "a SafePub release follows no person across versions (its gate would "
                                          "record figures read from the input, outside epsilon)", value["person"])
    return value
