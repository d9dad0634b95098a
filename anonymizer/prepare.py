"""Plan a release: load the source, resolve columns against it, code every QI.

After :func:`prepare` the run's work schema holds, for each quasi-identifier ``i``:

- ``dom{i}(code, value, num)``: its distinct values coded ``0..m-1`` in generalization
  order (numeric order; a hierarchy's leaf order, so that every node is a contiguous code
  range; a declared order; or alphabetical), ``num`` the numeric value or NULL;
- ``hier{i}(code, level, label, lo, hi)``: each value's node at every level, level 0 the
  value itself and the top level ``*``, with the node's range of leaf codes;

and ``base(__rid, q0..q{d-1}, s0.., x0..)``: the rows with QIs as codes, sensitive
(``s``) and passed-through (``x``) columns as they are. Algorithms work on ``base`` only.

NULL policy (spec field ``nulls``): ``error`` (default) stops with the columns and counts;
``suppress`` leaves rows with a NULL quasi-identifier or sensitive value out of ``base`` and
counts them as suppressed (they count against ``suppression_limit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .engine import Engine
from .errors import DataError, SpecError
from .spec import Column, ReleaseSpec
from .sqlnames import ident, table

NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL")


@dataclass(frozen=True)
class QI:
    """A coded quasi-identifier of the plan."""

    index: int
    column: Column
    numeric: bool
    dom: str            # quoted work table (code, value, num)
    hier: str           # quoted work table (code, level, label, lo, hi)
    m: int              # number of distinct values
    height: int         # top level (the '*' level)
    num_min: float | None = None
    num_max: float | None = None

    @property
    def code(self) -> str:
        return f"q{self.index}"

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


@dataclass
class Plan:
    """Everything the algorithms and the publisher need to know about a run."""

    spec: ReleaseSpec
    source: str                 # quoted source relation
    rows: int                   # rows in the source
    base: str                   # quoted work table
    base_rows: int              # rows in base (source minus rows with NULLs, under 'suppress')
    qis: list[QI] = field(default_factory=list)
    sensitive: list[Kept] = field(default_factory=list)
    passthrough: list[Kept] = field(default_factory=list)

    @property
    def null_suppressed(self) -> int:
        return self.rows - self.base_rows

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
    """The quoted name of the spec's source table."""
    src = spec.source
    return table(src.schema, src.table) if src.schema else ident(src.table)


def load_source(engine: Engine, spec: ReleaseSpec) -> str:
    """Load a file source into its table (replacing it); return the quoted source name."""
    src, target = spec.source, source_relation(spec)
    if src.path is not None:
        if src.schema:
            engine.execute(f"CREATE SCHEMA IF NOT EXISTS {ident(src.schema)}")
        reader = "parquet" if src.path.suffix.lower() == ".parquet" else "csv"
        params: dict = {"path": str(src.path)}
        if reader == "csv":
            params["header"] = src.header
            if src.delimiter:
                params["delim"] = src.delimiter
            if src.null_string is not None:
                params["nullstr"] = src.null_string
        engine.run("prepare/load_file.sql.j2", params, target=target, reader=reader,
                   has_delim=bool(src.delimiter), has_nullstr=src.null_string is not None)
    return target


def resolve_columns(spec: ReleaseSpec, types: dict[str, str], relation: str) -> ReleaseSpec:
    """Match spec columns to the table's (case-insensitively), infer QI types, check types."""
    by_lower = {n.lower(): n for n in types}
    resolved, listed = [], set()
    for col in spec.columns:
        real = by_lower.get(col.name.lower())
        if real is None:
            raise SpecError(f"columns.{col.name}", f"is not a column of {relation} (columns: {', '.join(types)})")
        listed.add(real)
        is_num = types[real].split("(")[0].upper() in NUMERIC_TYPES
        ctype = col.type or ("numeric" if is_num else "categorical")
        if ctype == "numeric" and not is_num:
            raise SpecError(f"columns.{col.name}.type", f"is numeric but the column is {types[real]}", ctype)
        if col.hierarchy and col.hierarchy.kind == "intervals" and not is_num:
            raise SpecError(f"columns.{col.name}.hierarchy", f"intervals need a numeric column, not {types[real]}")
        resolved.append(replace(col, name=real, type=ctype))
    for real in types:
        if real not in listed:
            if spec.default_role is None:
                raise SpecError(f"columns.{real}", "has no role: give every source column a role, or set default_role")
            is_num = types[real].split("(")[0].upper() in NUMERIC_TYPES
            resolved.append(Column(real, spec.default_role, "numeric" if is_num else "categorical"))
    return replace(spec, columns=tuple(resolved))


def prepare(engine: Engine, spec: ReleaseSpec, source: str | None = None) -> Plan:
    """Load and check the source, code the QIs and build ``base`` (see module docstring).

    ``source``: the quoted source relation when the caller already loaded it.
    """
    engine.open_work()
    source = source or load_source(engine, spec)
    spec = resolve_columns(spec, engine.columns(source), source)
    rows, nulls = _null_counts(engine, spec, source)
    plan = Plan(spec, source, rows, engine.work("base"), rows)
    for i, col in enumerate(spec.quasi):
        plan.qis.append(_code_qi(engine, spec, source, i, col))
    plan.sensitive = [Kept(c, f"s{j}", c.type == "numeric", _sensitive_hierarchy(engine, source, j, c))
                      for j, c in enumerate(spec.sensitive)]
    plan.passthrough = [Kept(c, f"x{j}", c.type == "numeric") for j, c in enumerate(spec.by_role("insensitive"))]
    keep = [{"col": ident(k.column.name), "name": k.internal} for k in plan.sensitive + plan.passthrough]
    qis = [{"col": ident(q.name), "dom": q.dom} for q in plan.qis]
    engine.run("prepare/base.sql.j2", target=plan.base, source=source, qis=qis, keep=keep,
               has_rowid=_has_rowid(engine, source),
               not_null=[ident(k.column.name) for k in plan.sensitive])
    plan.base_rows = engine.execute(f"SELECT count(*) FROM {plan.base}").fetchone()[0]
    if plan.base_rows == 0:
        raise DataError(source, "no rows left after removing rows with NULLs")
    if plan.null_suppressed > spec.suppression_limit * rows:
        raise DataError(source, f"{plan.null_suppressed} rows have NULLs, more than suppression_limit "
                                f"{spec.suppression_limit:g} allows ({int(spec.suppression_limit * rows)} rows)")
    return plan


def _has_rowid(engine: Engine, source: str) -> bool:
    """Whether the source is a table with a ``rowid`` (views and table functions have none;
    a user column called ``rowid`` would shadow it)."""
    if "rowid" in (name.lower() for name in engine.columns(source)):
        return False
    try:
        engine.con.execute(f"SELECT rowid FROM {source} LIMIT 0")
    except Exception:  # noqa: BLE001 - a binder error means: no rowid
        return False
    return True


def _null_counts(engine: Engine, spec: ReleaseSpec, source: str) -> tuple[int, dict[str, int]]:
    cols = [c for c in spec.columns if c.role in ("quasi", "sensitive")]
    row = engine.one("prepare/null_counts.sql.j2", source=source, columns=[ident(c.name) for c in cols])
    rows, nulls = row[0], {c.name: n for c, n in zip(cols, row[1:]) if n}
    if rows == 0:
        raise DataError(source, "is empty: there is nothing to anonymize")
    if spec.k > rows:
        raise SpecError("models", f"k={spec.k} is larger than the table ({rows} rows)", spec.k)
    if nulls and spec.nulls == "error":
        listing = ", ".join(f"{n} ({c} NULLs)" for n, c in nulls.items())
        raise DataError(source, f"NULLs in {listing}; clean them, or set 'nulls: suppress' to suppress those rows")
    return rows, nulls


def _code_qi(engine: Engine, spec: ReleaseSpec, source: str, i: int, col: Column) -> QI:
    numeric, column = col.type == "numeric", ident(col.name)
    dom, hier = engine.work(f"dom{i}"), engine.work(f"hier{i}")
    leaves, levels, widths = None, 0, ()
    if col.hierarchy and col.hierarchy.kind == "csv":
        leaves, levels = _load_hierarchy(engine, i, col.hierarchy.path, col.hierarchy.delimiter)
    elif col.hierarchy:
        widths = col.hierarchy.widths
    elif col.order:
        leaves = engine.work(f"order{i}")
        engine.run("prepare/order_leaves.sql.j2", {"values": list(col.order)}, target=leaves)
    if leaves is not None:
        _check_covered(engine, source, col, leaves, "hierarchy" if levels else "order")
    if numeric:
        order_by = "vals.value"
    elif levels:
        order_by = ", ".join([f"lv.h{j}" for j in range(levels, 0, -1)] + ["vals.value"])
    elif leaves is not None:
        order_by = "lv.pos"
    else:
        order_by = "vals.value"
    engine.run("prepare/domain.sql.j2", target=dom, source=source, column=column, numeric=numeric,
               order_by=order_by, leaves=leaves)
    # A hierarchy file whose last level is already a single node ('*') needs no extra top.
    add_top = not levels or engine.execute(f"SELECT count(DISTINCT h{levels}) > 1 FROM {leaves}").fetchone()[0]
    top = levels + len(widths) + (1 if add_top else 0)
    engine.run("prepare/hierarchy_levels.sql.j2", {f"w{j + 1}": w for j, w in enumerate(widths)},
               target=hier, dom=dom, leaves=leaves if levels else None, csv_levels=levels,
               widths=widths, add_top=add_top, top=top)
    m, lo, hi = engine.execute(f"SELECT count(*), min(num), max(num) FROM {dom}").fetchone()
    return QI(i, col, numeric, dom, hier, m, top, lo, hi)


def _sensitive_hierarchy(engine: Engine, source: str, j: int, col: Column) -> str | None:
    """The (s, level, node) table of a sensitive column's hierarchy file, if it has one."""
    if col.hierarchy is None or col.hierarchy.kind != "csv":
        return None
    leaves, levels = _load_hierarchy(engine, f"s{j}", col.hierarchy.path, col.hierarchy.delimiter)
    _check_covered(engine, source, col, leaves, "hierarchy")
    target = engine.work(f"shier{j}")
    engine.run("prepare/sensitive_hierarchy.sql.j2", target=target, leaves=leaves, levels=levels)
    return target


def _check_covered(engine: Engine, source: str, col: Column, leaves: str, what: str) -> None:
    missing, sample = engine.one("prepare/unmatched.sql.j2", source=source, column=ident(col.name), leaves=leaves)
    if missing:
        raise SpecError(f"columns.{col.name}.{what}", f"does not cover {missing} value(s) of the column, e.g. {sample}")


def _load_hierarchy(engine: Engine, i: int | str, path: Path, delim: str) -> tuple[str, int]:
    raw, leaves = engine.work(f"hraw{i}"), engine.work(f"leaves{i}")
    engine.run("prepare/load_hierarchy.sql.j2", {"path": str(path), "delim": delim}, target=raw)
    ncols = len(engine.columns(raw))
    if ncols < 2:
        raise SpecError(f"hierarchy {path}", "needs at least two columns (value;level1;...)")
    engine.run("prepare/leaves.sql.j2", target=leaves, raw=raw, levels=ncols - 1)
    return leaves, ncols - 1
