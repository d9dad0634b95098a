"""Turn an algorithm's classes into the candidate release: a per-row table and a class table
with what belongs to a class, published as the release's view (their join on ``eq_class``,
as wide as the source) and the view ``<view>_classes``.

Per row (the release's view): ``eq_class`` numbers the equivalence classes; each
quasi-identifier ``age`` is published as ``age``, a label (the value, ``[low, high]``, a
hierarchy node or a value set ``{a, b}``), and a numeric or date QI also as its bounds
``age_low`` and ``age_high`` (the least and greatest value the label covers). Sensitive and
insensitive columns pass through under their names; identifiers are dropped.

Per class (the view ``<view>_classes``, keyed by ``eq_class``): ``class_size``, and per QI
the label, the bounds (numeric and date QIs), ``<qi>_level`` (the label's hierarchy level,
NULL for a range or a value set that is no node) and, for a categorical QI, ``<qi>_values``
(the values of a value-set label; NULL for a hierarchy node, whose values are the
hierarchy's leaves under it) and ``<qi>_count`` (how many of the QI's values the label
covers: the size NCP charges). A reader who wants the values on every row joins the two on
``eq_class``. Labels are built from one row per class, so labelling costs classes, not rows;
and they are stored once per class: the per-row table holds only ``eq_class`` and the kept
columns, and the release's view joins it with the class table (a row's labels and bounds are
its class's), so writing a release costs the kept columns, not six label strings per row.

How a class's label is chosen, by the algorithm's result and the QI:

- full-domain levels (and the lattice searches' per-class levels): the QI's hierarchy node
  at the level;
- local classes (Mondrian), QI with a declared hierarchy (masking, dates, intervals, a CSV
  file, the paper-001 builders): the lowest node of that hierarchy covering the class's
  values (``213**``, ``1987-Q2``, ``[20, 39]``);
- local classes, no declared hierarchy (or ``algorithm.labels: values``): a numeric or date QI becomes the class's range
  ``[min, max]``; a categorical QI the set of values the class holds (``*`` when that is
  every value).

The class then generalizes to what its label covers: the loss metrics read, from the class table, the label's
code range (``__lo{i}``, ``__hi{i}``) and the number of values it covers (``__n{i}``).
"""

from __future__ import annotations

from contextlib import nullcontext

from dataclasses import asdict, dataclass

from anonymizer.base_rows import written
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import QI, Plan
from anonymizer.families.generalized import FAMILY
from anonymizer.engine.names import ident, in_catalog
from anonymizer.families.generalized import options
from anonymizer.families.generalized.result import Packing
from anonymizer.release.publish import EQ_CLASS

CLASS_SIZE = "class_size"
#: the part name of the class table: view ``<view>_classes``, snapshot ``<release>__v<N>__classes``
CLASSES = FAMILY.parts[0]   # the class table, view <view>_classes


@dataclass
class Candidate:
    """The candidate tables in the work schema and the names they publish."""

    table: str                    # quoted table, one row per released row: eq_class, kept columns (a work
    #                               table, or where the release publishes in place: Plan.in_place)
    row_columns: list[str]        # its published column names, in order
    view_columns: list[tuple[str, str]]   # the release view's columns in order: (side, name),
    #                               side "rows" (the per-row table) or CLASSES (the class table)
    qi_columns: list[str]         # the published label column of each QI
    classes: int
    rows: int
    class_table: str              # quoted work table, one row per class
    class_columns: list[str]      # its published column names

    @property
    def published(self) -> list[str]:
        """The release view's column names, in order."""
        return [name for _, name in self.view_columns]

    @property
    def grouping(self) -> list[str]:
        """The columns whose values form what a reader can tell apart: the class id. The view
        gives every row of a class its class's labels (the class table is keyed by
        ``eq_class``), so grouping by ``eq_class`` with the labels makes the same groups as
        ``eq_class`` alone, and ``eq_class`` refines the labels (two classes may share them).
        The gate checks every model on these groups."""
        return [EQ_CLASS]


def _bounded(q: QI) -> bool:
    return q.numeric


def published_names(plan: Plan) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """The release view's columns (``(side, name)``, see :class:`Candidate`), the QI label
    names, and the class table's column names, each checked for clashes."""
    view, labels, classes = [("rows", EQ_CLASS)], [], [EQ_CLASS, CLASS_SIZE]
    for q in plan.qis:
        bounds = [f"{q.name}_low", f"{q.name}_high"] if _bounded(q) else []
        labels.append(q.name)
        view += [(CLASSES, n) for n in [q.name] + bounds]
        classes += [q.name] + bounds + [f"{q.name}_level"] + ([] if _bounded(q) else [f"{q.name}_values",
                                                                                    f"{q.name}_count"])
    view += [("rows", k.column.name) for k in plan.sensitive + plan.passthrough]
    check_clashes([n for _, n in view], "a generated output column (eq_class, <qi>_low, <qi>_high); rename the "
                                        "column or give it another role")
    check_clashes(classes, "a column of the class table (eq_class, class_size, <qi>_low, <qi>_high, <qi>_level, "
                           "<qi>_values, <qi>_count); rename the column")
    return view, labels, classes


def check_clashes(names: list[str], generated: str) -> None:
    """A SpecError naming the first output column that another one clashes with (names are
    case-insensitive); ``generated`` says what the generated columns are."""
    seen: set[str] = set()
    for n in names:
        if n.lower() in seen:
            raise SpecError(f"columns.{n}", f"clashes with {generated}")
        seen.add(n.lower())


def _label_key(q: QI, levels: dict[str, int] | None, level_columns: bool, labels: str) -> str:
    """How QI ``q``'s classes are labelled (module docstring): ``level``, ``node``, ``range``
    or ``set``; ``labels`` is the spec's ``algorithm.labels`` (``values``: no nodes for local
    classes)."""
    if levels is not None or level_columns:
        return "level"
    if q.column.hierarchy is not None and labels == "hierarchy":
        return "node"
    return "range" if q.numeric else "set"


def set_label_params(q: QI) -> dict[str, int]:
    """Bound ``$m<i>`` and ``$top<i>`` of ``set_labels.sql.j2`` for QI ``q``: its domain size
    (a set of every value reads ``*``) and its top level."""
    return {f"m{q.index}": q.m, f"top{q.index}": q.height}


def _classes(engine: Engine, plan: Plan, keys: dict[int, str], assign: str, level_columns: bool,
             levels: dict[str, int] | None, cells: str | None) -> str:
    """The class table of :func:`build_candidate`: each class's code ranges, then its labels."""
    ranges = engine.work("class_ranges")
    engine.run("families/generalized/form/class_ranges.sql.j2", target=ranges, assign=assign, base=plan.base, cells=cells,
               qis=[{"i": q.index, "by_set": keys[q.index] == "set", "lv": level_columns} for q in plan.qis])
    qis, params = [], {}
    for q in plan.qis:
        key = keys[q.index]
        ctx = dict(target=None, class_ranges=ranges, i=q.index)
        if key == "level":
            if not level_columns:
                assert levels is not None   # _label_key: "level" without level columns means levels
                params[f"level{q.index}"] = levels[q.name]
            label_sql = engine.sql("families/generalized/form/level_labels.sql.j2", hier=q.hier, per_class=level_columns,
                                **ctx)
        elif key == "node":
            label_sql = engine.sql("families/generalized/form/node_labels.sql.j2", hier=q.hier, **ctx)
        elif key == "range":
            label_sql = engine.sql("families/generalized/form/range_labels.sql.j2", dom=q.dom, **ctx)
        else:
            params |= set_label_params(q)
            label_sql = engine.sql("families/generalized/form/set_labels.sql.j2", dom=q.dom, **ctx)
        qis.append({"i": q.index, "labels": ident(f"__labels{q.index}"), "labels_sql": label_sql,
                    "key": "set" if key == "set" else "range",
                    "numeric": _bounded(q), "out": ident(q.name),
                    "out_low": ident(f"{q.name}_low"), "out_high": ident(f"{q.name}_high"),
                    "out_level": ident(f"{q.name}_level"), "out_values": ident(f"{q.name}_values"),
                    "out_count": ident(f"{q.name}_count")})
    classes = engine.work("classes")
    engine.run("families/generalized/form/classes.sql.j2", params or None, target=classes, class_ranges=ranges, qis=qis,
               eq_class=ident(EQ_CLASS), class_size=ident(CLASS_SIZE))
    return classes


def drop_candidate(engine: Engine) -> None:
    """Drop the tables :func:`build_candidate` wrote, to build the candidate again."""
    engine.release_tables(*(engine.work(name) for name in ("class_ranges", "classes", "cell_classes", "candidate")),
                          always=True)


def build_candidate(engine: Engine, plan: Plan, assign: str, levels: dict[str, int] | None = None,
                    level_columns: bool = False, cells: str | None = None, packing: Packing | None = None) -> Candidate:
    """Label every class of ``assign`` and join the candidate release and its class table.

    The candidate's rows are its classes' sizes summed (never a count of its rows: verify
    counts them, and checks the two agree).

    Args:
        assign: quoted table (__rid, __cid, __lo{i}, __hi{i}) from an algorithm.
        levels: for full-domain results, the hierarchy level of each QI (labels are that
            level's nodes); ``None`` for local classes.
        level_columns: labels are hierarchy nodes at each class's own level, the ``__lv<i>``
            columns of ``assign`` (lattice searches, partial-domain generalization).
        cells: the algorithm's class cells (:attr:`AlgorithmResult.cells`), read instead of
            ``assign`` joined with the rows to label the classes.
        packing: given, ``assign`` is not written: the rows find their class among ``cells``
            by their QI codes (:attr:`AlgorithmResult.packing`).
    """
    view_columns, labels, class_columns = published_names(plan)
    coded = plan.coded if packing else None   # the rows coded by the candidate itself (base_rows.py)
    if coded is None:
        written(engine, plan)
    keys = {q.index: _label_key(q, levels, level_columns, options.of(plan).labels) for q in plan.qis}
    with engine.for_aggregate(cells, *plan.aggregates) if cells else nullcontext(engine) as on:   # Spark: its driver
        classes = _classes(on, plan, keys, assign, level_columns, levels, cells)
        count, rows = on.execute(f"SELECT count(*), coalesce(sum({ident(CLASS_SIZE)}), 0)::BIGINT FROM {classes}",
                                 template="<class sizes>").fetchall()[0]
        keyed = None
        if packing and packing.weights:   # the cells as the rows' join reads them, with their classes
            keyed = on.work("cell_classes")
            on.run("families/generalized/form/cell_classes.sql.j2", target=keyed, cells=cells, classes=classes,
                   eq_class=ident(EQ_CLASS), qis=packing.qis, weights=packing.weights)
    kept = [{"internal": k.internal, "out": ident(k.column.name)} for k in plan.sensitive + plan.passthrough]
    table, out = plan.in_place or engine.work("candidate"), plan.target.output
    params = {} if plan.in_place else plan.key.params()   # in place, the rows' order is their content's
    params.update(coded.lists if coded else {})
    engine.run("families/generalized/form/candidate.sql.j2", params or None, target=table, base=plan.base,
               assign=assign, **({"coded": coded.context} if coded else {}),
               classes=classes, kept=kept, eq_class=ident(EQ_CLASS), cells=keyed or cells, keyed=keyed is not None,
               packing=packing and asdict(packing),
               in_place=plan.in_place is not None, schema=in_catalog(out.catalog, out.snapshot_schema), using=out.format)
    return Candidate(table, [n for side, n in view_columns if side == "rows"], view_columns, labels, count, rows,
                     classes, class_columns)
