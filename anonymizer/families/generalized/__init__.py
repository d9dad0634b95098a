"""Anonymization algorithms. Each takes the engine and a prepared plan and writes the
``assign`` work table; :func:`run_algorithm` picks one by the spec's algorithm name."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AlgorithmResult:
    """The outcome of an algorithm run.

    Attributes:
        assign: quoted work table ``(__rid, __cid, __lo0, __hi0, ..)``, one row per kept row.
        classes: number of equivalence classes.
        suppressed: rows of ``base`` left out of ``assign`` (NULL-suppressed rows not included).
        rounds: rounds (Mondrian) or statements (full-domain) it took.
        seconds: wall time of the algorithm.
        notes: algorithm-specific figures (per-round timings, levels, ...).
        labels: ``"hier"`` when labels come from each QI's ``hier`` table at ``levels``
            (full-domain); ``"hier-rows"`` when at the level each row's class has
            (``__lv<i>`` columns of ``assign``: lattice searches, partial-domain); ``"ranges"``
            when they are built from the code ranges (Mondrian).
        levels: the level per QI name, for ``labels == "hier"``.
        cells: optional quoted work table ``(__cid, q0, __lo0, __hi0, .., n)``: each class's
            rows collapsed by their QI codes (Mondrian's finished cells). Given, the classes'
            sizes, ranges and value sets are read from it instead of from ``assign`` joined
            with the rows.
    """

    assign: str
    classes: int
    suppressed: int
    rounds: int
    seconds: float
    notes: dict = field(default_factory=dict)
    labels: str = "ranges"
    levels: dict[str, int] | None = None
    cells: str | None = None


from anonymizer.families.generalized.mondrian import mondrian
from anonymizer.families.generalized.full_domain import full_domain, check_levels
from anonymizer.families.generalized.lattice.optimal import optimal
from anonymizer.families.generalized.lattice.privacyfrost2 import privacyfrost2

#: algorithm name in the spec -> entry function ``(engine, plan) -> AlgorithmResult``.
ALGORITHMS = {
    "mondrian": mondrian,
    "full-domain": full_domain,
    "privacyfrost2": privacyfrost2,
    "optimal": optimal,
}


def run_algorithm(engine, plan) -> AlgorithmResult:
    """Run the algorithm the plan's spec names (``plan.spec.algorithm.name``)."""
    return ALGORITHMS[plan.spec.algorithm.name](engine, plan)


__all__ = ["AlgorithmResult", "ALGORITHMS", "run_algorithm", "mondrian", "full_domain", "check_levels",
           "privacyfrost2", "optimal"]
