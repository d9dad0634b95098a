"""What the families hand to the one pipeline (:mod:`anonymizer.families` names the steps):
the algorithm's outcome (:class:`Rounds`) and the verified, measured candidate
(:class:`Verified`) that the publishing step publishes; and what the pipeline hands back,
:class:`ReleaseResult`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Generic, TypeVar

from anonymizer.release.combination import Combination
from anonymizer.release.publish import Join


#: the family's algorithm result
Result = TypeVar("Result")


@dataclass
class Rounds(Generic[Result]):
    """A family's algorithm run: its own result, and what the driver reads of it.

    Attributes:
        result: the algorithm's result (the family's type; only its steps read it).
        suppressed: source rows the algorithm left out (the gate adds the NULL-suppressed ones).
        what: one line for the progress output (``1,770 classes``).
    """

    result: Result
    suppressed: int
    what: str


@dataclass
class Verified:
    """A family's candidate after the gate: verified and measured, ready for the one
    publishing step, which publishes it or, in a dry run, only reports it.

    ``table``, ``columns``, ``order``, ``parts`` and ``join`` are
    :func:`~anonymizer.release.publish.publish`'s arguments; ``figures`` are audit figures
    beyond the models and the utility; ``combination`` is the cross-version gate's outcome
    (:mod:`~anonymizer.release.combination`), whose memory and state publishing keeps, or
    ``None`` for a family without the gate."""

    table: str
    columns: list[str]
    order: tuple[str, ...]
    rows: int
    suppressed: int
    classes: int
    checks: list[dict]
    measures: dict
    utility: dict
    algorithm: dict
    parts: tuple[tuple[str, str, list[str]], ...] = ()
    join: Join | None = None
    figures: dict = field(default_factory=dict)
    combination: Combination | None = None
    #: the rows the audit says came in, where not the source's (an m-invariant identity-reserved
    #: version: two versions' record counts would give away the records of who left)
    audit_rows_in: int | None = None


@dataclass
class ReleaseResult:
    """What a release did: where it went and every figure measured on it."""

    release: str
    version: int | None   # None for a dry run
    view: str
    snapshot: str | None  # None for a dry run
    unchanged: bool
    rows_in: int
    rows_out: int
    suppressed: int
    classes: int
    models: list[dict] = field(default_factory=list)
    measures: dict = field(default_factory=dict)
    utility: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    algorithm: dict = field(default_factory=dict)
    views: list[str] = field(default_factory=list)   # further views of the release (anatomy's sensitive table)
    database: str | None = None   # the output.database file the views are in (None: the source's database)
    exports: list[str] = field(default_factory=list)   # files the published snapshot was exported to
    dry_run: bool = False   # verified and measured, nothing published

    def to_dict(self) -> dict:
        return asdict(self)
