"""The validated spec's types: frozen dataclasses the release reads (see :mod:`.parse` for
the spec's fields and how each is checked)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from anonymizer import families
from anonymizer.engine.choice import EngineChoice
from anonymizer.engine.settings import Settings
from anonymizer.hierarchy.spec import Hierarchy
from anonymizer.target import Budget, History, Output, Target

if TYPE_CHECKING:
    from anonymizer.families.base import Family
    from anonymizer.models import PrivacyModel

ROLES = ("identifier", "quasi", "sensitive", "insensitive", "individual")
TYPES = ("numeric", "categorical")
#: the most threads ``engine.threads`` may ask DuckDB for
MAX_THREADS = 1024
NULL_POLICIES = ("error", "suppress")


def largest_k(models: tuple[PrivacyModel, ...]) -> int:
    """The largest k any model demands of the release's classes (1 if none does); k-map's k
    counts population rows, not the release's."""
    return max([getattr(m, "k", 1) for m in models if not m.needs_population] or [1])


@dataclass(frozen=True)
class Column:
    """One source column and its role. ``type`` is ``None`` until resolved from the table."""

    name: str
    role: str
    type: str | None = None
    hierarchy: Hierarchy | None = None
    order: tuple[str, ...] | None = None
    security: "Security | None" = None
    flag: str | None = None          # BOOLEAN column: TRUE where the value is sensitive (paper 000)
    domain: tuple[float, float] | None = None   # numeric QI's domain [L, U] when wider than the data


@dataclass(frozen=True)
class Security:
    """Security levels of a sensitive column's values (paper 002, Definitions 1 to 3):
    0 no, 1 low, 2 high sensitivity. ``default`` applies to every value not in ``values``.
    A sensitive column without ``security`` has every value at level 2 (the strictest)."""

    default: int = 2
    values: Mapping[str, int] = field(default_factory=dict)

    def level(self, value: str) -> int:
        return self.values.get(value, self.default)


@dataclass(frozen=True)
class Source:
    """Where the data is: an existing ``table`` (in ``schema``, of ``catalog``: a Spark catalog
    or an attached DuckDB database, by default the session's), or files loaded into
    ``table``: a local ``path`` (a file, or a folder of parts) or a ``uri`` only Spark reads
    (``s3a://``, ``hdfs://``, ...), in ``format`` (``csv``, ``parquet``, ``json``, ``orc``, or
    any the Spark session reads, ``delta`` among them; ``None``: from the name's ending, and
    Parquet for a folder) with Spark reader ``options``."""

    table: str
    schema: str | None = None
    catalog: str | None = None
    path: Path | None = None
    delimiter: str | None = None
    header: bool = True
    null_string: str | None = None
    uri: str | None = None
    format: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def location(self) -> str | None:
        """Where the files are (the local path or the URI), or ``None`` for a table."""
        return self.uri or (str(self.path) if self.path is not None else None)

    @property
    def reader(self) -> str:
        """The format the files are read in."""
        name = (self.location or "").rstrip("/").lower()
        endings = {"parquet": (".parquet", ".pq"), "csv": (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".gz"),
                   "json": (".json", ".jsonl", ".ndjson"), "orc": (".orc",)}
        return self.format or next((f for f, ends in endings.items() if name.endswith(ends)), "parquet")


@dataclass(frozen=True)
class Algorithm:
    """``algorithm:`` of a spec: the algorithm's ``name``, the ``options`` its family parses
    into its own frozen dataclass (``families/<family>/options.py``: ``Options``), and the
    ``seed``.

    ``seed`` (every algorithm): ``None`` (the default) draws every random choice of the
    release from a fresh secret key that is never stored; a whole number in [0, 2**63) makes
    the release reproducible, for tests and experiments, and is marked ``seeded`` in the
    audit; ``secret``: the key text of ``seed: {env: NAME}`` or ``{file: PATH}``, whose key
    the release draws from (``seed`` then a number derived from it, for the options that
    ask whether there is one), marked ``keyed`` (:mod:`anonymizer.spec.seed`,
    :mod:`anonymizer.randomness`).
    """

    name: str
    options: Any
    seed: int | None = None
    secret: str | None = field(default=None, repr=False, compare=False)

    @property
    def family(self) -> Family:
        """The family this algorithm belongs to (what it publishes, the models it accepts)."""
        return families.of(self.name)


@dataclass(frozen=True)
class ReleaseSpec:
    """A validated release spec."""

    release: str
    source: Source
    columns: tuple[Column, ...]
    models: tuple[PrivacyModel, ...]
    algorithm: Algorithm
    suppression_limit: float = 0.0
    nulls: str = "error"
    default_role: str | None = None
    output: Output = field(default_factory=lambda: Output("release"))
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    text: str | None = field(default=None, compare=False, repr=False)   # the YAML as written (None: a dict)
    engine: Settings = field(default_factory=Settings)
    backend: EngineChoice = field(default_factory=EngineChoice)   # which engine runs it (DuckDB by default)
    history: History = field(default_factory=History)
    budget: Budget | None = None        # a differentially private release's (anonymizer.dp.ledger)

    # -- views --------------------------------------------------------------------
    def by_role(self, role: str) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.role == role)

    @property
    def quasi(self) -> tuple[Column, ...]:
        return self.by_role("quasi")

    @property
    def sensitive(self) -> tuple[Column, ...]:
        return self.by_role("sensitive")

    @property
    def k(self) -> int:
        """The largest k any model demands (1 if none does)."""
        return largest_k(self.models)

    @property
    def target(self) -> Target:
        """Where the release's versions live (:class:`Target`)."""
        return Target(self.release, self.output, self.history, self.algorithm.family.parts, self.budget)

    def spec_hash(self) -> str:
        """A stable hash of the spec as written (key order does not matter). ``output.export``
        is left out: where a copy of the release goes does not change the release."""
        raw = {k: v for k, v in self.raw.items() if k != "engine"}   # resources, not the release
        if isinstance(raw.get("output"), Mapping) and "export" in raw["output"]:
            raw["output"] = {k: v for k, v in raw["output"].items() if k != "export"}
        text = json.dumps(raw, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]
