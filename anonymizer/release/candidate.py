"""The contract between the one pipeline and the families: the five steps a family implements
(:class:`FamilySteps`; :mod:`anonymizer.families` lists who implements them), the algorithm's
outcome (:class:`Rounds`) and the verified, measured candidate (:class:`Verified`) that the
publishing step publishes; and what the pipeline hands back, :class:`ReleaseResult`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from anonymizer.engine.backend import relation_frame
from anonymizer.release.publish import Join

if TYPE_CHECKING:
    from anonymizer.versions.combination import Combination
    from anonymizer.versions.continuation import Continuation
    from anonymizer.versions.released import Released
    from anonymizer.engine.session import Engine
    from anonymizer.plan import Plan

#: the family's algorithm result (``Rounds.result``), its candidate, and what its verify hands to measure
Result = TypeVar("Result")
Built = TypeVar("Built")
Checked = TypeVar("Checked")


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
    (:mod:`~anonymizer.versions.combination`), whose memory and state publishing keeps, or
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
    warnings: list[str] = field(default_factory=list)   # where it is weaker than its verdict (release/warnings.py)
    published_as: tuple[str, str] | None = None   # the view's (schema, name); None for a dry run

    def to_dict(self) -> dict:
        return asdict(self)

    def frame(self, con: Any = None) -> Any:
        """The published view as a DataFrame of ``con``, by default the connection or session
        :func:`anonymizer.anonymize` ran the release on: on Spark a PySpark DataFrame, lazy (no
        row reaches the driver before it is read); on DuckDB a relation (``.df()``: pandas).

        Raises:
            ValueError: a dry run (no view), or no ``con`` where the release was not run by
            :func:`anonymizer.anonymize` or went to ``output.database`` (detached after the
            run: give a connection to that file).
        """
        if self.published_as is None:
            raise ValueError(f"release {self.release} was a dry run: it published no view")
        con = con if con is not None else None if self.database is not None else getattr(self, "con", None)
        if con is None:
            raise ValueError(f"give the connection or SparkSession to read {self.view} from"
                             + (f" (a connection to {self.database})" if self.database is not None else ""))
        return relation_frame(con, *self.published_as)


class FamilySteps(ABC, Generic[Result, Built, Checked]):
    """The five steps of a family, which the one driver (:func:`anonymizer.release.run.verified`)
    runs in order; each family's ``steps`` module has one instance, ``STEPS``. Typed by what
    passes between them, so a type checker follows a release into every family."""

    #: the family's name in messages (``MSB``, ``LGB``)
    label: str = ""

    @abstractmethod
    def run(self, engine: Engine, plan: Plan, history: Continuation) -> Rounds[Result]:
        """The algorithm (the paper's rounds), continuing from ``history`` (what the pipeline
        read of the release's earlier versions); the driver then applies the suppression gate."""

    def refuse(self, engine: Engine, plan: Plan) -> None:
        """Refuse, before the algorithm starts (a DP run spends then), what the user's spec asks
        that the prepared plan cannot give: facts of the schema, never of the rows."""

    def check_versions(self, plan: Plan) -> None:
        """Refuse, before any work, what the family's signatures cannot keep across versions
        (called when the release keeps them)."""

    @abstractmethod
    def build(self, engine: Engine, plan: Plan, rounds: Rounds[Result]) -> Built:
        """The candidate table(s) and the published columns."""

    def repairable(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built) -> Released | None:
        """The candidate's class boxes as the difference check reads them, where its groups can
        be merged (an m-invariant version), for the driver's repair
        (:func:`anonymizer.versions.repair.repaired`); ``None`` (the default): nothing to repair."""
        return None

    def merge(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built, colliding: str,
              attempt: int) -> Built:
        """Merge the groups of the classes in ``colliding`` ``(eq_class)`` with their
        neighbours, keep the merged groups in ``rounds`` and build the candidate again (the
        old one dropped). Only called where :meth:`repairable` gave the boxes."""
        raise NotImplementedError(f"{self.label}: repairable() gave boxes but merge() is not defined")

    @abstractmethod
    def verify(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built) -> Checked:
        """Every declared model re-checked in SQL on the candidate."""

    @abstractmethod
    def released(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built,
                 checked: Checked) -> Released | None:
        """The candidate as the cross-version gate reads it (what the family publishes, its
        boxes, its people's groups), which the driver then runs; ``None``: the gate does not
        read this release (an engine or a release it does not cover). ``checked``: what
        :meth:`verify` counted, which the gate may read instead of the rows."""

    @abstractmethod
    def measure(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built, checked: Checked) -> Verified:
        """The privacy and utility figures: the candidate, ready to publish."""

    @abstractmethod
    def summary_lines(self, r: ReleaseResult) -> list[str]:
        """What the release summary adds for this family."""
