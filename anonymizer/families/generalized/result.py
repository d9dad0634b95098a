"""What a generalizing algorithm (Mondrian, full-domain, the lattice searches) hands to the
release: the ``assign`` work table and how to label its classes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Packing:
    """How a row of ``plan.base`` finds its strict class among Mondrian's class cells: by its
    QI codes (``qis``, quoted ``q0..``) packed into one BIGINT, the sum of ``(code + 1) *
    weights[i]`` (``weights``: the products of ``m_j + 1`` over the QIs before i; codes run
    from -1), or on the codes themselves when the packing would pass 62 bits (``None``)."""

    qis: list[str]
    weights: list[int] | None


@dataclass
class AlgorithmResult:
    """The outcome of an algorithm run.

    Attributes:
        assign: quoted work table ``(__rid, __cid, __lo0, __hi0, ..)``, one row per kept row.
        classes: number of equivalence classes.
        suppressed: rows of ``base`` left out of ``assign`` (NULL-suppressed rows not included),
            ``presampled`` included.
        presampled: of those, the rows PrivacyFrost2's pre-sampling removed before the search
            (paper 003, section 5.1): left out of the release and counted as suppressed, but
            not against ``suppression_limit``, which bounds the search's own suppression.
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
        base: the rows ``assign`` refers to when they are not ``plan.base``: m-invariance's
            rows with its counterfeits (:mod:`.invariance`); ``None``: ``plan.base``.
        groups: ``assign`` has ``__gid``, each row's private group (m-invariance), beside the class.
        counterfeits: counterfeit rows among ``assign``'s (negative ``__rid``).
        packing: set while ``assign`` is not written (strict classes, ``cells`` given): each
            row's class is its QI codes' cell, and the candidate joins the rows with ``cells``
            directly (one pass over the rows, where writing ``assign`` and joining it back cost
            three on Spark); :func:`~.partitions.with_assign` writes ``assign`` for a step
            that reads each row's class.
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
    presampled: int = 0
    base: str | None = None
    groups: bool = False
    counterfeits: int = 0
    packing: Packing | None = None
