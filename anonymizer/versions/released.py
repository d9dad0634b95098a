"""What a candidate version publishes, as the cross-version gate reads it
(:mod:`anonymizer.versions.combination`, :mod:`anonymizer.versions.difference`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Released:
    """What a candidate version publishes, as the gate reads it (work tables of the run).

    Attributes:
        rows: the per-row candidate (``eq_class`` and the sensitive columns, published names),
            or its rows counted by those columns (with ``weight``).
        classes: the class table (``eq_class`` and the label columns).
        eq_class: the column joining the two.
        labels: the label columns that make a class's box.
        attrs: the sensitive columns (of ``rows``).
        followed: the sensitive column the intersection check follows per person, or ``None``.
        people: ``(pid, gid, cid, value)``, one row per real row with the person key, the
            private group, the class (``__cid``) and the followed column's value; or
            ``None`` without ``history.person``.
        members: ``(cid, value)``, every published row (counterfeits too), for the class value sets.
        groups: ``(gid, value, n)``: each private group's published multiset (m-invariance), or ``None``.
        bound: the candidate values the intersection check requires, where the models on
            ``followed`` do not say it (anatomy's models cover every sensitive attribute).
        parts: how many attributes a composite ``value`` holds (a JSON list; anatomy), or 0:
            each attribute's candidates are then counted apart, the fewest deciding.
        overlap: boxes are JSON lists of members (anatomy's): the difference check compares
            every earlier box with each new one sharing a member, not equal boxes only.
        links: ``(pid, cid, m)``: each real row's person, class and member text (as in its
            box), so that a member links two boxes only while its person's value and QI
            values stood (one who changed is known to, and read apart by, the adversary);
            ``None``: every shared member links.
        levels: per sensitive column, its default security level and the levels of named
            values (paper 002's L_sl-diversity, judged on each side of a difference).
        private: the classes publish no box a reader could link across versions (LGB's
            buckets, whose rows sit in many groups): the difference check compares each
            class with the previous version's groups of the people who stood in it, read
            from the private state (``private_*.sql.j2``), not the memory's boxes.
        models: the models the difference check applies, where not the release's (LGB: the
            bucket principle, not the groups' k).
        weight: the column of ``rows`` counting the rows each of its rows stands for, or
            ``None``: ``rows`` is one row per published row.
    """

    rows: str
    classes: str
    eq_class: str
    labels: list[str]
    attrs: list[str]
    followed: str | None = None
    people: str | None = None
    members: str | None = None
    groups: str | None = None
    bound: int | None = None
    parts: int = 0
    overlap: bool = False
    links: str | None = None
    levels: dict[str, tuple[int, dict]] | None = None
    private: bool = False
    models: tuple | None = None
    weight: str | None = None
