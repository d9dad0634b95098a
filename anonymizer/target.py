"""Where a release goes and what its versions promise together (:class:`Target`): the parts
of a spec the publishing step, the audit, the cross-version gate and the history commands
read. The spec (:mod:`anonymizer.spec`) parses them; a plan (:mod:`anonymizer.plan`) carries
its release's."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

#: export formats, and the file name endings that choose them when ``format`` is not given.
EXPORT_FORMATS = {"parquet": (".parquet", ".pq"), "csv": (".csv", ".csv.gz", ".csv.zst", ".tsv")}


@dataclass(frozen=True)
class Export:
    """A file the verified snapshot is copied to after publication (see :mod:`anonymizer.release.export`):
    ``path`` (a further table ``<part>`` of the release goes next to it as ``<stem>_<part><ext>``)
    and ``format``, ``parquet`` or ``csv``."""

    path: Path
    format: str


@dataclass(frozen=True)
class Output:
    """Where the release goes: ``schema.view`` points at ``snapshot_schema.<view>__v<N>``.

    ``database``: another DuckDB file to publish into (attached by the release, created if
    missing), so that raw and published data live apart; ``None``: the source's database.
    ``export``: a Parquet or CSV copy of the published snapshot, or ``None``.
    ``format`` and ``partition_by`` (Spark): the snapshots' table format (``USING parquet``,
    ``delta``, ...; ``None``: the session's default) and the published columns each snapshot
    is partitioned by (a snapshot by those of them it holds).
    ``catalog`` is not a spec field: the alias under which a running release attached
    ``database`` (``None``: the connection's default database); every name is qualified by it.
    """

    view: str
    schema: str = "published"
    snapshot_schema: str = "_anon_releases"
    database: Path | None = None
    export: Export | None = None
    catalog: str | None = None
    format: str | None = None
    partition_by: tuple[str, ...] = ()


#: ``history.guarantee``: what the release claims across its versions (:mod:`anonymizer.versions.combination`)
GUARANTEES = ("invariant", "independent")


@dataclass(frozen=True)
class History:
    """``history:`` of a spec: the guarantee across versions and the person key.

    ``invariant`` (the default): every version, read together with every earlier published
    version of the release, still meets the declared models (the cross-version gate), and
    the generalized family keeps each person's class signature (m-invariance, Xiao and Tao
    2007). ``independent``: each version is checked alone; the disclosure of the versions in
    combination is measured and recorded. ``person``: the identifier column naming the same
    person in every version (never published); ``None``: the gate checks only what the
    published versions show (class differences), not each person's intersection.

    The person key must stay the same person's across runs (:mod:`anonymizer.versions`): a
    version whose keys no longer match the people they matched is refused before any work.
    ``max_churn``: the largest share of the previous version's people whose key may be gone;
    ``max_rekeyed``: the largest share of them who may be found again, by their QI and
    sensitive values, under another key (beyond chance); ``key_map``: how old keys map to
    new ones, where the keys did change on purpose.
    """

    guarantee: str = "invariant"
    person: str | None = None
    max_churn: float = 0.5
    max_rekeyed: float = 0.1
    key_map: KeyMap | None = None


@dataclass(frozen=True)
class KeyMap:
    """``history.key_map``: a table of the connection's database (``schema.table`` or
    ``table``) mapping each person's old key (column ``old``) to their new one (``new``)."""

    table: str
    old: str
    new: str


@dataclass(frozen=True)
class Budget:
    """``budget:`` of a differentially private release (:mod:`anonymizer.dp.ledger`): the total
    ``epsilon`` and ``delta`` its account may spend until an audited refresh, the account
    (``recipient``, when the spec names who receives the release, else the release's name),
    and what one version ``spends``."""

    epsilon: float
    delta: float
    account: str
    spends: tuple[float, float]


@dataclass(frozen=True)
class Target:
    """Where a release's versions live and what they promise together: its name, its
    ``output``, its ``history`` and the views its family publishes besides the main one
    (``parts``). The publishing step, the audit, the cross-version gate and the history
    commands read this, never the rest of the spec."""

    release: str
    output: Output
    history: History = field(default_factory=History)
    parts: tuple[str, ...] = ()
    budget: Budget | None = None

    @property
    def view(self) -> str:
        """The main view, ``schema.view``."""
        return f"{self.output.schema}.{self.output.view}"


