"""What every metric reads: the candidate contract's QI descriptions and class statistics
(see :mod:`anonymizer.metrics` for the contract)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.errors import SpecError

#: the class id column of a candidate.
CID = ident("__cid")


def qi(i: int, dom: str, numeric: bool, m: int, sized: bool = False,
       bounds: tuple[str, str] | None = None, hier: str | None = None) -> dict[str, Any]:
    """The description of QI ``i`` under the candidate contract's column names.

    ``sized``: the candidate has ``__n{i}``, the number of domain values a cell covers
    (value-set generalization covers fewer than ``hi - lo + 1``); otherwise the cell
    covers the whole code range. ``bounds``: for a numeric QI, SQL over the candidate's
    columns giving, as DOUBLE on the domain's ``num`` scale, the low and high bound a cell's
    label states (a hierarchy node's interval, wider than the values it holds); NCP then
    reads these (NULL: unbounded) instead of the covered codes' numbers. ``hier``: the QI's
    hierarchy table ``(code, level, lo, hi, ..)``, which paper 000's NCP convention reads
    (:mod:`anonymizer.metrics.ncp`).
    """
    size = ident(f"__n{i}") if sized else f"({ident(f'__hi{i}')} - {ident(f'__lo{i}')} + 1)"
    described = {"lo_col": ident(f"__lo{i}"), "hi_col": ident(f"__hi{i}"), "size": size, "dom": dom,
                 "numeric": bool(numeric), "m": int(m)}
    if bounds and numeric:
        described["low"], described["high"] = bounds
    if hier:
        described["hier"] = hier
    return described


def domain_params(qis: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Bound parameters ``m<i>`` (domain sizes) of the metric templates."""
    return {f"m{i}": int(q["m"]) for i, q in enumerate(qis)}


@dataclass(frozen=True)
class ClassStats:
    """Table-level figures of the candidate's classes (read as one row)."""

    released: int
    classes: int
    smallest: int
    sum_squares: int
    suppressed: int
    total: int


def class_stats(engine: Engine, candidate: str, total_rows: int, weight: str | None = None) -> ClassStats:
    """Released rows, classes, smallest class and sum of squared class sizes, in SQL.
    ``weight``: the column of row counts when ``candidate`` is a summary of its cells."""
    if total_rows <= 0:
        raise SpecError("total_rows", "must be a positive row count", total_rows)
    sizes = render("models/class_sizes.sql.j2", source=candidate, qis=[CID], weight=weight)
    released, classes, smallest, dm, _risk = engine.one(
        "metrics/class_summary.sql.j2", {"threshold": 1.0}, sizes=sizes)
    released = int(released or 0)
    if released > total_rows:
        raise SpecError("total_rows", f"is below the candidate's {released} rows", total_rows)
    return ClassStats(released, int(classes), int(smallest or 0), int(dm or 0),
                      total_rows - released, total_rows)
