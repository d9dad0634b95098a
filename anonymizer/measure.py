"""``anonymizer check``: measure the privacy of any table, in SQL.

:func:`measure_table` reports, for a table and its quasi-identifiers (QIs): row and class
counts, k (smallest equivalence class), the distribution of class sizes, prosecutor
re-identification risk (El Emam and Dankar 2008: a record's risk is 1/|E| for its class E),
and per sensitive attribute the figures of distinct, entropy and recursive (c,l)-diversity
(Machanavajjhala et al. 2007), t-closeness (Li et al. 2007) and (alpha,k)-anonymity
(Wong et al. 2006). Everything is computed by DuckDB; Python reads one row per model
and at most a few dozen rows of the size distribution. The table is read once: its rows
are counted per combination of QI and sensitive values into a temporary table, from which
the class sizes and every model are computed, each class by an integer id.

Table names: a tuple or list gives the name's parts exactly (``("sales", "my.table")``);
a string is split at dots into ``[catalog.]schema.table`` parts (``"sales.people"``). To
name a table whose name itself contains a dot, pass a tuple.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import duckdb

from anonymizer.engine.backend import engine_for
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.errors import DataError, SpecError
from anonymizer.numbers import number
from anonymizer.models.catalog import (
    AlphaKAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonymizer.models.check import evaluate_all, global_sql
from anonymizer.engine.names import ident, table as qualified
from anonymizer.metrics import risk as risk_models

#: a record is "at risk" when its re-identification risk (1/|E| for the prosecutor) is above
#: this (classes below 5 rows, the threshold El Emam et al. use for public releases).
RISK_THRESHOLD = 0.2
#: at most this many distinct class sizes are listed one by one; beyond, sizes are bucketed.
MAX_SIZE_ROWS = 20

_NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                  "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")
_ORDERED_TYPES = _NUMERIC_TYPES + ("DATE", "TIME", "TIMESTAMP", "INTERVAL")


def table_parts(name: str | Sequence[str]) -> tuple[str, ...]:
    """Split a table name by the module's rule (see above).

    Example:
        >>> table_parts("sales.people"), table_parts(("a.b",))
        (('sales', 'people'), ('a.b',))
    """
    if isinstance(name, str):
        parts = tuple(name.split("."))
    elif isinstance(name, (tuple, list)):
        parts = tuple(name)
    else:
        raise SpecError("table", "must be a name or a tuple of name parts", name)
    if not 1 <= len(parts) <= 3 or not all(isinstance(p, str) and p for p in parts):
        raise SpecError("table", "must be [catalog.][schema.]table with non-empty parts", name)
    return parts


def _check_columns(cols: Mapping[str, str], wanted: Iterable[str], role: str, shown: str) -> None:
    names = list(wanted)
    for name in names:
        if not isinstance(name, str) or not name:
            raise SpecError(role, "must list column names", name)
    missing = [n for n in names if n not in cols]
    if missing:
        raise SpecError(role, f"unknown column(s) {', '.join(map(repr, missing))} in table {shown}; "
                              f"it has {', '.join(map(repr, cols))}")
    if len(set(names)) != len(names):
        raise SpecError(role, "lists a column twice", names)


def _distance_for(name: str, col_type: str, distance: str | Mapping[str, str] | None) -> str:
    chosen = distance.get(name) if isinstance(distance, Mapping) else distance
    if chosen is None:
        return "ordered" if col_type.upper().startswith(_ORDERED_TYPES) else "equal"
    if chosen not in ("equal", "ordered", "hierarchical"):
        raise SpecError(f"distance.{name}", "must be one of equal, ordered, hierarchical", chosen)
    return chosen


def _size_distribution(engine: Engine, sizes_sql: str) -> list[dict[str, int]]:
    """Class sizes with their class and row counts; bucketed by powers of two when there
    are more than :data:`MAX_SIZE_ROWS` distinct sizes."""
    rows = engine.rows("metrics/size_distribution.sql.j2", {"max_rows": MAX_SIZE_ROWS},
                       sizes=sizes_sql)
    return [{"min_size": int(lo), "max_size": int(hi), "classes": int(c), "rows": int(r)}
            for lo, hi, c, r in rows]


@dataclass(frozen=True)
class Counted:
    """A table's rows counted per combination of its QI and sensitive values
    (``metrics/row_counts.sql.j2``): ``table`` (quoted relation) with the QI and sensitive
    columns under their names, ``weight`` (quoted column: the rows) and ``cls`` (quoted
    column: a dense id of the QI values, one per equivalence class). Every model and class
    size of the table can be read from it (weighted), without reading the table again."""

    table: str
    weight: str
    cls: str


def count_rows(engine: Engine, relation: str, qis: Sequence[str], sensitive: Sequence[str],
               target: str | None = None) -> Counted:
    """Count the rows of ``relation`` (quoted) per combination of the columns ``qis`` and
    ``sensitive`` (names) into the quoted table ``target`` (default: the work table
    ``row_counts``). A release counts its candidate once, then verifies and measures it from
    the counts."""
    target = target or engine.work("row_counts")
    weight, cls = (ident(next(w for w in (f"{stem}{i}" for i in range(len(qis) + len(sensitive) + 1))
                              if w not in {*qis, *sensitive})) for stem in ("__anon_rows", "__anon_class"))
    engine.execute(f"CREATE TABLE {target} AS " + _row_counts_sql(relation, qis, sensitive, weight, cls),
                   template="metrics/row_counts.sql.j2")
    return Counted(target, weight, cls)


def _row_counts_sql(relation: str, qis: Sequence[str], sensitive: Sequence[str], weight: str, cls: str) -> str:
    return render("metrics/row_counts.sql.j2", source=relation, group=[ident(q) for q in qis], weight=weight,
                  columns=[ident(n) for n in dict.fromkeys([*qis, *sensitive])], cls=cls)


def measure_table(con: duckdb.DuckDBPyConnection | Engine, table: str | Sequence[str], qis: Sequence[str],
                  sensitive: Sequence[str] = (), c: float = 2.0,
                  distance: str | Mapping[str, str] | None = None,
                  hierarchies: Mapping[str, str] | None = None,
                  reference: str | Sequence[str] | None = None, counted: Counted | None = None,
                  population: str | Sequence[str] | None = None, threshold: float = RISK_THRESHOLD,
                  risky_classes: int = 0, population_size: int | None = None,
                  sampling_fraction: float | None = None) -> dict[str, Any]:
    """Measure the privacy of ``table`` with quasi-identifiers ``qis``.

    Args:
        con: an open DuckDB connection (a ``SparkSession``, or the engine a release runs on).
        table: the table (see the module's naming rule).
        qis: quasi-identifier column names (unquoted); an empty list makes the whole
            table one class.
        sensitive: sensitive column names.
        c: the ``c`` of recursive (c,l)-diversity.
        distance: the t-closeness ground distance, for all sensitive attributes (a
            string) or per attribute (a mapping); by default ``ordered`` for numeric and
            temporal columns and ``equal`` otherwise.
        hierarchies: for ``hierarchical`` distance, attribute -> quoted relation
            ``(s, level, node)`` (see ``templates/models/t_closeness_hierarchical.sql.j2``).
        reference: the table whose distribution of each sensitive attribute t-closeness
            compares with (named by the same rule; it must have the sensitive columns, by
            the same names). By default the measured table itself. To measure a published
            release as the verification gate does, pass its input (the source table): a
            release compares every class with the input's distribution, before suppression
            (:func:`anonymizer.models.check.reference_sql`). The reference should hold
            every value the table holds (an input does): with the ordered distance, a value
            missing from it is left out of the class's distribution.
        counted: ``table``'s rows already counted by :func:`count_rows` over ``qis`` and
            ``sensitive`` (a release verifies and measures from one count); by default the
            table is counted here, into a temporary table dropped at the end.
        population: the population table of journalist and marketer risk (named by the same
            rule; it must have the QI columns, holding the labels of the measured table's
            generalization: see :mod:`anonymizer.metrics.risk`). By default the measured
            table is its own population, as in ARX.
        threshold: the record risk above which a record (and its class) is at risk.
        risky_classes: list at most this many classes above the threshold (by prosecutor
            risk, the riskiest first) in ``risk["risky_classes"]``.
        population_size: the size N of the population the table was sampled from: estimate
            how many of its records are unique on the QIs (ARX's population uniqueness:
            :mod:`anonymizer.metrics.population`) into ``risk["population_uniqueness"]``.
        sampling_fraction: the same, N given as the table's share of it (N = rows /
            fraction, rounded); give one of the two at most.

    Returns:
        a JSON-ready dict: ``table``, ``qis``, ``rows``, ``classes``, ``k``,
        ``class_sizes`` (list of ``{min_size, max_size, classes, rows}``),
        ``risk`` (``highest`` = 1/k, ``average`` = classes/rows, ``threshold``,
        ``records_at_risk`` = rows whose risk 1/|E| is above the threshold, and
        ``share_at_risk``: the prosecutor's, kept at the top for older readers; then
        ``prosecutor``, ``journalist`` and ``marketer`` as
        :func:`anonymizer.metrics.risk.risk_profile` gives them, and ``risky_classes``
        when asked; with a population table ``k_map`` and ``delta_presence`` as
        :func:`anonymizer.metrics.risk.presence` gives them; with a population size
        or sampling fraction ``population_uniqueness`` as :func:`anonymizer.metrics.population.
        uniqueness` gives it), and ``sensitive``: ``{name: {homogeneous_classes, distinct_l,
        entropy_l, recursive_l, c, t, distance, reference, alpha}}`` (``homogeneous_classes``:
        the classes where everyone has one value, which they then disclose; ``reference``:
        the table ``t`` was measured against).

    Raises:
        DataError: the table does not exist or is empty.
        SpecError: unknown or repeated columns, a bad ``c`` or distance.
    """
    parts = table_parts(table)
    shown = ".".join(parts)
    rel = qualified(*parts)
    engine = engine_for(con)
    cols = engine.columns(rel, shown)
    _check_columns(cols, qis, "qis", shown)
    _check_columns(cols, sensitive, "sensitive", shown)
    number(c, "c", 0, low_open=True)
    number(threshold, "threshold", 0, 1)
    number(risky_classes, "risky_classes", 0, whole=True)
    if population_size is not None and sampling_fraction is not None:
        raise SpecError("sampling_fraction", "give the population size or the sampling fraction, not both")
    if population_size is not None:
        number(population_size, "population_size", 1, whole=True)
    if sampling_fraction is not None:
        number(sampling_fraction, "sampling_fraction", 0, 1, low_open=True)
    pop = population_of(engine, population, qis, cols)
    risk = _Risk(pop, threshold, risky_classes, population_size, sampling_fraction)
    if counted is not None:
        return _measure(engine, counted, shown, qis, cols, sensitive, c, distance, hierarchies, reference, risk)
    weight, cls = (ident(next(w for w in (f"{stem}{i}" for i in range(len(cols) + 1)) if w not in cols))
                   for stem in ("__anon_rows", "__anon_class"))
    with engine.scratch(_row_counts_sql(rel, qis, sensitive, weight, cls), template="metrics/row_counts.sql.j2") as hist:
        return _measure(engine, Counted(hist, weight, cls), shown, qis, cols, sensitive, c, distance, hierarchies,
                        reference, risk)


def population_of(engine: Engine, population: str | Sequence[str] | None, qis: Sequence[str],
                  cols: Mapping[str, str]) -> risk_models.Population | None:
    """The population table named ``population`` (the module's naming rule), checked to have
    the columns ``qis`` with the types the sample's columns ``cols`` have (any two numeric
    types match); ``None`` for none."""
    if population is None:
        return None
    parts = table_parts(population)
    shown, rel = ".".join(parts), qualified(*parts)
    pop_cols = engine.columns(rel, shown)
    _check_columns(pop_cols, qis, "population", shown)
    for name in qis:
        mine, theirs = cols[name].upper(), pop_cols[name].upper()
        if mine != theirs and not (mine.startswith(_NUMERIC_TYPES) and theirs.startswith(_NUMERIC_TYPES)):
            raise SpecError("population", f"column {name!r} of table {shown} is {theirs}, the measured table's "
                                          f"is {mine}: give the population at the same generalization (the "
                                          f"same labels)", shown)
    return risk_models.Population(rel, shown, tuple(ident(q) for q in qis))


@dataclass(frozen=True)
class _Risk:
    """What :func:`measure_table` was asked about risk: the population, threshold, and how
    many risky classes to list, and the population size or sampling fraction of the
    population uniqueness estimates."""

    population: risk_models.Population | None
    threshold: float
    listed: int
    size: int | None = None
    fraction: float | None = None


def _risk(engine: Engine, counted: Counted, shown: str, qis: Sequence[str], asked: _Risk) -> dict[str, Any]:
    """``measure_table``'s ``risk`` dict from the counted rows (classes grouped by their id,
    or by their QI values when they are matched with a population or listed)."""
    by_values = asked.population is not None or asked.listed > 0
    group = [ident(q) for q in qis] if by_values else [counted.cls]
    with engine.scratch(risk_models.classes_sql(counted.table, group, counted.weight, asked.population),
                        template="metrics/risk_classes.sql.j2") as classes:
        profile = risk_models.risk_profile(engine, classes, asked.threshold, shown, asked.population)
        pros = profile["prosecutor"]
        found: dict[str, Any] = {
            "highest": pros["highest"],
            "average": pros["average"],
            "threshold": asked.threshold,
            "records_at_risk": pros["records_at_risk"],
            "share_at_risk": pros["share_at_risk"],
            **profile,
        }
        if asked.listed:
            found["risky_classes"] = risk_models.risky_classes(engine, classes, qis, asked.threshold, asked.listed)
        if asked.population is not None:
            found.update(risk_models.presence(engine, classes, asked.population))
    return found


def _measure(engine: Engine, counted: Counted, shown: str, qis: Sequence[str], cols: Mapping[str, str],
             sensitive: Sequence[str], c: float, distance: str | Mapping[str, str] | None,
             hierarchies: Mapping[str, str] | None, reference: str | Sequence[str] | None,
             risk: _Risk) -> dict[str, Any]:
    """:func:`measure_table` over the table's rows ``counted``."""
    hist, weight, group_cols = counted.table, counted.weight, [counted.cls]
    sizes_sql = render("models/class_sizes.sql.j2", source=hist, qis=group_cols, weight=weight)
    rows, classes, k, _dm, _at_risk = engine.one("metrics/class_summary.sql.j2",
                                                 {"threshold": risk.threshold}, sizes=sizes_sql)
    if not rows:
        raise DataError(shown, "is empty: there is nothing to measure")
    rows, classes, k = int(rows), int(classes), int(k)
    result: dict[str, Any] = {
        "table": shown,
        "qis": list(qis),
        "rows": rows,
        "classes": classes,
        "k": k,
        "class_sizes": _size_distribution(engine, sizes_sql),
        "risk": _risk(engine, counted, shown, qis, risk),
        "sensitive": {},
    }
    if risk.size is not None or risk.fraction is not None:
        # numpy (its models' numerics) is imported only where asked: 55 ms of every run's start
        from anonymizer.metrics import population as population_models
        size = population_models.population_size(rows, risk.size, risk.fraction)
        result["risk"]["population_uniqueness"] = population_models.uniqueness(
            population_models.class_size_histogram(engine, sizes_sql), size)
    ref_shown = shown
    if reference is not None:
        ref_parts = table_parts(reference)
        ref_shown, ref_rel = ".".join(ref_parts), qualified(*ref_parts)
        ref_cols = engine.columns(ref_rel, ref_shown)
        missing = [n for n in sensitive if n not in ref_cols]
        if missing:
            raise SpecError("reference", f"has no column {', '.join(map(repr, missing))} (the sensitive "
                                         f"attributes t-closeness compares): table {ref_shown} has "
                                         f"{', '.join(map(repr, ref_cols))}", ref_shown)
    models = []
    dists = {}
    for name in sensitive:
        dists[name] = _distance_for(name, cols[name], distance)
        models += [DistinctLDiversity(1, name), EntropyLDiversity(1, name),
                   RecursiveCLDiversity(float(c), 2, name), TCloseness(1.0, name, dists[name]),
                   AlphaKAnonymity(1.0, 1, name), DistinctLDiversity(2, name)]   # the last: its failing classes
    if models:
        hiers = dict(hierarchies or {})
        globs = {6 * i + 3: f"({global_sql(ref_rel, ident(name))})"
                 for i, name in enumerate(sensitive)} if reference is not None else None
        found = evaluate_all(engine, models, hist, group_cols, {n: ident(n) for n in sensitive},
                             globs=globs, hiers=hiers, weight=weight)
        for i, name in enumerate(sensitive):
            d, e, r, t, a, two = found[6 * i: 6 * i + 6]
            result["sensitive"][name] = {
                "homogeneous_classes": int(two.failing),   # one value: everyone in them shows theirs
                "distinct_l": int(d.figure),
                "entropy_l": float(e.figure),
                "recursive_l": int(r.figure),
                "c": float(c),
                "t": float(t.figure),
                "distance": dists[name],
                "reference": ref_shown,
                "alpha": float(a.figure),
            }
    return result



def record_risk(con: duckdb.DuckDBPyConnection, table: str | Sequence[str], qis: Sequence[str],
                population: str | Sequence[str] | None = None) -> duckdb.DuckDBPyRelation:
    """Every row of ``table`` with its record-level re-identification risk, as a DuckDB
    relation (nothing is read until it is): ``prosecutor_risk`` = 1/f_j and
    ``journalist_risk`` = 1/F_j, f_j and F_j being the rows of its equivalence class over
    ``qis`` in the table and in ``population`` (without one, the table itself: ARX's
    ``RiskModelSampleSummary``; see :mod:`anonymizer.metrics.risk`).

    Example:
        >>> con = duckdb.connect()
        >>> _ = con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1), (1), (2)) v(a)")
        >>> record_risk(con, "t", ["a"]).order("a, prosecutor_risk").fetchall()
        [(1, 0.5, 0.5), (1, 0.5, 0.5), (2, 1.0, 1.0)]

    Raises:
        SpecError: unknown or repeated QI columns, or the table already has a column named
            ``prosecutor_risk`` or ``journalist_risk``.
        DataError: a table does not exist, or ``population`` does not hold the table's
            classes (:func:`anonymizer.metrics.risk.risk_profile`).
    """
    parts = table_parts(table)
    shown, rel = ".".join(parts), qualified(*parts)
    engine = Engine(con)
    cols = engine.columns(rel, shown)
    _check_columns(cols, qis, "qis", shown)
    taken = [name for name in ("prosecutor_risk", "journalist_risk") if name in cols]
    if taken:
        raise SpecError("table", f"{shown} already has a column {', '.join(map(repr, taken))}, the name of "
                                 f"a risk column; select the table's other columns into a view first", shown)
    pop = population_of(engine, population, qis, cols)
    if pop is not None:
        risk_models.risk_profile(engine, risk_models.classes_sql(rel, pop.qis, population=pop), 1.0, shown, pop)
    return con.sql(risk_models.record_risk_sql(rel, qis, pop))
