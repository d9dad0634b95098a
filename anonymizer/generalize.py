"""Turn an algorithm's classes into the candidate release with readable generalized values.

Each quasi-identifier ``age`` is published as ``age`` (a label: the value, ``[low, high]``,
a hierarchy node or a value set ``{a, b}``) with machine-readable bounds: ``age_low`` and
``age_high`` for numeric QIs, ``age_values`` (the list of covered values, in the
generalization order) for categorical ones. ``eq_class`` numbers the equivalence classes.
Sensitive and insensitive columns pass through under their names; identifiers are dropped.

Two forms, chosen by the algorithm's result:

- local (Mondrian) classes: a numeric QI becomes the class's range ``[min, max]``; a
  categorical QI becomes the set of values the class holds (value-set generalization; named
  after the hierarchy node when the set is exactly that node's leaves);
- full-domain levels: every QI becomes its hierarchy node at the chosen level.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import Engine
from .errors import SpecError
from .prepare import Plan
from .sqlnames import ident

EQ_CLASS = "eq_class"


@dataclass
class Candidate:
    """The candidate table in the work schema and the names it publishes."""

    table: str                    # quoted work table (internal and published columns)
    published: list[str]          # published column names, in order
    qi_columns: list[str]         # the published label column of each QI
    classes: int
    rows: int


def published_names(plan: Plan) -> tuple[list[str], list[str]]:
    """The published column names (and the QI label names) of a plan, checked for clashes."""
    names, labels = [EQ_CLASS], []
    for q in plan.qis:
        labels.append(q.name)
        names += [q.name] + ([f"{q.name}_low", f"{q.name}_high"] if q.numeric else [f"{q.name}_values"])
    names += [k.column.name for k in plan.sensitive + plan.passthrough]
    check_clashes(names, "a generated output column (eq_class, <qi>_low, <qi>_high, <qi>_values); rename the "
                         "column or give it another role")
    return names, labels


def check_clashes(names: list[str], generated: str) -> None:
    """A SpecError naming the first output column that another one clashes with (names are
    case-insensitive); ``generated`` says what the generated columns are."""
    seen: set[str] = set()
    for n in names:
        if n.lower() in seen:
            raise SpecError(f"columns.{n}", f"clashes with {generated}")
        seen.add(n.lower())


def build_candidate(engine: Engine, plan: Plan, assign: str, levels: dict[str, int] | None = None,
                    level_columns: bool = False) -> Candidate:
    """Label every QI range of ``assign`` and join the candidate release.

    Args:
        assign: quoted table (__rid, __cid, __lo{i}, __hi{i}) from an algorithm.
        levels: for full-domain results, the hierarchy level of each QI (labels are that
            level's nodes); ``None`` for Mondrian-style range labels.
        level_columns: labels are hierarchy nodes at each row's own level, the ``__lv<i>``
            columns of ``assign`` (lattice searches, partial-domain generalization).
    """
    published, labels = published_names(plan)
    by_set = [q for q in plan.qis if levels is None and not level_columns and not q.numeric]
    class_values = engine.work("class_values") if by_set else None
    if by_set:
        engine.run("generalize/class_values.sql.j2", target=class_values, assign=assign, base=plan.base,
                   qis=[{"i": q.index} for q in by_set])
    qis = []
    for q in plan.qis:
        target = engine.work(f"labels{q.index}")
        ctx = dict(target=target, assign=assign, lo_col=f"__lo{q.index}", hi_col=f"__hi{q.index}",
                   dom=q.dom, hier=q.hier)
        if levels is not None:
            engine.run("generalize/level_labels.sql.j2", {"level": levels[q.name]}, **ctx)
        elif level_columns:
            engine.run("generalize/level_labels.sql.j2", lv_col=f"__lv{q.index}", **ctx)
        elif q in by_set:
            engine.run("generalize/set_labels.sql.j2", target=target, class_values=class_values, i=q.index,
                       dom=q.dom, hier=q.hier)
        else:
            engine.run("generalize/range_labels.sql.j2", **ctx)
        qis.append({"i": q.index, "labels": target, "numeric": q.numeric, "by_set": q in by_set,
                    "out": ident(q.name),
                    "out_low": ident(f"{q.name}_low"), "out_high": ident(f"{q.name}_high"),
                    "out_values": ident(f"{q.name}_values")})
    kept = [{"internal": k.internal, "out": ident(k.column.name)} for k in plan.sensitive + plan.passthrough]
    table = engine.work("candidate")
    engine.run("generalize/candidate.sql.j2", plan.key.params(), target=table, base=plan.base, assign=assign, qis=qis,
               kept=kept, eq_class=ident(EQ_CLASS), class_values=class_values)
    rows, classes = engine.execute(f"SELECT count(*), count(DISTINCT __cid) FROM {table}").fetchone()
    return Candidate(table, published, labels, classes, rows)
