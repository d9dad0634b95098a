"""Code a column and build its hierarchy as mapping tables in the work schema.

For a quasi-identifier the work schema gets (the contract every algorithm reads):

- ``dom<key>(code INTEGER, value, num DOUBLE)``: the distinct values coded ``0..m-1`` in
  generalization order, the order the hierarchy kind needs for every node to be a contiguous
  code range (numeric or date order, a file's paths, a declared order, (length, value));
- ``hier<key>(code, level, label, lo, hi, distortion, low, high)``: each code's node at every
  level, level 0 the value itself, the top level the single node ``*``, ``lo..hi`` the node's
  codes, ``distortion`` the node's distortion (paper 001, Definition 9: 0 for a value, the
  height for the root; the paper's builders divide it further, see their modules), ``low``
  and ``high`` the bounds its label states (the builder's, NULL where it has none).

Each kind of hierarchy is one module with two steps, looked up in :data:`BUILDERS`:
``order(site) -> Order`` (how to code the values; run before the domain exists) and
``levels(domain) -> Levels`` (write levels ``1..top-1`` into ``domain.nodes``).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.engine.names import ident
from anonymizer.hierarchy import cbgh, cgh, csv_file, dates, dbgh, flat, intervals, iotf, masking, ordered
from anonymizer.hierarchy.site import Domain, Site
from anonymizer.hierarchy.spec import INTEGER_TYPES, is_temporal_type

if TYPE_CHECKING:
    from anonymizer.spec.types import Column

BUILDERS = {"flat": flat, "csv": csv_file, "intervals": intervals, "masking": masking, "ordered": ordered,
            "dates": dates, "cgh": cgh, "dbgh": dbgh, "cbgh": cbgh,
            "iotf": iotf}


@dataclass(frozen=True)
class Coded:
    """A column's domain and hierarchy tables and their figures."""

    dom: str              # quoted (code, value, num)
    hier: str             # quoted (code, level, label, lo, hi, distortion, low, high)
    m: int                # distinct values
    height: int           # the top level
    nested: bool          # every node lies inside one node of the next level
    num_min: float | None
    num_max: float | None


def build_hierarchy(engine: Engine, source: str, column: "Column", key: str, source_type: str | None = None,
                    empty: bool = False, distinct: str = "") -> Coded:
    """Code ``column`` of ``source`` and build its hierarchy (see the module docstring).

    ``column.type`` must be resolved (numeric or categorical); ``key`` names the work tables;
    ``source_type``: the column's database type, when the caller has read it already;
    ``empty``: a column with no value is coded (an empty domain) instead of refused (a
    differentially private release runs its mechanism on no rows, and its source holds only the
    values its hierarchy files name, so they are not checked again: :mod:`anonymizer.dp.covered`);
    ``distinct``: a relation with the same distinct values of the column as ``source`` (the QIs'
    distinct vectors, :func:`building`), read instead of the rows where only the values matter.
    """
    builder = BUILDERS[column.hierarchy.kind if column.hierarchy else "flat"]
    site = Site(engine, source, column, key, source_type or engine.columns(source)[column.name], covered=empty,
                distinct=distinct)
    order = builder.order(site)
    dom, hier, numeric = site.work("dom"), site.work("hier"), column.type == "numeric"
    temporal = is_temporal_type(site.value_type)
    engine.run("hierarchy/domain.sql.j2", target=dom, source=site.values, column=ident(column.name), numeric=numeric,
               temporal=temporal, order_by=order.order_by, leaves=order.leaves)
    m, lo, hi = engine.execute(f"SELECT count(*), min(num), max(num) FROM {dom}").fetchone()
    if m == 0 and not empty:
        raise DataError(source, f"column {column.name!r} has no values to build a hierarchy on")
    integer = numeric and site.value_type.upper() in INTEGER_TYPES
    domain = Domain(site, dom, order.leaves, m, lo, hi, integer)
    levels = builder.levels(domain)
    engine.run("hierarchy/mapping.sql.j2", {"top": levels.top} if levels.add_top else None, target=hier, dom=dom,
               inner=domain.nodes if levels.inner else None, add_top=levels.add_top, bounds=levels.bounds,
               value_type=site.value_type)
    nested, broken = engine.one("hierarchy/shape.sql.j2", hier=hier)
    if broken:
        raise SpecError(site.where, f"{broken} is not a contiguous range of the column's values in "
                                    "generalization order (is the hierarchy a tree?)")
    return Coded(dom, hier, m, levels.top, nested, lo, hi)


@contextmanager
def building(engine: Engine, source: str, columns: Sequence[str],
             values: str | None = None) -> Iterator[tuple[Engine, str, str]]:
    """Where the hierarchies of ``columns`` of ``source`` are built, and over what: ``engine``
    over ``source`` itself, or, on an engine whose aggregates run apart from its rows
    (``capabilities.aggregates_apart``: Spark), the distinct vectors of ``columns`` with their
    rows (``hierarchy/qi_values.sql.j2``, one pass over the rows) on the engine
    :meth:`~anonymizer.engine.session.Engine.for_aggregate` gives for them (Spark's driver, up to
    its bound), each vector read there as the rows it stands for. A hierarchy file is then read
    on the driver and reaches the executors as a table, never as a path. ``values``: that
    table, written already over ``source`` (the source's profile wrote it in its pass; its
    writer drops it), possibly grouped by more columns than ``columns``; on any engine, the
    hierarchies are then built over it (a DP release's:
    :func:`~anonymizer.source_profile.vectors_first`). Yields the engine, the rows (``source``,
    or the vectors as the rows they stand for) and a relation with the same distinct values
    (``source``, or the vectors themselves: the domain and a file's coverage read only those)."""
    apart = engine.capabilities.aggregates_apart
    if not apart and values is None:
        yield engine, source, source
        return
    written = values is None
    if values is None:
        values = engine.work("qi_values")
        engine.run("hierarchy/qi_values.sql.j2", target=values, source=source, columns=[ident(c) for c in columns],
                   profile=None)
    with engine.for_aggregate(values) as on:
        if apart and on is engine:   # more distinct vectors than the driver takes: over the rows, as statements of ``engine``
            yield engine, source, source
        else:
            yield on, as_rows(values, columns), values
    if written:
        engine.release_tables(values)


def as_rows(values: str, columns: Sequence[str]) -> str:
    """The QI vectors of ``values`` (``hierarchy/qi_values.sql.j2``) as the rows they count,
    a query (each vector repeated by its rows, as DuckDB's ``range`` generates them)."""
    cols = ", ".join(f"v.{ident(c)}" for c in columns)
    return f"(SELECT {cols} FROM {values} AS v, range(v.__anon_rows))"
