"""What an identity-reserved algorithm (paper 004: DAnonyIR, GeneIR) hands to the publisher."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class IRResult:
    """The equivalence classes of an identity-reserved run.

    Attributes:
        assign: quoted work table ``(pid, cid)``: every individual that is not suppressed and
            its class (all records of an individual go to one class).
        levels: GeneIR only: quoted work table ``(cid, v0..v{d-1})``, the hierarchy level of
            each QI in the class; ``None`` for set generalization (DAnonyIR: the class's
            identity element is the interval / value set of its members, section 2.2).
        suppressed_individuals, suppressed_records: left out (Algorithm 7, line 15).
        classes: number of classes; rounds: algorithm steps; notes: figures for the summary.
    """

    assign: str
    levels: str | None
    suppressed_individuals: int
    suppressed_records: int
    classes: int
    rounds: int
    notes: dict = field(default_factory=dict)
