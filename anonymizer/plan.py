"""Plan a release: load the source, resolve columns against it, code every QI.

After :func:`prepare` the run's work schema holds, for each quasi-identifier ``i``:

- ``dom{i}(code, value, num)``: its distinct values coded ``0..m-1`` in generalization
  order (numeric order; a hierarchy's leaf order, so that every node is a contiguous code
  range; a declared order; or alphabetical), ``num`` the numeric value or NULL;
  With a population model (k-map, delta-presence) the values are the source's and the
  population's together (:mod:`anonymizer.models.population`);
- ``hier{i}(code, level, label, lo, hi, distortion)``: each value's node at every level,
  level 0 the value itself and the top level ``*``, with the node's range of leaf codes and
  its distortion (built by :mod:`anonymizer.hierarchy`, one builder per kind);

and ``base(__rid, q0..q{d-1}, s0.., x0.., f<i>..)``: the rows with QIs as codes, sensitive
(``s``) and passed-through (``x``) columns as they are, and each flagged QI's per-cell
sensitivity flag ``f<i>`` (paper 000). Algorithms work on ``base`` only.

NULL policy (spec field ``nulls``): ``error`` (default) stops with the columns and counts; ``suppress``
leaves rows with a NULL QI or sensitive value out of ``base``, counted as suppressed (against ``suppression_limit``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from anonymizer.base_rows import CodedRows, deferred, written
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, PrivacyCheckFailed, SpecError
from anonymizer.hierarchy import build_hierarchy, column_type
from anonymizer.row_ids import row_id
from anonymizer.hierarchy.build import building
from anonymizer.hierarchy.coverage import check_covered
from anonymizer.hierarchy.csv_file import load_leaves
from anonymizer.hierarchy.spec import is_numeric_type, is_temporal_type
from anonymizer.models import population
from anonymizer.randomness import ReleaseKey
from anonymizer.source_profile import SourceProfile, cell_columns, check_profile, fingerprint, profile_source
from anonymizer.spec.types import Column, ReleaseSpec, largest_k
from anonymizer.target import Target
from anonymizer.engine.names import ident, in_catalog

if TYPE_CHECKING:
    import pandas

    from anonymizer.models import PrivacyModel


@dataclass(frozen=True)
class QI:
    """A coded quasi-identifier of the plan."""

    index: int
    column: Column
    numeric: bool
    dom: str            # quoted work table (code, value, num)
    hier: str           # quoted work table (code, level, label, lo, hi, distortion)
    m: int              # number of distinct values
    height: int         # top level (the '*' level)
    num_min: float | None = None
    num_max: float | None = None
    nested: bool = True  # every node lies inside one node of the next level (DBGH's need not)

    @property
    def code(self) -> str:
        return f"q{self.index}"

    @property
    def flag(self) -> str | None:
        """``base``'s column of the per-cell sensitivity flag (paper 000), if the QI has one."""
        return f"f{self.index}" if self.column.flag else None

    @property
    def name(self) -> str:
        return self.column.name


@dataclass(frozen=True)
class Kept:
    """A sensitive or passed-through column carried in ``base`` under an internal name."""

    column: Column
    internal: str
    numeric: bool
    hier: str | None = None   # quoted (s, level, node) table, for sensitive columns with a hierarchy file


@dataclass(frozen=True)
class Vectors:
    """The source's distinct vectors of QIs and the sensitive columns a Mondrian release's cells
    keep, with their rows (``hierarchy/qi_values.sql.j2``, the source's profile's pass), and how
    ``base`` codes their QIs (``prepare/_code.sql.j2``: ``qis``, ``lists`` the bound lists), kept
    while Mondrian may collapse them to its cells instead of reading the rows again."""

    table: str                 # quoted work table: the columns, __anon_rows
    base: str                  # the base whose every row they stand for (not a subset's)
    qis: list[dict]            # base.sql.j2's qis: {i, col, dom, lookup}
    lists: dict[str, list]     # its bound lists: values<i>, codes<i>


@dataclass
class Plan:
    """Everything the algorithms and the publisher need to know about a run, resolved from
    the spec once (:func:`prepare`); after planning nothing reads the spec.

    ``target``: where the release's versions go (name, output, history, parts).
    ``algorithm``: who runs it (its family: :func:`anonymizer.families.of`); ``options``: the family's own ``algorithm:`` options
    (``families/<family>/options.py``: ``Options``, read through its ``of(plan)``);
    ``models``: the declared models, ``k`` the largest k among them; ``suppression_limit``
    and ``nulls``: the suppression budget and the NULL policy.
    """

    target: Target
    algorithm: str
    options: Any
    models: tuple[PrivacyModel, ...]
    suppression_limit: float
    nulls: str
    source: str                 # quoted source relation
    rows: int                   # rows in the source
    base: str                   # quoted work table
    base_rows: int              # rows in base (source minus rows with NULLs, under 'suppress')
    seed: int | None = None     # ``algorithm.seed`` (None: a secret key)
    qis: list[QI] = field(default_factory=list)
    sensitive: list[Kept] = field(default_factory=list)
    passthrough: list[Kept] = field(default_factory=list)
    individual: Kept | None = None   # paper 004: the column naming the person, in base as ``i0``
    person: Kept | None = None   # ``history.person``: the same person across versions, in base as ``p0``
    key: ReleaseKey = field(default_factory=ReleaseKey.fresh, repr=False)   # the release's random draws
    #: model index -> its coded population (k-map, delta-presence: :mod:`anonymizer.models.population`)
    populations: dict[int, str] = field(default_factory=dict)
    #: where a family writes its per-row candidate to publish it in place (set by a run that
    #: publishes: :func:`anonymizer.release.in_place.placed`); ``None``: a work table
    in_place: str | None = None
    #: the source's vectors, where they stand for its rows in Mondrian's cells (Spark, no row
    #: left out of base); ``None`` elsewhere
    vectors: Vectors | None = None
    #: how base codes the source, while it is not written (:mod:`anonymizer.base_rows`)
    coded: CodedRows | None = None
    #: the source's fingerprint when first read (its spec's columns, the digest: :func:`check_unchanged`)
    printed: tuple[tuple[Column, ...], str] = ((), "")
    shown: str = ""             # the source as messages name it (source: a work table or view)

    @property
    def k(self) -> int:
        """The largest k any model demands (1 if none does)."""
        return largest_k(self.models)

    @property
    def allowed(self) -> int:
        """The rows ``suppression_limit`` allows to suppress."""
        return int(self.suppression_limit * self.rows)

    @property
    def columns(self) -> tuple[Column, ...]:
        """The resolved columns the plan carries (QIs, sensitive, passed through, individual)."""
        kept = self.sensitive + self.passthrough + [k for k in (self.individual,) if k]
        return tuple(q.column for q in self.qis) + tuple(k.column for k in kept)

    @property
    def null_suppressed(self) -> int:
        return self.rows - self.base_rows

    @property
    def aggregates(self) -> tuple[str, ...]:
        """The work tables of the plan that are aggregates, read beside a release's cells,
        classes and counts: each QI's domain and hierarchy, the sensitive hierarchies."""
        return tuple(t for q in self.qis for t in (q.dom, q.hier)) + tuple(self.hiers.values())

    @property
    def hiers(self) -> dict[str, str]:
        """Sensitive column name -> its (s, level, node) hierarchy table, where it has one."""
        return {k.column.name: k.hier for k in self.sensitive if k.hier}

    def hier_of(self, model) -> str | None:
        """The (s, level, node) hierarchy of a model's sensitive column, if it has one."""
        return self.kept(model.sensitive).hier if model.sensitive is not None else None

    def kept(self, name: str) -> Kept:
        for k in self.sensitive + self.passthrough:
            if k.column.name == name:
                return k
        raise KeyError(name)


def source_relation(spec: ReleaseSpec) -> str:
    """The quoted name of the spec's source table (``catalog.schema.table`` when it names a catalog)."""
    src = spec.source
    return in_catalog(src.catalog, src.schema, src.table) if src.schema else ident(src.table)


def source_shown(spec: ReleaseSpec, frame: bool = False) -> str:
    """The source as messages name it: the DataFrame, the file (``source.path``), or the
    table; never the work table a file or frame is staged in."""
    if frame:
        return "the DataFrame"
    return f"the file {spec.source.location}" if spec.source.location is not None else source_relation(spec)


def load_source(engine: Engine, spec: ReleaseSpec, data: "pandas.DataFrame | None" = None) -> str:
    """The quoted relation a release reads. A table source is read where it is. A file source
    (CSV/Parquet ``source.path``) or a DataFrame ``data`` is staged in the run's work database
    (``engine.work("source")``), never in the user's: no table of the database is created or
    replaced, and the raw rows go when the work database is detached (or the process ends)."""
    if data is not None or spec.source.location is not None:
        target = engine.work("source")
        if data is not None:
            engine.load_frame(data, target)
        else:
            engine.load_file(spec.source, target)
        if engine.count(target) == 0:   # before its columns' types, which an empty file cannot show
            raise DataError("the DataFrame" if data is not None else str(spec.source.location),
                            "has no rows (a header alone, or nothing): there is nothing to anonymize")
        return target
    return source_relation(spec)


def resolve_columns(spec: ReleaseSpec, types: dict[str, str], relation: str) -> ReleaseSpec:
    """Match spec columns to the table's (case-insensitively), infer QI types, check types;
    ``relation`` names the source in messages (:func:`source_shown`)."""
    by_lower = {n.lower(): n for n in types}
    resolved, listed = [], set()
    for col in spec.columns:
        real = by_lower.get(col.name.lower())
        if real is None:
            raise SpecError(f"columns.{col.name}", f"is not a column of {relation} (columns: {', '.join(types)})")
        listed.add(real)
        quasi = col.role == "quasi"
        if col.type == "numeric" and not (is_numeric_type(types[real]) or quasi and is_temporal_type(types[real])):
            raise SpecError(f"columns.{col.name}.type", f"is numeric but the column is {types[real]}", col.type)
        ctype = column_type(col.hierarchy, f"columns.{col.name}.hierarchy", types[real], col.type, quasi=quasi)
        flag = _resolve_flag(col, by_lower, types, relation)
        if flag:
            listed.add(flag)
        resolved.append(replace(col, name=real, type=ctype, flag=flag))
    for real in types:
        if real not in listed:
            if spec.default_role is None:
                raise SpecError(f"columns.{real}", "has no role: give every source column a role, or set default_role")
            resolved.append(Column(real, spec.default_role, column_type(None, f"columns.{real}", types[real], None)))
    return replace(spec, columns=tuple(resolved))


def _resolve_flag(col: Column, by_lower: dict[str, str], types: dict[str, str], relation: str) -> str | None:
    """The real name of a quasi column's flag column (paper 000), which must be BOOLEAN."""
    if col.flag is None:
        return None
    real = by_lower.get(col.flag.lower())
    if real is None:
        raise SpecError(f"columns.{col.name}.flag", f"is not a column of {relation}", col.flag)
    if types[real] != "BOOLEAN":
        raise SpecError(f"columns.{col.name}.flag", f"must be a BOOLEAN column (TRUE where the value is "
                                                    f"sensitive), but {real!r} is {types[real]}", col.flag)
    return real


def spec_fingerprint(spec: ReleaseSpec, engine: Engine | None = None) -> str:
    """Hash of the spec as written plus the content of every hierarchy file it names: a local
    file's bytes; a URI's rows as ``engine`` reads them (a digest of their count and content,
    as :func:`fingerprint` takes a source's), or, without an engine, the URI alone."""
    h = hashlib.sha256(spec.spec_hash().encode())
    for i, col in enumerate(spec.columns):
        tree = col.hierarchy
        if tree is not None and tree.path is not None:
            h.update(tree.path.read_bytes())
        elif tree is not None and tree.uri is not None:
            h.update(tree.uri.encode())
            if engine is not None:
                rows = engine.work(f"hierarchy_print{i}")
                engine.load_csv(tree.uri, tree.delimiter, rows)
                h.update(str(engine.one("publish/fingerprint.sql.j2", source=rows,
                                        columns=[ident(c) for c in engine.columns(rows)])).encode())
                engine.drop(rows)
    return h.hexdigest()[:16]


def check_source(engine: Engine, spec: ReleaseSpec, source: str | None = None,
                 resolved: bool = False,
                 profile: SourceProfile | None = None) -> tuple[ReleaseSpec, str, SourceProfile]:
    """What a release checks of its source before any work, with one aggregate query: the
    table exists, every column the spec names is one of it with a role and a type that fit
    (:func:`resolve_columns`), it has rows, k is not above them, and NULLs are allowed if
    present. Returns the resolved spec, the quoted source and its profile; ``anonymizer
    validate --db`` runs it alone (the work database must be open: a file source is staged there).
    ``resolved``: the caller resolved the spec's columns against ``source`` already;
    ``profile``: the caller read the source's :class:`SourceProfile` already (:func:`profile_source`).

    Raises:
        SpecError, DataError: what :func:`prepare` would refuse, naming the field or table.
    """
    source = source or load_source(engine, spec)
    if not resolved:
        spec = resolve_columns(spec, engine.columns(source), source_shown(spec))
    profile = profile or profile_source(engine, spec, source)
    check_profile(spec, source, profile)
    return spec, source, profile


def check_unchanged(engine: Engine, plan: Plan) -> None:
    """Where the rows a release wrote disagree with its own count of them: a
    :class:`~anonymizer.errors.DataError` if the source no longer holds the rows it held when
    the release first read it, by its fingerprint (a release reads it more than once where
    ``base`` is written after the profile's pass, or never: :mod:`anonymizer.base_rows`), so
    that a table changed under a running release is reported as such, and not as our bug.
    Nothing is published then."""
    now, digest = fingerprint(engine, plan.printed[0], plan.source)
    if (now, digest) != (plan.rows, plan.printed[1]):
        held = f"{plan.rows:,} rows when first read, {now:,} now" if now != plan.rows else \
            f"{now:,} rows when first read and now, other values"
        raise DataError(plan.source, f"changed while the release ran ({held}): nothing was published; release a "
                                     "table that holds still (a snapshot of it, or run when nothing writes to it)")


def prepare(engine: Engine, spec: ReleaseSpec, source: str | None = None,
            profile: SourceProfile | None = None, in_place: str | None = None, rowid: str | None = None) -> Plan:
    """Load and check the source, code the QIs and build ``base`` (see module docstring).

    ``source``: the quoted source relation when the caller already loaded it and resolved the
    spec's columns against it (:func:`resolve_columns`, which runs once a release);
    ``profile``: its :class:`SourceProfile`, when the caller read it (with the fingerprint);
    ``in_place``: where the run writes its candidate to publish it in place
    (:func:`~anonymizer.release.in_place.placed`): ``base`` may then stay unwritten
    (:mod:`anonymizer.base_rows`); ``rowid``: the SQL (over ``src``) of a unique id of
    ``source``'s rows where its maker passes one on (:func:`anonymizer.dp.covered.covered`),
    else its table's ``rowid`` or ``row_number()`` (:mod:`anonymizer.row_ids`).
    """
    engine.open_work()
    spec, source, profile = check_source(engine, spec, source, resolved=source is not None, profile=profile)
    rows = profile.rows
    plan = Plan(spec.target, spec.algorithm.name, spec.algorithm.options, spec.models,
                spec.suppression_limit, spec.nulls, source, rows, engine.work("base"), rows, spec.algorithm.seed,
                key=ReleaseKey.for_seed(spec.algorithm.seed, spec.algorithm.secret))
    types = engine.columns(source)
    coding = population.coding_source(engine, spec.models, source, [c.name for c in spec.quasi])
    with building(engine, coding, [c.name for c in spec.quasi], profile.values if coding == source else None) as (
            on, over, values):   # Spark: on its driver
        for i, col in enumerate(spec.quasi):
            plan.qis.append(_code_qi(on, over, values, i, col, types[col.name], spec.target.budget is not None))
    plan.sensitive = [Kept(c, f"s{j}", c.type == "numeric", _sensitive_hierarchy(engine, source, j, c))
                      for j, c in enumerate(spec.sensitive)]
    plan.passthrough = [Kept(c, f"x{j}", c.type == "numeric") for j, c in enumerate(spec.by_role("insensitive"))]
    plan.individual = next((Kept(c, "i0", False) for c in spec.by_role("individual")), None)
    if spec.history.person is not None:
        plan.person = Kept(next(c for c in spec.columns if c.name == spec.history.person), "p0", False)
    kept = plan.sensitive + plan.passthrough + [k for k in (plan.individual, plan.person) if k]
    keep = [{"col": ident(k.column.name), "name": k.internal} for k in kept]
    flags = [{"col": ident(q.column.flag), "name": q.flag} for q in plan.qis if q.column.flag]
    found = {q.index: engine.lookup(q.dom, "value", "code") for q in plan.qis}   # Spark: a small domain, bound
    qis = [{"i": q.index, "col": ident(q.name), "dom": q.dom, "lookup": found[q.index] is not None} for q in plan.qis]
    lists = {f"{side}{i}": pair[k] for i, pair in found.items() if pair for k, side in enumerate(("values", "codes"))}
    person = ident(plan.individual.column.name) if plan.individual and spec.nulls == "suppress" else None
    plan.in_place, plan.printed, plan.shown = in_place, (spec.columns, profile.digest), source_shown(spec)
    plan.coded = CodedRows(dict(
        source=source, qis=qis, keep=keep + flags, rowid=rowid or row_id(engine, source), person=person,
        nullable=[q["col"] for q in qis] + [ident(k.column.name) for k in plan.sensitive] + [f["col"] for f in flags],
        not_null=[ident(k.column.name) for k in plan.sensitive] + [f["col"] for f in flags]
        + [ident(k.column.name) for k in (plan.individual, plan.person) if k]), lists)
    if not deferred(spec, in_place):
        written(engine, plan)
    # no NULL where base filters: it keeps every row (its joins are on domains of these very values)
    plan.base_rows = rows if not profile.nulls else engine.count(written(engine, plan))
    if plan.base_rows == 0 and spec.target.budget is None:   # DP: the mechanism runs on no rows (it has spent)
        raise DataError(source, "no rows left after removing rows with NULLs")
    if plan.null_suppressed > spec.suppression_limit * rows:
        raise DataError(source, f"{plan.null_suppressed} rows have NULLs, more than suppression_limit "
                                f"{spec.suppression_limit:g} allows ({int(spec.suppression_limit * rows)} rows)")
    plan.populations = population.code_populations(engine, plan)
    if profile.values is not None and plan.base_rows == rows and coding == source and cell_columns(spec) is not None:
        plan.vectors = Vectors(profile.values, plan.base, qis, lists)   # Mondrian's cells of them (mondrian.vectors_to_cells)
    elif profile.values is not None:
        engine.release_tables(profile.values)
    return plan


def check_suppression(plan: Plan, suppressed: int) -> None:
    """The gate on suppressed rows (NULLs and the algorithm's together): PrivacyCheckFailed
    when they exceed the spec's ``suppression_limit``."""
    allowed = plan.allowed
    if suppressed > allowed:
        raise PrivacyCheckFailed(f"suppression limit {plan.suppression_limit:g} ({allowed} rows)", suppressed, 0,
                                 plan.target.view, achieved_is="rows that would be suppressed",
                                 reason=f"{suppressed} rows would be suppressed, {suppressed - allowed} more than "
                                        "it allows")


def _code_qi(engine: Engine, source: str, values: str, i: int, col: Column, source_type: str, dp: bool) -> QI:
    coded = build_hierarchy(engine, source, col, str(i), source_type, empty=dp, distinct=values)
    low, high = coded.num_min, coded.num_max
    if col.domain is not None:
        assert low is not None and high is not None   # a domain is a numeric QI's (spec/columns.py: _domain)
        if low < col.domain[0] or high > col.domain[1]:
            raise SpecError(f"columns.{col.name}.domain", f"does not cover the values present ({low:g} to {high:g})",
                            list(col.domain))
        low, high = col.domain
    return QI(i, col, col.type == "numeric", coded.dom, coded.hier, coded.m, coded.height, low, high, coded.nested)


def _sensitive_hierarchy(engine: Engine, source: str, j: int, col: Column) -> str | None:
    """The (s, level, node) table of a sensitive column's hierarchy file, if it has one."""
    if col.hierarchy is None:
        return None
    assert col.hierarchy.location is not None   # a sensitive column's hierarchy is a csv file (hierarchy/spec.py)
    with engine.for_cells(0) as on:   # Spark: read on its driver, reaching the executors as a table, not a path
        leaves, levels = load_leaves(on, f"s{j}", col.hierarchy.location, col.hierarchy.delimiter)
    check_covered(engine, source, col.name, leaves, f"columns.{col.name}.hierarchy")
    target = engine.work(f"shier{j}")
    engine.run("prepare/sensitive_hierarchy.sql.j2", target=target, leaves=leaves, levels=levels)
    return target
