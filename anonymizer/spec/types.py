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
from anonymizer.engine.session import Settings
from anonymizer.hierarchy.spec import Hierarchy

if TYPE_CHECKING:
    from anonymizer.families.base import Family
    from anonymizer.models import PrivacyModel

ROLES = ("identifier", "quasi", "sensitive", "insensitive", "individual")
TYPES = ("numeric", "categorical")
RENUMBER = ("random", "appearance")
SPLITS = ("median", "loss")
LABELS = ("hierarchy", "values")
#: the most threads ``engine.threads`` may ask DuckDB for
MAX_THREADS = 1024
SCORINGS = ("basic", "eta", "log")
#: PrivacyFrost2's tie-break of equal scores (paper 003; :mod:`anonymizer.families.generalized.lattice.scoring`)
TIE_BREAKS = ("none", "basic")
NULL_POLICIES = ("error", "suppress")


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
    """Where the data is: an existing ``table`` (in ``schema``), or a CSV/Parquet ``path``
    loaded into ``table``."""

    table: str
    schema: str | None = None
    path: Path | None = None
    delimiter: str | None = None
    header: bool = True
    null_string: str | None = None


@dataclass(frozen=True)
class Algorithm:
    """The algorithm and its options.

    ``relaxed``: Mondrian's relaxed partitioning. ``labels`` (Mondrian): ``hierarchy`` (the
    default) labels a class on a QI with a declared hierarchy by the lowest node covering it,
    and cuts along the hierarchy's nodes; ``values`` publishes the class's own range or value
    set on every QI (finer, but no node of the user's hierarchy; the hierarchy then only
    orders the values). ``levels``: full-domain's level vector.
    PrivacyFrost2 (paper 003) reads ``priorities`` (v per QI, default 1), ``min_level``
    (w^M per QI, counted from the root '*' = 0 as the paper does), ``scoring`` (basic,
    eta, log), ``d`` (eta's constant), ``p`` (the system parameter of pre-computation),
    ``presample`` (``{levels: {qi: u}, k: k'}``, thresholds counted from the root) and
    ``partial`` (partial-domain de-generalization) and ``tie_break`` (``none``, the paper: a
    search step needs a strictly higher score, so eta and log scoring can stop on a flat step
    at the fully generalized table; ``basic``: equal scores are compared by the basic score).
    Pre-sampled rows are left out and counted as suppressed, but not against
    ``suppression_limit``, which bounds the search's own suppression (0: none, as in the
    paper). The optimal search reads ``min_level``.
    The MSB algorithms of paper 002 read ``batch`` (``"exact"`` or a fraction; see
    :mod:`anonymizer.families.anatomy.greedy`). LGB_NCP (paper 000) reads ``balance`` (a half
    short of k rows borrows cells as Xu et al.'s top-down does; false: the set becomes one
    group, Algorithm 4 lines 18-20 read literally).

    ``seed`` (every algorithm): ``None`` (the default) draws every random choice of the
    release from a fresh secret key that is never stored; a whole number in [0, 2**63) makes
    the release reproducible, for tests and experiments, and is marked ``seeded`` in the
    audit (see :mod:`anonymizer.randomness`). The MSB algorithms also order ties between
    sensitive vectors by it (a keyed hash of the vector; without a seed, the vectors' sort
    order, as in the paper's examples).
    """

    name: str
    relaxed: bool = False
    levels: Mapping[str, int] = field(default_factory=dict)
    priorities: Mapping[str, float] = field(default_factory=dict)
    min_level: Mapping[str, int] = field(default_factory=dict)
    scoring: str = "basic"
    d: float = 0.0
    p: int = 0
    presample: Mapping[str, Any] | None = None
    partial: bool = False
    seed: int | None = None
    batch: str | float = 0.2
    balance: bool = True
    renumber: str = "random"
    labels: str = "hierarchy"
    tie_break: str = "none"
    split: str = "median"

    @property
    def family(self) -> Family:
        """The family this algorithm belongs to (what it publishes, the models it accepts)."""
        return families.of(self.name)


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
    ``catalog`` is not a spec field: the alias under which a running release attached
    ``database`` (``None``: the connection's default database); every name is qualified by it.
    """

    view: str
    schema: str = "published"
    snapshot_schema: str = "_anon_releases"
    database: Path | None = None
    export: Export | None = None
    catalog: str | None = None


#: ``history.guarantee``: what the release claims across its versions (:mod:`anonymizer.release.combination`)
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
    """

    guarantee: str = "invariant"
    person: str | None = None


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
        return max([getattr(m, "k", 1) for m in self.models] or [1])

    def spec_hash(self) -> str:
        """A stable hash of the spec as written (key order does not matter). ``output.export``
        is left out: where a copy of the release goes does not change the release."""
        raw = {k: v for k, v in self.raw.items() if k != "engine"}   # resources, not the release
        if isinstance(raw.get("output"), Mapping) and "export" in raw["output"]:
            raw["output"] = {k: v for k, v in raw["output"].items() if k != "export"}
        text = json.dumps(raw, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]
