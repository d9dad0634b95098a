"""The report's figures, computed in SQL: what Python reads are aggregates only.

* the distribution of each QI and sensitive attribute, in the source and in the release: a
  frequency table of its :data:`TOP` most frequent values and the rest
  (``report/value_counts.sql.j2``), or, for a numeric or date column, an equal-width
  histogram of :data:`BINS` bins (``report/numeric_bins.sql.j2``);
* the release's privacy figures from :func:`anonymizer.measure.measure_table` (k, the class
  sizes, the risk profile: prosecutor risk after El Emam and Dankar 2008, and whatever
  further risk figures it returns);
* the records per prosecutor risk 1/|E| (``report/record_risk.sql.j2``), in
  :data:`RISK_BINS` bins over (0, 1].
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.measure import measure_table
from anonymizer.hierarchy.spec import is_numeric_type, is_temporal_type

#: values listed one by one in a frequency table; the rest are summed as "other"
TOP = 12
#: bins of a numeric column's histogram
BINS = 20
#: bins of the record-risk histogram over (0, 1]
RISK_BINS = 10
#: the temporary view the report reads a release through (``report/released_view.sql.j2``)
VIEW = "_anon_report_release"


def view_parts(engine: Engine) -> tuple[str, ...]:
    """The name of :data:`VIEW`, the report's temporary view, on ``engine``, as its parts."""
    return (*engine.capabilities.temp_schema, VIEW)


def distribution(engine: Engine, relation: str, column: str, col_type: str) -> dict[str, Any]:
    """The distribution of ``column`` (a name) of the quoted ``relation``.

    Returns ``{"kind": "bins", "rows", "missing", "bins": [{low, high, rows}]}`` for a
    numeric column (a date column's edges as datetimes, and ``unit``, one day: the width of
    a bin whose edges are equal), else ``{"kind": "values", "rows", "distinct", "values": [{value, rows}]}``
    with the missing value labelled ``(missing)`` and the values beyond the :data:`TOP`
    most frequent summed in one entry ``other (N values)``.
    """
    temporal = is_temporal_type(col_type)
    if is_numeric_type(col_type) or temporal:
        found = engine.rows("report/numeric_bins.sql.j2", {"bins": BINS}, relation=relation, column=ident(column),
                            temporal=temporal)
        edge: Callable[[Any], Any] = ((lambda x: datetime.fromtimestamp(float(x), timezone.utc).replace(tzinfo=None))
                                      if temporal else float)
        bins = [{"low": edge(lo), "high": edge(hi), "rows": int(n)} for b, lo, hi, n in found if b is not None]
        missing = sum(int(n) for b, _, _, n in found if b is None)
        return {"kind": "bins", "rows": missing + sum(b["rows"] for b in bins), "missing": missing, "bins": bins,
                **({"unit": timedelta(days=1)} if temporal else {})}
    found = engine.rows("report/value_counts.sql.j2", {"top": TOP}, relation=relation, column=ident(column))
    values = [{"value": value if listed and value is not None else "(missing)" if listed else f"other ({count} values)",
               "rows": int(n)} for value, listed, n, count in found]
    return {"kind": "values", "rows": sum(v["rows"] for v in values), "distinct": sum(int(c) for *_, c in found),
            "values": values}


def record_risk(engine: Engine, relation: str, qis: Sequence[str]) -> list[dict[str, Any]]:
    """Records and classes per bin of prosecutor risk 1/|E| (E: a record's class over ``qis``)."""
    sizes = render("models/class_sizes.sql.j2", source=relation, qis=[ident(q) for q in qis])
    return [{"low": float(lo), "high": float(hi), "records": int(r), "classes": int(c)}
            for _, lo, hi, r, c in engine.rows("report/record_risk.sql.j2", {"bins": RISK_BINS}, sizes=sizes)]


def gather(engine: Engine, released: str, source: str | None, quasi: Sequence[str],
           sensitive: Sequence[str], population: Mapping[str, Any] | None = None,
           passed: Sequence[str] = ()) -> dict[str, Any]:
    """Every figure the page shows that is not in the audit row, read from ``released`` (the
    quoted relation a reader of the release sees, :data:`VIEW`) and ``source`` (the quoted
    source table, or ``None`` when it is not there any more).

    Returns ``{"attributes": [{name, role, before, after}], "measured": measure_table(...),
    "record_risk": [...]}``; ``before``/``after`` are :func:`distribution`'s, or ``None``
    where the column is not in that table (an anatomy release keeps its sensitive values
    in a second table). ``population``: ``{"population_size": N}`` or ``{"sampling_fraction":
    f}``, for measure_table's population uniqueness estimates (none without). ``passed``: the
    passed-through columns, listed with role ``passed through`` (published as they are).
    """
    after_cols = _by_name(engine.columns(released))
    before_cols = _by_name(engine.columns(source)) if source is not None else {}

    def shown(relation: str | None, cols: dict[str, tuple[str, str]], name: str) -> dict[str, Any] | None:
        return distribution(engine, relation, *cols[name.lower()]) if name.lower() in cols else None

    attributes = [{"name": name, "role": role, "before": shown(source, before_cols, name),
                   "after": shown(released, after_cols, name)}
                  for role, names in (("quasi-identifier", quasi), ("sensitive", sensitive), ("passed through", passed))
                  for name in names]
    qis = [after_cols[q.lower()][0] for q in quasi if q.lower() in after_cols]
    held = [after_cols[s.lower()][0] for s in sensitive if s.lower() in after_cols]   # declared on or not
    return {"attributes": attributes,
            "measured": measure_table(engine.con, view_parts(engine), qis, held, **(population or {})),
            "record_risk": record_risk(engine, released, qis)}


def _by_name(cols: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Column name, case folded -> (name, type): a spec names columns case-insensitively."""
    return {name.lower(): (name, col_type) for name, col_type in cols.items()}
