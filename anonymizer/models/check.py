"""Check privacy models in SQL: per-class results aggregated to one row per model.

Every model reads a *histogram* ``(gid, s, n)`` (see :mod:`.base`): :func:`histogram_sql`
builds it from a table, :func:`model_sql` renders one model's per-class ``SELECT gid,
figure, ok`` over it, and :func:`evaluate` / :func:`evaluate_all` wrap those in a single
statement that aggregates the classes to one row per model. Python only reads that row:
the table-level figure (combined with ``model.figure_agg``), the number of failing
classes and the number of classes.

Models and their papers: k-anonymity (Sweeney 2002); distinct, entropy and recursive
(c,l)-diversity (Machanavajjhala, Kifer, Gehrke and Venkitasubramaniam 2007, Sec. 4 and
Defs. 4.1, 4.2); t-closeness with the Earth Mover's Distance under equal, ordered and
hierarchical ground distances (Li, Li and Venkatasubramanian 2007, Sec. 4.2);
(alpha,k)-anonymity (Wong, Li, Fu and Wang 2006); k-map (Sweeney 2002; El Emam and Dankar
2008) and delta-presence (Nergiz, Atzori and Clifton 2007) against a population's classes
``pop`` (:mod:`anonymizer.models.population`; ARX's ``KMap``, ``DPresence``). The SQL of each is in
``templates/models/<name>.sql.j2`` with its equation in the header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.errors import SpecError
from anonymizer.engine.names import ident
from anonymizer.models.base import PrivacyModel


@dataclass(frozen=True)
class ModelResult:
    """What one model check found on a table.

    Attributes:
        model: the model as text, e.g. ``5-anonymity``.
        figure: the table's figure (``min`` or ``max`` of the per-class figures, see
            ``figure_agg``): smallest class for k, fewest distinct values for distinct l,
            ``exp`` of the smallest entropy, the largest recursive l holding at ``c``,
            the largest EMD for t, the largest frequency for alpha, the smallest
            population class for k-map, the largest delta for delta-presence. ``None`` when
            the table has no class.
        failing: how many equivalence classes fail the model.
        classes: how many equivalence classes there are.
        holds: whether every class satisfies the model.
        lowest: for delta-presence, whose figure is the largest delta, the smallest (``None``
            for the other models).
    """

    model: str
    figure: float | int | None
    failing: int
    classes: int
    holds: bool
    lowest: float | None = None


def histogram_sql(source: str, group_cols: Iterable[str], sensitive_col: str | None,
                  weight: str | None = None) -> str:
    """SQL text of the ``(gid, s, n)`` histogram of ``source`` grouped by ``group_cols``.

    Args:
        source: a relation (quoted table name or parenthesised subquery).
        group_cols: quoted column names forming the equivalence classes (empty: the
            whole table is one class). ``gid`` is the row (struct) of their values, so
            NULL is a value like any other.
        sensitive_col: quoted column (or SQL expression) of the sensitive attribute, or
            ``None`` for models without one (then ``s`` is the constant 0).
        weight: quoted column of row counts when ``source`` is itself a histogram of a
            table (its rows then count ``weight`` times); ``None``: every row counts 1.

    Example:
        >>> print(histogram_sql('"t"', ['"a"'], '"d"').split()[:3])
        ['SELECT', 'row("a")', 'AS']
    """
    return render("models/histogram.sql.j2", source=source, group_cols=list(group_cols),
                  sensitive=sensitive_col, weight=weight)


#: The reference distribution of t-closeness in a release: ``"input"``, the distribution of
#: the sensitive attribute over the rows the release takes in (see :func:`reference_sql`).
REFERENCE = "input"


def global_sql(source: str, sensitive_col: str, weight: str | None = None) -> str:
    """SQL text of the table-wide distribution ``(s, p, rnk)`` of ``source``.

    ``source`` is a table (each row counts 1) or, with ``weight='n'``, a histogram. By
    default (:func:`evaluate` without ``glob``) t-closeness compares with the measured
    table's own distribution; a release compares with its input's (:func:`reference_sql`).
    """
    return render("models/global_distribution.sql.j2", source=source, sensitive=sensitive_col,
                  weight=weight)


def reference_sql(base: str, sensitive_col: str) -> str:
    """SQL text of the reference distribution ``(s, p, rnk)`` of t-closeness in a release:
    the distribution of ``sensitive_col`` over ``base``, the rows the release takes in (the
    source minus rows suppressed for NULLs), *before* any suppression by an algorithm. It
    is the one reference of every search (lattice node checks, Mondrian splits, full-domain
    suppression, partial-domain de-generalization), of the verification gate, and of the
    audit (a t-closeness entry says ``reference: input``). ARX does the same. Why the input's
    rather than the published table's:

    - it is the adversary's prior: the distribution of the whole population the release
      was drawn from, which t-closeness bounds the information gain against (Li et al.
      2007, Sec. 3);
    - it does not move with what an algorithm chooses to suppress, so suppressing a class
      cannot make the other classes look closer (against the published table, dropping
      a far-off class shifts the reference toward the classes kept);
    - it makes a class's verdict a property of the class alone, so the searches' pruning
      stays monotone (EMD is convex: a union of t-close classes is t-close, whatever else
      is suppressed) and a class a search accepts passes the gate.
    """
    return global_sql(base, sensitive_col)


def model_sql(model: PrivacyModel, hist: str, prefix: str = "m0", glob: str | None = None,
              hier: str | None = None, engine: Engine | None = None, pop: str | None = None) -> str:
    """Render ``model``'s per-class ``SELECT gid, figure, ok`` over the relation ``hist``.

    ``glob`` (``(s, p, rnk)``) is required by t-closeness, ``hier`` (``(s, level,
    node)``) by its hierarchical distance and ``pop`` (``(gid, F, sampled)``, the population's
    classes: :mod:`anonymizer.models.population`) by k-map and delta-presence. Bind
    ``model.params(prefix)`` (or pass the text through :func:`used_params`) when executing.
    ``engine``: the engine that renders it, its form of the template (:meth:`Engine.sql`;
    ``None``: DuckDB's, :func:`~anonymizer.engine.rendering.render`).
    """
    if model.needs_global and glob is None:
        raise SpecError(str(model), "needs the table-wide distribution (glob)")
    if getattr(model, "distance", None) == "hierarchical" and hier is None:
        raise SpecError(str(model), "hierarchical distance needs a hierarchy relation (s, level, node)")
    if model.needs_population and pop is None:
        raise SpecError(str(model), "needs the population's classes (pop)")
    population: dict[str, Any] = {"pop": pop} if model.needs_population else {}
    return (render if engine is None else engine.sql)(model.template, hist=hist, p=prefix, glob=glob, hier=hier,
                                                      has_value=getattr(model, "value", None) is not None,
                                                      **population)


def uses_asof_join(model: PrivacyModel) -> bool:
    """Whether ``model``'s SQL is an ASOF join: t-closeness under the ordered distance
    (models/t_closeness_ordered.sql.j2). DuckDB 2.0 refuses an ASOF join inside a recursive
    CTE ("not supported in recursive CTEs yet") and, on small inputs, which it plans as a loop
    join instead, drops rows there; so the loops that can run as one recursive statement (LGB's
    local bucketization, Mondrian's rounds) run such a model's checks in their Python loop."""
    return getattr(model, "distance", None) == "ordered"


def used_params(sql: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``params`` whose ``$name`` occurs in ``sql`` (DuckDB rejects extras)."""
    return {k: v for k, v in params.items() if re.search(r"\$" + re.escape(k) + r"(?![A-Za-z0-9_])", sql)}


def _cte(name: str, body: str) -> str:
    return f"{ident(name)} AS (\n{body.strip()}\n)"


def _run(engine: Engine, models: list[PrivacyModel], ctes: list[str], parts: list[tuple[str, str]],
         params: dict[str, Any]) -> list[ModelResult]:
    """Run one statement: ``ctes``, then per model a CTE of its per-class rows, and one
    row of ``figure, failing, classes`` per model (as columns of a single row)."""
    cols = []
    for i, (model, (name, body)) in enumerate(zip(models, parts)):
        ctes.append(_cte(name, body))
        agg = "max" if model.figure_agg == "max" else "min"
        cols.append(f"(SELECT {agg}(figure) FROM {ident(name)}) AS f{i}, "
                    f"(SELECT count(*) FILTER (WHERE NOT ok) FROM {ident(name)}) AS x{i}, "
                    f"(SELECT count(*) FROM {ident(name)}) AS c{i}, "
                    f"(SELECT min(figure) FROM {ident(name)}) AS l{i}")
    text = "WITH " + ",\n".join(ctes) + "\nSELECT " + ",\n       ".join(cols)
    row = engine.execute(text, used_params(text, params), template="models/check").fetchone()
    out = []
    for i, model in enumerate(models):
        figure, failing, classes, lowest = row[4 * i], int(row[4 * i + 1]), int(row[4 * i + 2]), row[4 * i + 3]
        out.append(ModelResult(str(model), figure, failing, classes, failing == 0,
                               lowest if model.needs_population and model.figure_agg == "max" else None))
    return out


def evaluate(engine: Engine, model: PrivacyModel, source: str, group_cols: Iterable[str],
             sensitive_col: str | None, prefix: str = "m0", glob: str | None = None,
             hier: str | None = None) -> ModelResult:
    """Check one model on ``source`` grouped by ``group_cols``, in one SQL statement.

    Args:
        engine: the session.
        model: a :class:`~anonymizer.models.base.PrivacyModel`.
        source: relation text (quoted table or parenthesised subquery).
        group_cols: quoted quasi-identifier columns defining the classes.
        sensitive_col: quoted column of ``model.sensitive`` (ignored by k-anonymity).
        prefix: parameter prefix.
        glob: a ``(s, p, rnk)`` relation for t-closeness; by default the distribution
            of ``sensitive_col`` over ``source`` itself.
        hier: ``(s, level, node)`` relation for the hierarchical distance.
    """
    return _check(engine, [model], [prefix], source, group_cols, lambda _attr: sensitive_col,
                  {0: glob} if glob else {}, {0: hier} if hier else {}, None, {}, {})[0]


def evaluate_all(engine: Engine, models: Iterable[PrivacyModel], source: str,
                 group_cols: Iterable[str],
                 column_of: Mapping[str, str] | Callable[[str], str | None],
                 globs: Mapping[int, str] | None = None,
                 hiers: Mapping[int, str] | Mapping[str, str] | Mapping[int | str, str] | None = None,
                 prefix: str = "m", weight: str | None = None,
                 pops: Mapping[int, str] | None = None, levels: Mapping[str, int] | None = None) -> list[ModelResult]:
    """Check several models on one table in a single statement (one histogram per
    sensitive column, shared by the models protecting it).

    Args:
        column_of: maps a model's attribute name to the quoted column holding it (a
            mapping or a function).
        globs: optional ``(s, p, rnk)`` relation per model index (default: computed
            from the source's histogram).
        hiers: ``(s, level, node)`` hierarchy relation per model index or attribute
            name, for t-closeness with the hierarchical distance.
        prefix: parameter prefix; model ``i`` binds ``<prefix><i>_<name>``.
        weight: quoted column of row counts when ``source`` is a histogram of the table
            to check (one pass over the table serves many checks, see
            :func:`anonymizer.measure.measure_table`).
        pops: the population's classes ``(gid, F, sampled)`` per model index, for k-map and
            delta-presence (grouped as ``source`` is by ``group_cols``), and ``levels``, the
            ``$level<i>`` they read (:func:`anonymizer.models.population.classes_sql`).

    Returns:
        one :class:`ModelResult` per model, in order.
    """
    models = list(models)
    return _check(engine, models, [f"{prefix}{i}" for i in range(len(models))], source, group_cols,
                  column_of, dict(globs or {}), {k: v for k, v in (hiers or {}).items()}, weight, dict(pops or {}),
                  dict(levels or {}))


def _check(engine: Engine, models: list[PrivacyModel], prefixes: list[str], source: str,
           group_cols: Iterable[str], column_of: Mapping[str, str] | Callable[[str], str | None],
           globs: Mapping[int, str], hiers: Mapping[int | str, str], weight: str | None,
           pops: Mapping[int, str], levels: Mapping[str, int]) -> list[ModelResult]:
    group_cols = list(group_cols)
    lookup = column_of if callable(column_of) else (lambda a: column_of.get(a))  # type: ignore[union-attr]
    ctes: list[str] = []
    hist_of: dict[str | None, str] = {}
    glob_of: dict[str | None, str] = {}
    parts: list[tuple[str, str]] = []
    params: dict[str, Any] = dict(levels)
    cols = []
    for i, model in enumerate(models):
        attr = model.sensitive
        col = lookup(attr) if attr is not None else None
        if attr is not None and col is None:
            raise SpecError(f"models[{i}].sensitive", "names no column of the table", attr)
        cols.append(col)
    # models without a sensitive attribute only need class sizes: any histogram serves
    shared = next((c for c in cols if c is not None), None)
    for i, model in enumerate(models):
        attr = model.sensitive
        col = cols[i] if attr is not None else shared
        if col not in hist_of:
            hist_of[col] = f"__anon_hist{len(hist_of)}"
            ctes.append(_cte(hist_of[col], histogram_sql(source, group_cols, col, weight)))
        hist = ident(hist_of[col])
        glob = globs.get(i)
        if model.needs_global and glob is None:
            if col not in glob_of:
                glob_of[col] = f"__anon_glob{len(glob_of)}"
                ctes.append(_cte(glob_of[col], global_sql(hist, "s", weight="n")))
            glob = ident(glob_of[col])
        hier = hiers.get(i, hiers.get(attr)) if attr is not None else None
        p = prefixes[i]
        parts.append((f"__anon_model{i}", model_sql(model, hist, p, glob, hier, engine, pops.get(i))))
        params.update(model.params(p))
    if not models:
        return []
    return _run(engine, models, ctes, parts, params)
