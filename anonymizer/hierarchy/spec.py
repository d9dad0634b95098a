"""The ``hierarchy`` field of a column in a release spec, validated completely.

Syntax (YAML, under ``columns.<name>.hierarchy``)::

    hierarchy: ages.csv                                   # ARX file value;level1;...;*
    hierarchy: {csv: ages.csv, delimiter: ';'}
    hierarchy: {intervals: [5, 10, 20]}                   # fixed widths per level
    hierarchy: {masking: true}                            # or {masking: 3}: levels masked
    hierarchy: {ordered: [Preschool, 1st-4th, 5th-6th, 7th-8th], sizes: [2, 4]}
    hierarchy: {dates: [month, year, decade]}
    hierarchy: {cgh: {min_width: 10, range: [1, 100]}}   # paper 001, sec. III.A
    hierarchy: {dbgh: {min_width: 10, range: [1, 100]}}  # paper 001, Algorithm 1
    hierarchy: {cbgh: {min_width: 10, range: [1, 100]}}  # paper 001, Algorithm 2
    hierarchy: {iotf: {nodes: [24, 16, 4], range: [1, 100]}}  # paper 001's baseline, Table 4

Errors are :class:`~anonymizer.errors.SpecError` naming the field, e.g.
``columns.age.hierarchy.cgh.min_width``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonymizer.errors import SpecError
from anonymizer.fields import path_or_uri
from anonymizer.numbers import is_number

KINDS = ("csv", "intervals", "masking", "ordered", "dates", "cgh", "dbgh", "cbgh", "iotf")
NUMERIC_KINDS = ("intervals", "cgh", "dbgh", "cbgh", "iotf")
PAPER_KINDS = ("cgh", "dbgh", "cbgh")
CATEGORICAL_KINDS = ("masking", "ordered")
DATE_UNITS = ("day", "month", "quarter", "year", "decade", "century")
NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL")
INTEGER_TYPES = NUMERIC_TYPES[:9]
FLOAT_TYPES = NUMERIC_TYPES[9:12]   # the types that hold NaN and infinity
IOTF_NODES = (24, 16, 4)  # paper 001, Table 4: IOTF's nodes at levels 1-3 (hours-per-week)
_OPTIONS = {"csv": {"delimiter"}, "ordered": {"sizes"}}


@dataclass(frozen=True)
class Hierarchy:
    """A generalization hierarchy of one column; ``kind`` says which fields apply.

    - ``csv``: ``path`` (a local file) or ``uri`` (one Spark reads: ``s3a://``, ``hdfs://``, ...),
      ``delimiter`` (an ARX file ``value;level1;...``);
    - ``intervals``: ``widths`` (one fixed width per level);
    - ``masking``: ``levels`` (``None``: mask up to the longest value);
    - ``ordered``: ``values`` (the declared order), ``sizes`` (values per group, per level);
    - ``dates``: ``units`` (increasing truncation units);
    - ``cgh``, ``dbgh``, ``cbgh``: ``min_width``, ``range`` (``None``: the data's min and max);
    - ``iotf``: ``nodes`` (per level, bottom up, decreasing), ``range``.
    """

    kind: str
    path: Path | None = None
    widths: tuple[float, ...] = ()
    delimiter: str = ";"
    levels: int | None = None
    values: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    units: tuple[str, ...] = ()
    min_width: float | None = None
    range: tuple[float, float] | None = None
    nodes: tuple[int, ...] = ()
    uri: str | None = None

    @property
    def location(self) -> str | Path | None:
        """Where a CSV hierarchy is read from: its URI or its local path."""
        return self.uri or self.path


def parse_hierarchy(value: Any, where: str, base: Path) -> Hierarchy:
    """Validate a ``hierarchy`` field; a bare string is a CSV path (relative to ``base``).

    Example:
        >>> h = parse_hierarchy({"cgh": {"min_width": 10, "range": [1, 100]}}, "h", Path("."))
        >>> h.kind, h.min_width, h.range
        ('cgh', 10.0, (1.0, 100.0))
        >>> try:
        ...     parse_hierarchy({"dates": ["year", "month"]}, "columns.d.hierarchy", Path("."))
        ... except SpecError as err:
        ...     print(err.field)
        columns.d.hierarchy.dates
    """
    if isinstance(value, str):
        value = {"csv": value}
    if not isinstance(value, dict):
        raise SpecError(where, f"must be a CSV path or a mapping with one of {', '.join(KINDS)}", value)
    kinds = [k for k in KINDS if k in value]
    if len(kinds) != 1:
        raise SpecError(where, f"needs exactly one of {', '.join(KINDS)}", value)
    kind = kinds[0]
    extra = set(value) - {kind} - _OPTIONS.get(kind, set())
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", f"is not an option of a {kind} hierarchy")
    return _PARSERS[kind](value, where, base)


def _csv(v: dict, where: str, base: Path) -> Hierarchy:
    """A local CSV file (relative to ``base``; a ``file://`` URI names one too), or a URI of
    another scheme, which Spark reads."""
    delimiter = v.get("delimiter", ";")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise SpecError(f"{where}.delimiter", "must be one character", delimiter)
    path, uri = path_or_uri(str(v["csv"]), base)
    if path is None:
        return Hierarchy("csv", uri=uri, delimiter=delimiter)
    if not path.is_file():
        raise SpecError(f"{where}.csv", "no such file", str(path))
    return Hierarchy("csv", path=path, delimiter=delimiter)


def _intervals(v: dict, where: str, base: Path) -> Hierarchy:
    widths = v["intervals"]
    if not isinstance(widths, list) or not widths or not all(_positive(w) for w in widths) \
            or list(widths) != sorted(widths):
        raise SpecError(f"{where}.intervals", "must be a list of increasing positive widths", widths)
    return Hierarchy("intervals", widths=tuple(float(w) for w in widths))


def _masking(v: dict, where: str, base: Path) -> Hierarchy:
    levels = v["masking"]
    if levels is True:
        return Hierarchy("masking")
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 1:
        raise SpecError(f"{where}.masking", "must be true (mask up to the longest value) or a number of levels >= 1",
                        levels)
    return Hierarchy("masking", levels=levels)


def _ordered(v: dict, where: str, base: Path) -> Hierarchy:
    values = v["ordered"]
    if not isinstance(values, list) or len(values) < 2 or len(set(map(str, values))) != len(values):
        raise SpecError(f"{where}.ordered", "must be a list of at least two distinct values, in generalization order",
                        values)
    sizes = v.get("sizes")
    if sizes is None:
        raise SpecError(f"{where}.sizes", "is required: values per group at each level, e.g. [2, 4]")
    if (not isinstance(sizes, list) or not sizes or not all(_whole(s) and s >= 2 for s in sizes)
            or sizes != sorted(set(sizes)) or sizes[-1] >= len(values)):
        raise SpecError(f"{where}.sizes", f"must be increasing whole numbers >= 2, below the number of values "
                                     f"({len(values)}; a group of all of them is the top '*')", sizes)
    return Hierarchy("ordered", values=tuple(str(x) for x in values), sizes=tuple(sizes))


def _dates(v: dict, where: str, base: Path) -> Hierarchy:
    units = v["dates"]
    if (not isinstance(units, list) or not units or not all(u in DATE_UNITS for u in units)
            or units != sorted(set(units), key=DATE_UNITS.index)):
        raise SpecError(f"{where}.dates", f"must be distinct units in increasing order from {', '.join(DATE_UNITS)}",
                        units)
    return Hierarchy("dates", units=tuple(units))


def _paper(v: dict, where: str, base: Path) -> Hierarchy:
    kind = next(k for k in PAPER_KINDS if k in v)
    options, where = v[kind], f"{where}.{kind}"
    if not isinstance(options, dict):
        raise SpecError(where, "must be a mapping {min_width: <number>, range: [<low>, <high>]}", options)
    extra = set(options) - {"min_width", "range"}
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", "is not an option (options: min_width, range)")
    min_width = options.get("min_width")
    if not _positive(min_width):
        raise SpecError(f"{where}.min_width", "is required: the narrowest interval width, a positive number",
                        min_width)
    return Hierarchy(kind, min_width=float(min_width), range=_range(options.get("range"), where))


def _range(rng: Any, where: str) -> tuple[float, float] | None:
    """The ``range`` option of the numeric builders: the root interval [low, high]."""
    if rng is not None and (not isinstance(rng, list) or len(rng) != 2 or not all(_number(x) for x in rng)
                            or rng[0] >= rng[1]):
        raise SpecError(f"{where}.range", "must be [low, high] with low < high (default: the data's min and max)",
                        rng)
    return None if rng is None else (float(rng[0]), float(rng[1]))


def _iotf(v: dict, where: str, base: Path) -> Hierarchy:
    """Paper 001's baseline IOTF (:mod:`anonymizer.hierarchy.iotf`): ``{iotf: {nodes, range}}``,
    both optional (``{iotf: {}}`` takes Table 4's 24, 16, 4 nodes)."""
    options, where = v["iotf"], f"{where}.iotf"
    if not isinstance(options, dict):
        raise SpecError(where, "must be a mapping {nodes: [<level 1>, <level 2>, ...], range: [<low>, <high>]}",
                        options)
    extra = set(options) - {"nodes", "range"}
    if extra:
        raise SpecError(f"{where}.{sorted(extra)[0]}", "is not an option (options: nodes, range)")
    nodes = options.get("nodes", list(IOTF_NODES))
    if (not isinstance(nodes, list) or not nodes or not all(_whole(n) and n >= 2 for n in nodes)
            or nodes != sorted(set(nodes), reverse=True)):
        raise SpecError(f"{where}.nodes", "must be decreasing whole numbers >= 2: the nodes of levels 1, 2, ... "
                                          "(the top '*' is one node)", nodes)
    return Hierarchy("iotf", nodes=tuple(nodes), range=_range(options.get("range"), where))


_PARSERS = {"csv": _csv, "intervals": _intervals, "masking": _masking, "ordered": _ordered, "dates": _dates,
            "cgh": _paper, "dbgh": _paper, "cbgh": _paper, "iotf": _iotf}


def _number(x: Any) -> bool:
    """A finite number (NaN and infinities are no width, bound or range)."""
    return is_number(x)


def _positive(x: Any) -> bool:
    return _number(x) and x > 0


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# -- types -------------------------------------------------------------------------
def check_role(h: Hierarchy, where: str, role: str, declared: str | None) -> None:
    """Spec-time checks of a hierarchy against the column's role and declared type."""
    if role not in ("quasi", "sensitive"):
        raise SpecError(where, "only quasi-identifiers and sensitive columns (for hierarchical t-closeness) "
                               "take a hierarchy")
    if role == "sensitive" and h.kind != "csv":
        raise SpecError(where, "a sensitive column takes only a csv hierarchy (for hierarchical t-closeness)")
    if h.kind in NUMERIC_KINDS and declared == "categorical":
        raise SpecError(where, f"{h.kind} needs a numeric column")
    if h.kind in CATEGORICAL_KINDS and declared == "numeric":
        raise SpecError(where, f"{h.kind} makes the column categorical; drop 'type: numeric'")


def is_numeric_type(db_type: str) -> bool:
    """Whether a DuckDB type is a number (``DECIMAL(10,2)`` too)."""
    return db_type.split("(")[0].upper() in NUMERIC_TYPES


def is_temporal_type(db_type: str) -> bool:
    """Whether a DuckDB type is a DATE or a TIMESTAMP (of any precision or zone)."""
    return db_type.upper().startswith(("DATE", "TIMESTAMP"))


def column_type(h: Hierarchy | None, where: str, db_type: str, declared: str | None, quasi: bool = False) -> str:
    """The QI type (numeric or categorical) of a column of DuckDB type ``db_type``.

    Intervals and the paper's builders need a number, dates a DATE or TIMESTAMP; masking
    and ordered groups make the column categorical (a zip code stored as INTEGER is masked
    as text). A DATE or TIMESTAMP quasi-identifier without a hierarchy or with a dates
    hierarchy is numeric, ordered in time (its ``num`` is the epoch in seconds), so it
    generalizes to a range with bounds unless it is declared ``type: categorical``.

    Example:
        >>> column_type(Hierarchy("masking"), "columns.zip.hierarchy", "INTEGER", None)
        'categorical'
    """
    is_num = is_numeric_type(db_type)
    if h is not None and h.kind in NUMERIC_KINDS and not is_num:
        raise SpecError(where, f"{h.kind} needs a numeric column, not {db_type}")
    if h is not None and h.kind == "dates" and not is_temporal_type(db_type):
        raise SpecError(where, f"dates need a DATE or TIMESTAMP column, not {db_type}")
    if h is not None and h.kind in CATEGORICAL_KINDS:
        return "categorical"
    temporal = quasi and is_temporal_type(db_type) and declared != "categorical"
    if h is not None and h.kind == "dates":
        return "numeric" if temporal else "categorical"
    return declared or ("numeric" if is_num or temporal else "categorical")
