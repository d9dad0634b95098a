"""The release spec: what to anonymize, how, and where to publish it.

A spec is a YAML file or a dict, validated completely before the first query. Errors name
the field (``columns.age.role``) and the value. A spec looks like::

    release: adult_k5
    source: {table: adult}            # or {path: adult.csv, table: adult, delimiter: ';'}
    columns:
      age: {role: quasi, type: numeric, hierarchy: {intervals: [5, 10, 20]}}
      education: {role: quasi, hierarchy: {csv: hierarchies/education.csv}}
      sex: {role: quasi, order: [Female, Male]}
      occupation: {role: sensitive}
      fnlwgt: {role: identifier}      # dropped
      salary: {role: insensitive}     # passed through
      zip: {role: quasi, flag: zip_private}   # per-cell sensitivity (LGB, paper 000)
    models:
      - {type: k-anonymity, k: 5}
      - {type: distinct-l-diversity, l: 2, sensitive: occupation}
    algorithm: {name: mondrian}       # or {name: full-domain, levels: {age: 1}}
    suppression_limit: 0.0            # fraction of rows that may be suppressed
    nulls: error                      # or suppress: rows with a NULL QI are suppressed
    output: {view: adult, schema: published}
    # or, publishing into another DuckDB file (the source's database is then only read)
    # and copying the verified snapshot to Parquet (or CSV) after publication:
    # output: {view: adult, database: published.duckdb, export: {path: out/adult.parquet}}

Every source column needs a role, unless ``default_role`` says what unlisted columns are.

Resources (optional): ``engine: {memory_limit: 8GB, threads: 2, temp_directory: spill/}``
bounds DuckDB's memory for the run (beyond it DuckDB spills to ``temp_directory``; relative
to the spec's folder; ``anonymizer run --memory-limit`` wins over it) and sets its threads.
They change how a release runs, never what it publishes: they are not part of its hash.

Personalized privacy (paper 000, LGB): a quasi column may name a ``flag``, a BOOLEAN column
of the source that is TRUE in the rows whose value on it is sensitive for that person. The
flag column needs no role of its own and is never published. An attribute is then a QI
attribute (no flag set), semi-sensitive (some) or sensitive (all), Definitions 1 to 3; a
column with role ``sensitive`` is sensitive in every row. Algorithms ``lgb-mdp`` and
``lgb-ncp`` read the flags, with models ``k-anonymity`` (local equivalence groups) and one
bucket principle per attribute holding sensitive values: ``l-unique`` (Corollary 2) or
``t-closeness`` (EMD, as the paper uses for sex).

Individuals with several records (paper 004): the column naming the person takes role
``individual`` (it is renumbered to Id_num and never published; every record of a person
must carry the same QI values). Algorithms ``danonyir`` and ``geneir`` (options ``seed``,
``renumber: random | appearance``) take one sensitive column and exactly one model among
``ir-k-anonymity``, ``ir-kl-anonymity``, ``ir-alpha-beta-anonymity`` (Definition 2.3),
``eir-l-diversity`` (Definition 3.3) and ``eir-alpha-beta-anonymity`` (Definition 3.4). A
numeric QI may declare ``domain: [L, U]`` when its domain is wider than the values present
(the losses of Eqs. 3 and 11 divide by U - L).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from anonymizer.engine.session import Settings
from anonymizer.errors import SpecError
from anonymizer.hierarchy.spec import Hierarchy, check_role, parse_hierarchy
from anonymizer.models import KAnonymity, PrivacyModel, TCloseness, build_model
from anonymizer.numbers import is_number, number
from anonymizer.randomness import SEED_LIMIT

ROLES = ("identifier", "quasi", "sensitive", "insensitive", "individual")
TYPES = ("numeric", "categorical")
#: MSB greedy algorithms of paper 002 (anatomy output): the baselines and their MSLF variants.
MSB_ALGORITHMS = ("mbf", "msdcf", "mmdcf", "mbf-mslf", "msdcf-mslf", "mmdcf-mslf")
#: LGB algorithms of paper 000 (per-cell sensitivity, the LGB table of Fig. 2).
LGB_ALGORITHMS = ("lgb-mdp", "lgb-ncp")
#: identity-reserved algorithms of paper 004 (individuals with several records, Table 4's form).
IR_ALGORITHMS = ("danonyir", "geneir")
ALGORITHMS = ("mondrian", "full-domain", "privacyfrost2", "optimal") + MSB_ALGORITHMS + LGB_ALGORITHMS + IR_ALGORITHMS
RENUMBER = ("random", "appearance")
LABELS = ("hierarchy", "values")
#: the most threads ``engine.threads`` may ask DuckDB for
MAX_THREADS = 1024
SCORINGS = ("basic", "eta", "log")
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
    ``partial`` (partial-domain de-generalization). The optimal search reads ``min_level``.
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

    @property
    def anatomy(self) -> bool:
        """Whether the algorithm publishes anatomy tables (paper 002's MSB family)."""
        return self.name in MSB_ALGORITHMS

    @property
    def lgb(self) -> bool:
        """Whether the algorithm publishes paper 000's LGB table (per-cell sensitivity)."""
        return self.name in LGB_ALGORITHMS

    @property
    def identity_reserved(self) -> bool:
        """Whether the algorithm publishes paper 004's identity-reserved table (Table 4)."""
        return self.name in IR_ALGORITHMS


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
    engine: Settings = field(default_factory=Settings)

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


# -- parsing ---------------------------------------------------------------------
class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that rejects a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise SpecError(f"line {key_node.start_mark.line + 1}", f"key {key!r} is given twice")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_spec(source: str | Path | Mapping[str, Any], base_dir: str | Path | None = None) -> ReleaseSpec:
    """Read and validate a spec from a YAML file path, YAML text, or a dict.

    Relative paths inside the spec resolve against the spec file's folder (or
    ``base_dir``, or the working directory for dicts).

    Example:
        >>> s = load_spec({"release": "r", "source": {"table": "t"},
        ...     "columns": {"a": {"role": "quasi"}}, "models": [{"type": "k-anonymity", "k": 2}]})
        >>> s.algorithm.name, s.output.view, str(s.models[0])
        ('mondrian', 'r', '2-anonymity')
    """
    if isinstance(source, Mapping):
        data, base = dict(source), Path(base_dir or ".")
    else:
        text, base = _read_text(source, base_dir)
        try:
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"
            raise SpecError(where, f"malformed YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise SpecError("spec", "must be a mapping of fields (release, source, columns, models, ...)", data)
    return parse_spec(data, base)


def _read_text(source: str | Path, base_dir) -> tuple[str, Path]:
    path = Path(source)
    if isinstance(source, Path) or (len(str(source)) < 4096 and "\n" not in str(source)):
        if not path.is_file():
            raise SpecError("spec", "no such file", str(source))
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = path.read_bytes()[:exc.start].count(b"\n") + 1
            raise SpecError(str(source), f"is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line {line}); "
                                         "save the spec as UTF-8") from None
        except OSError as exc:
            raise SpecError(str(source), f"cannot be read: {exc.strerror or exc}") from None
        return text, Path(base_dir or path.parent)
    return str(source), Path(base_dir or ".")


_TOP = {"release", "source", "columns", "models", "algorithm", "suppression_limit", "nulls",
        "default_role", "output", "description", "engine"}


def parse_spec(data: dict, base: Path) -> ReleaseSpec:
    """Validate a spec dict (see the module docstring) and return a :class:`ReleaseSpec`."""
    unknown = set(data) - _TOP
    if unknown:
        raise SpecError(sorted(unknown)[0], f"is not a spec field (fields: {', '.join(sorted(_TOP))})")
    release = _name(data.get("release"), "release")
    columns = _columns(data.get("columns"), base)
    default_role = data.get("default_role")
    if default_role is not None and default_role not in ROLES:
        raise SpecError("default_role", f"must be one of {', '.join(ROLES)}", default_role)
    if not any(c.role == "quasi" for c in columns):
        raise SpecError("columns", "at least one column must have role 'quasi'")
    models = _models(data.get("models"), columns)
    suppression = data.get("suppression_limit", 0.0)
    number(suppression, "suppression_limit", 0, 1, what="a fraction of rows between 0 and 1")
    nulls = data.get("nulls", "error")
    if nulls not in NULL_POLICIES:
        raise SpecError("nulls", f"must be one of {', '.join(NULL_POLICIES)}", nulls)
    algorithm = _algorithm(data.get("algorithm", {"name": "mondrian"}), columns)
    _pair(algorithm, models)
    _pair_lgb(algorithm, models, columns)
    _pair_ir(algorithm, models, columns)
    return ReleaseSpec(
        release=release,
        source=_source(data.get("source"), base, release),
        columns=columns,
        models=models,
        algorithm=algorithm,
        suppression_limit=float(suppression),
        nulls=nulls,
        default_role=default_role,
        output=_output(data.get("output", {}), release, base),
        raw=data,
        engine=_engine(data.get("engine", {}), base),
    )


_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib|k|m|g|t|%)\s*", re.IGNORECASE)


def memory_limit(value: Any, where: str = "engine.memory_limit") -> str:
    """A DuckDB memory limit (``8GB``, ``512MB``, ``1.5GiB``, ``50%`` of the machine's memory),
    checked: a positive size with its unit. Returns it as given, trimmed.

    Example:
        >>> memory_limit("8GB"), memory_limit(" 50% ")
        ('8GB', '50%')
    """
    found = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if found is None or float(found.group(1)) <= 0 or (found.group(2) == "%" and float(found.group(1)) > 100):
        raise SpecError(where, "must be a memory size with its unit, such as 8GB, 512MB, 1.5GiB, or a share of "
                               "the machine's memory such as 50%", value)
    return value.strip()


def _engine(value: Any, base: Path) -> Settings:
    """``engine: {memory_limit, threads, temp_directory}``: DuckDB's resources for the run."""
    v = _mapping(value if value is not None else {}, "engine", {"memory_limit", "threads", "temp_directory"})
    limit = memory_limit(v["memory_limit"]) if "memory_limit" in v else None
    threads = v.get("threads")
    if threads is not None:
        number(threads, "engine.threads", 1, MAX_THREADS, whole=True,   # DuckDB would try to start them all
               what=f"a whole number of threads from 1 to {MAX_THREADS}")
    temp = v.get("temp_directory")
    if temp is not None:
        if not isinstance(temp, str) or not temp.strip():
            raise SpecError("engine.temp_directory", "must be a directory path", temp)
        path = Path(temp)
        temp = str(path if path.is_absolute() else base / path)
    return Settings(limit, None if threads is None else int(threads), temp)


def _pair(algorithm: Algorithm, models: tuple[PrivacyModel, ...]) -> None:
    """The MSB algorithms (anatomy output) go with exactly the models over several sensitive
    attributes (paper 002), and those models with nothing else."""
    multi = any(m.multi_attribute for m in models)
    if algorithm.anatomy and not multi:
        raise SpecError("models", f"{algorithm.name} needs a model over all sensitive attributes: "
                                  "lsl-diversity or multi-l-diversity (paper 002)")
    if multi and not algorithm.anatomy:
        raise SpecError("algorithm.name", "lsl-diversity and multi-l-diversity are reached by the MSB algorithms: "
                                          f"{', '.join(MSB_ALGORITHMS)}", algorithm.name)


def _pair_lgb(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """The LGB algorithms (paper 000) take one k-anonymity and bucket principles (l-unique,
    t-closeness) for the attributes holding sensitive values; flags and l-unique go with
    them only."""
    flagged = [c.name for c in columns if c.flag]
    if not algorithm.lgb:
        if flagged:
            raise SpecError(f"columns.{flagged[0]}.flag", "per-cell flags are read by the LGB algorithms "
                                                          f"({', '.join(LGB_ALGORITHMS)}), not by {algorithm.name}")
        for i, m in enumerate(models):
            if m.bucket:
                raise SpecError(f"models[{i}]", f"l-unique protects local buckets: use it with "
                                                f"{' or '.join(LGB_ALGORITHMS)}")
        return
    ks = [i for i, m in enumerate(models) if m.sensitive is None and not m.bucket]
    if len(ks) != 1 or not isinstance(models[ks[0]], KAnonymity):
        raise SpecError("models", f"{algorithm.name} needs exactly one k-anonymity (for the local equivalence "
                                  "groups) besides its bucket principles")
    protected = {c.name for c in columns if c.flag or c.role == "sensitive"}
    named: set[str] = set()
    for i, m in enumerate(models):
        if i in ks:
            continue
        if not (m.bucket or isinstance(m, TCloseness)):
            raise SpecError(f"models[{i}]", f"{algorithm.name} protects local buckets with l-unique or "
                                            f"t-closeness (paper 000, section 4), not {m}")
        if m.sensitive is not None:
            if m.sensitive not in protected:
                raise SpecError(f"models[{i}].sensitive", "must name a column with role 'sensitive' or a flag",
                                m.sensitive)
            if m.sensitive in named:
                raise SpecError(f"models[{i}].sensitive", "has two bucket principles; give one", m.sensitive)
            named.add(m.sensitive)
    defaults = [i for i, m in enumerate(models) if m.bucket and m.sensitive is None]
    if len(defaults) > 1:
        raise SpecError(f"models[{defaults[1]}]", "only one l-unique may leave out 'sensitive' (the default)")
    bare = sorted(protected - named)
    if bare and not defaults:
        raise SpecError("models", f"attribute {bare[0]!r} holds sensitive values but no bucket principle "
                                  "protects it: add {type: l-unique, l: ...}")
    if not protected:
        raise SpecError("columns", f"{algorithm.name} needs sensitive values: give a quasi column a 'flag' "
                                   "or a column the role 'sensitive'")


def _pair_ir(algorithm: Algorithm, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """Paper 004: an identity-reserved algorithm (DAnonyIR, GeneIR) takes one column with role
    ``individual``, one sensitive column, and exactly one IR or EIR model; those models and the
    individual role go with these algorithms only."""
    individual = [c.name for c in columns if c.role == "individual"]
    ir_models = [i for i, m in enumerate(models) if getattr(m, "identity_reserved", False)]
    if not algorithm.identity_reserved:
        if ir_models:
            raise SpecError(f"models[{ir_models[0]}]", "identity-reserved models are reached by "
                                                       f"{' or '.join(IR_ALGORITHMS)} (paper 004)")
        if individual:
            raise SpecError(f"columns.{individual[0]}.role", "role 'individual' is read by the identity-reserved "
                                                             f"algorithms ({', '.join(IR_ALGORITHMS)}), not by "
                                                             f"{algorithm.name}")
        return
    if not individual:
        raise SpecError("columns", f"{algorithm.name} needs the column that identifies individuals: give it "
                                   "role 'individual' (it is renumbered, never published)")
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    if len(sensitive) != 1:
        raise SpecError("columns", f"{algorithm.name} protects exactly one sensitive column (paper 004, section 2.1); "
                                   f"found {len(sensitive)}")
    others = [i for i in range(len(models)) if i not in ir_models]
    if others or len(ir_models) != 1:
        where = f"models[{others[0]}]" if others else "models"
        raise SpecError(where, f"{algorithm.name} takes exactly one identity-reserved model: ir-k-anonymity, "
                               "ir-kl-anonymity, ir-alpha-beta-anonymity, eir-l-diversity or eir-alpha-beta-anonymity")
    if any(c.flag for c in columns):
        raise SpecError("columns", f"{algorithm.name} does not read per-cell flags")


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError(where, "must be a non-empty name", value)
    if len(value) > 120:
        raise SpecError(where, "must be at most 120 characters", value)
    return value


def _mapping(value: Any, where: str, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise SpecError(where, "must be a mapping", value)
    extra = set(value) - keys
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", f"is not an option here (options: {', '.join(sorted(keys))})")
    return value


def _source(value: Any, base: Path, release: str) -> Source:
    if isinstance(value, str):
        value = {"table": value}
    v = _mapping(value, "source", {"table", "schema", "path", "delimiter", "header", "null_string"})
    if "path" in v:
        path = Path(str(v["path"]))
        path = path if path.is_absolute() else base / path
        if path.suffix.lower() not in (".csv", ".parquet", ".gz", ".tsv"):
            raise SpecError("source.path", "must be a .csv, .tsv, .csv.gz or .parquet file", str(v["path"]))
        if not path.is_file():
            raise SpecError("source.path", "no such file", str(path))
        return Source(table=_name(v.get("table", release), "source.table"), schema=v.get("schema"), path=path,
                      delimiter=v.get("delimiter"), header=bool(v.get("header", True)),
                      null_string=v.get("null_string"))
    if "table" not in v:
        raise SpecError("source", "needs a 'table' (or a 'path' to a CSV/Parquet file)")
    schema = v.get("schema")
    if schema is not None:
        _name(schema, "source.schema")
    return Source(table=_name(v["table"], "source.table"), schema=schema)


def _columns(value: Any, base: Path) -> tuple[Column, ...]:
    if not isinstance(value, dict) or not value:
        raise SpecError("columns", "must map each column name to its role", value)
    seen: dict[str, str] = {}
    out = []
    for name, entry in value.items():
        where = f"columns.{name}"
        name = _name(name, "columns")
        if name.lower() in seen:
            raise SpecError(where, f"duplicates column {seen[name.lower()]!r} (names are case-insensitive)")
        seen[name.lower()] = name
        if isinstance(entry, str):
            entry = {"role": entry}
        e = _mapping(entry, where, {"role", "type", "hierarchy", "order", "security", "flag", "domain"})
        role = e.get("role")
        if role not in ROLES:
            raise SpecError(f"{where}.role", f"must be one of {', '.join(ROLES)}", role)
        ctype = e.get("type")
        if ctype is not None and ctype not in TYPES:
            raise SpecError(f"{where}.type", f"must be one of {', '.join(TYPES)}", ctype)
        order = e.get("order")
        if order is not None:
            if not isinstance(order, list) or not order or len(set(map(str, order))) != len(order):
                raise SpecError(f"{where}.order", "must be a list of distinct values", order)
            order = tuple(str(o) for o in order)
        hierarchy = parse_hierarchy(e.get("hierarchy"), f"{where}.hierarchy", base) if "hierarchy" in e else None
        if order and role != "quasi":
            raise SpecError(f"{where}.order", "only quasi-identifiers take an order")
        if order and hierarchy:
            raise SpecError(f"{where}.order", "is implied by the hierarchy; give one or the other")
        if hierarchy:
            check_role(hierarchy, f"{where}.hierarchy", role, ctype)
        security = _security(e["security"], f"{where}.security", role) if "security" in e else None
        flag = _flag_column(e["flag"], f"{where}.flag", role) if "flag" in e else None
        domain = _domain(e["domain"], f"{where}.domain", role, ctype) if "domain" in e else None
        out.append(Column(name, role, ctype, hierarchy, order, security, flag, domain))
    flags = {c.flag.lower(): c.name for c in out if c.flag}
    for c in out:
        if c.name.lower() in flags:
            raise SpecError(f"columns.{c.name}", f"is the flag of {flags[c.name.lower()]!r}: a flag column takes "
                                                 "no role of its own")
    if len(flags) < sum(1 for c in out if c.flag):
        raise SpecError("columns", "two columns name the same flag column")
    individuals = [c.name for c in out if c.role == "individual"]
    if len(individuals) > 1:
        raise SpecError(f"columns.{individuals[1]}.role", f"only one column identifies individuals "
                                                          f"({individuals[0]!r} already does)")
    return tuple(out)


def _domain(value: Any, where: str, role: str, ctype: str | None) -> tuple[float, float]:
    """``domain: [L, U]``: a numeric QI's domain when it is wider than the values present (paper
    004's running example takes Age in [30, 39]); normalizes losses (Eq. 11) and NCP."""
    if role != "quasi" or ctype == "categorical":
        raise SpecError(where, "only numeric quasi columns take a domain [low, high]")
    if (not isinstance(value, list) or len(value) != 2
            or not all(is_number(x) for x in value) or value[0] > value[1]):
        raise SpecError(where, "must be [low, high], two numbers with low <= high", value)
    return float(value[0]), float(value[1])


def _flag_column(value: Any, where: str, role: str) -> str:
    """``flag: <column>``: per-cell sensitivity of a quasi column (paper 000, Definitions 1 to 3)."""
    if role != "quasi":
        raise SpecError(where, "only quasi columns take a flag (a 'sensitive' column is sensitive in every row)")
    return _name(value, where)


def _security(value: Any, where: str, role: str) -> Security:
    """``security: 1`` or ``security: {default: 1, values: {Flu: 0, HIV: 2}}`` (paper 002, section 3)."""
    if role != "sensitive":
        raise SpecError(where, "only sensitive columns have security levels")
    if not isinstance(value, dict):
        value = {"default": value}
    v = _mapping(value, where, {"default", "values"})
    default = _level(v.get("default", 2), f"{where}.default")
    values = v.get("values", {})
    if not isinstance(values, dict):
        raise SpecError(f"{where}.values", "must map sensitive values to levels 0, 1 or 2", values)
    return Security(default, {str(k): _level(x, f"{where}.values.{k}") for k, x in values.items()})


def _level(value: Any, where: str) -> int:
    if isinstance(value, bool) or value not in (0, 1, 2):
        raise SpecError(where, "must be a security level: 0 (none), 1 (low) or 2 (high)", value)
    return int(value)


def _models(value: Any, columns: tuple[Column, ...]) -> tuple[PrivacyModel, ...]:
    if not isinstance(value, list) or not value:
        raise SpecError("models", "must be a non-empty list of privacy models", value)
    models = tuple(build_model(entry, f"models[{i}]") for i, entry in enumerate(value))
    multi = [i for i, m in enumerate(models) if m.multi_attribute]
    if multi and len(models) > 1:
        raise SpecError(f"models[{multi[0]}]", "a model over several sensitive attributes is the only model of "
                                               "an anatomy release (paper 002); give it alone")
    if multi and not any(c.role == "sensitive" for c in columns):
        raise SpecError(f"models[{multi[0]}]", "needs at least one column with role 'sensitive'")
    by_name = {c.name: c for c in columns}
    for i, m in enumerate(models):
        if m.sensitive is None or (by_name.get(m.sensitive) and by_name[m.sensitive].flag):
            continue
        col = by_name.get(m.sensitive)
        if col is None or col.role != "sensitive":
            raise SpecError(f"models[{i}].sensitive", "must name a column with role 'sensitive' or a flag", m.sensitive)
        if getattr(m, "distance", None) == "hierarchical" and (col.hierarchy is None or col.hierarchy.kind != "csv"):
            raise SpecError(f"models[{i}].distance", f"hierarchical needs a hierarchy file on column {col.name!r}")
    return models


def _algorithm(value: Any, columns: tuple[Column, ...]) -> Algorithm:
    if isinstance(value, str):
        value = {"name": value}
    v = _mapping(value, "algorithm", {"name", "relaxed", "levels", "priorities", "min_level", "scoring", "d", "p",
                                      "presample", "partial", "seed", "batch", "balance", "renumber", "labels"})
    name = str(v.get("name", "mondrian")).replace("_", "-")
    if name not in ALGORITHMS:
        raise SpecError("algorithm.name", f"must be one of {', '.join(ALGORITHMS)}", v.get("name"))
    allowed = {"seed"} | {"mondrian": {"relaxed", "labels"}, "full-domain": {"levels"}, "optimal": {"min_level"},
                          "privacyfrost2": {"priorities", "min_level", "scoring", "d", "p", "presample", "partial"},
                          **{a: {"batch"} for a in MSB_ALGORITHMS}, "lgb-mdp": set(), "lgb-ncp": {"balance"},
                          **{a: {"renumber"} for a in IR_ALGORITHMS}}[name]
    for key in sorted(set(v) - {"name"} - allowed):
        raise SpecError(f"algorithm.{key}", f"does not apply to {name} (its options: {', '.join(sorted(allowed))})")
    relaxed = _flag(v, "relaxed")
    quasi = {c.name for c in columns if c.role == "quasi"}
    levels = _per_qi(v.get("levels", {}), "algorithm.levels", quasi, int, "a whole number >= 0")
    if name == "full-domain":
        for q in quasi:
            if q not in levels:
                raise SpecError(f"algorithm.levels.{q}", "is required for full-domain generalization")
    priorities = _per_qi(v.get("priorities", {}), "algorithm.priorities", quasi, (int, float), "a positive number")
    if any(x <= 0 for x in priorities.values()):
        raise SpecError("algorithm.priorities", "must be positive numbers (v of paper 003, section 3)", priorities)
    min_level = _per_qi(v.get("min_level", {}), "algorithm.min_level", quasi, int, "a whole number >= 0")
    scoring = v.get("scoring", "basic")
    if scoring not in SCORINGS:
        raise SpecError("algorithm.scoring", f"must be one of {', '.join(SCORINGS)}", scoring)
    d = v.get("d")
    if scoring == "eta":
        number(d, "algorithm.d", 0, low_open=True,
               what="a positive finite number (eta scoring's d, paper 003, section 6.2)")
    if scoring != "eta" and d is not None:
        raise SpecError("algorithm.d", "only applies to eta scoring")
    p = v.get("p", 0)
    number(p, "algorithm.p", 0, whole=True, what="a whole number >= 0")
    seed = v.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT):
        raise SpecError("algorithm.seed", "must be a whole number in [0, 2**63) for a reproducible (seeded) release, "
                                          "or left out for a secret one", seed)
    batch = v.get("batch", 0.2)
    if batch != "exact":
        number(batch, "algorithm.batch", 0, 1, low_open=True, what="'exact' or a fraction in (0, 1]")
    renumber = v.get("renumber", "random")
    if renumber not in RENUMBER:
        raise SpecError("algorithm.renumber", f"must be one of {', '.join(RENUMBER)} (how Id_num is assigned)", renumber)
    if renumber == "appearance" and seed is None:
        raise SpecError("algorithm.renumber", "appearance numbers individuals in the source's row order, which links "
                                              "Id_num to the source: it reproduces the paper's examples and needs a "
                                              "seed (a reproducible run); a release to share keeps 'random'", renumber)
    labels = v.get("labels", "hierarchy")
    if labels not in LABELS:
        raise SpecError("algorithm.labels", f"must be one of {', '.join(LABELS)} (how Mondrian labels a class on a "
                                            "QI with a hierarchy)", labels)
    return Algorithm(name, relaxed, levels, priorities, min_level, scoring, float(d or 0.0), p,
                     _presample(v.get("presample"), quasi), _flag(v, "partial"), seed,
                     batch if batch == "exact" else float(batch), _flag(v, "balance", True), renumber, labels)


def _flag(v: dict, key: str, default: bool = False) -> bool:
    value = v.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"algorithm.{key}", "must be true or false", value)
    return value


def _per_qi(value: Any, where: str, quasi: set[str], kind, what: str) -> dict:
    """A mapping from quasi-identifier names to numbers of ``kind`` (>= 0)."""
    if not isinstance(value, dict):
        raise SpecError(where, "must map quasi-identifiers to values", value)
    for q, x in value.items():
        if q not in quasi:
            raise SpecError(f"{where}.{q}", "is not a quasi-identifier")
        if not isinstance(x, kind):
            raise SpecError(f"{where}.{q}", f"must be {what}", x)
        number(x, f"{where}.{q}", 0, whole=kind is int, what=what)
    return dict(value)


def _presample(value: Any, quasi: set[str]) -> dict | None:
    """PrivacyFrost2's pre-sampling (paper 003, section 5.1): threshold levels u and k'."""
    if value is None:
        return None
    v = _mapping(value, "algorithm.presample", {"levels", "k"})
    k = v.get("k")
    number(k, "algorithm.presample.k", 1, whole=True, what="a whole number >= 1 (k' of paper 003, section 5.1)")
    levels = v.get("levels", {})
    if isinstance(levels, int) and not isinstance(levels, bool):
        levels = {q: levels for q in quasi}
    return {"levels": _per_qi(levels, "algorithm.presample.levels", quasi, int, "a whole number >= 0"), "k": k}


def _output(value: Any, release: str, base: Path) -> Output:
    v = _mapping(value or {}, "output", {"view", "schema", "snapshot_schema", "database", "export"})
    database = None
    if v.get("database") is not None:
        if not isinstance(v["database"], str) or not v["database"].strip() or v["database"] == ":memory:":
            raise SpecError("output.database", "must be the path of a DuckDB database file", v["database"])
        database = _relative(v["database"], base)
        if database.is_dir():
            raise SpecError("output.database", "is a directory, not a database file", str(database))
    out = Output(
        view=_name(v.get("view", release), "output.view"),
        schema=_name(v.get("schema", "published"), "output.schema"),
        snapshot_schema=_name(v.get("snapshot_schema", "_anon_releases"), "output.snapshot_schema"),
        database=database,
        export=parse_export(v["export"], base) if v.get("export") is not None else None,
    )
    if out.schema == out.snapshot_schema:
        raise SpecError("output.snapshot_schema", "must differ from output.schema", out.snapshot_schema)
    return out


def _relative(path: str, base: Path) -> Path:
    """A path of the spec: absolute as given, or relative to the spec file's folder."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def parse_export(value: Any, base: Path, where: str = "output.export") -> Export:
    """``{path: out/adult.parquet}`` (or the path alone), with ``format: parquet | csv`` when
    the file name does not say it (``.parquet``, ``.pq``; ``.csv``, ``.csv.gz``, ``.csv.zst``,
    ``.tsv``). A relative path is relative to ``base`` (the spec file's folder)."""
    at = where if isinstance(value, str) else f"{where}.path"   # the field a path error names
    if isinstance(value, str):
        value = {"path": value}
    v = _mapping(value, where, {"path", "format"})
    path = v.get("path")
    if not isinstance(path, str) or not path.strip():
        raise SpecError(at, "must be the path of the file to write", path)
    fmt = v.get("format")
    if fmt is None:
        name = path.lower()
        fmt = next((f for f, ends in EXPORT_FORMATS.items() if name.endswith(ends)), None)
        if fmt is None:
            raise SpecError(at, "says no format: end it in .parquet or .csv, or give format: parquet | csv",
                            path)
    elif fmt not in EXPORT_FORMATS:
        raise SpecError(f"{where}.format", f"must be one of {', '.join(EXPORT_FORMATS)}", fmt)
    resolved = _relative(path, base)
    if resolved.is_dir() or path.endswith(("/", "\\")):
        raise SpecError(at, "is a directory; name the file to write", path)
    return Export(resolved, fmt)
