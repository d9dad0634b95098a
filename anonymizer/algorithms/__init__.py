"""Anonymization algorithms. Each takes the engine and a prepared plan and writes the
``assign`` work table; :func:`run_algorithm` picks one by the spec's algorithm name."""

from __future__ import annotations

from .result import AlgorithmResult
from .mondrian import mondrian
from .full_domain import full_domain, check_levels

#: algorithm name in the spec -> entry function ``(engine, plan) -> AlgorithmResult``.
ALGORITHMS = {
    "mondrian": mondrian,
    "full-domain": full_domain,
}


def run_algorithm(engine, plan) -> AlgorithmResult:
    """Run the algorithm the plan's spec names (``plan.spec.algorithm.name``)."""
    return ALGORITHMS[plan.spec.algorithm.name](engine, plan)


__all__ = ["AlgorithmResult", "ALGORITHMS", "run_algorithm", "mondrian", "full_domain", "check_levels"]
