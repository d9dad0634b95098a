"""Full-domain generalization at a given level vector, with record suppression.

Papers: Samarati, "Protecting respondents' identities in microdata release" (IEEE TKDE
2001) and Sweeney, "Achieving k-anonymity privacy protection using generalization and
suppression" (2002): every value of a QI is replaced by its ancestor at the same hierarchy
level (a *full-domain* recoding, one node of the generalization lattice), and the rows of
classes that still fail the privacy models are suppressed, up to a limit. This is the node
check of the lattice searches (PrivacyFrost2, paper 003, section 4): :func:`check_levels`
judges one level vector in one SQL statement and returns the failing classes and rows per
model, so a search can call it per node without materializing anything.

Steps (each one SQL statement):

1. generalize and judge (``families/generalized/full_domain/check.sql.j2``): classes are the distinct vectors of
   hierarchy nodes; a class fails k-anonymity if it has fewer than k rows, and any other
   model by its template (``anonymizer.models.check.model_sql``) over the class histograms;
2. if the rows of failing classes, plus rows already suppressed for NULLs, fit within
   ``suppression_limit * rows``, write ``assign`` without them (``families/generalized/full_domain/assign.sql.j2``);
   otherwise raise :class:`~anonymizer.errors.PrivacyCheckFailed` naming the model and the
   rows that would need suppression.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Mapping

from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed, SpecError
from anonymizer.models import KAnonymity, TCloseness, check, population
from anonymizer.plan import Plan
from anonymizer.engine.names import ident
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.generalized.lattice.frequency_set import FrequencySet
from anonymizer.families.generalized import options


@dataclass(frozen=True)
class LevelCheck:
    """What :func:`check_levels` found at one level vector.

    Attributes:
        levels: the level per QI name.
        classes: equivalence classes at these levels.
        failing_classes: classes failing at least one model.
        failing_rows: rows in those classes (what suppression would remove).
        per_model: ``(model text, failing classes, failing rows)`` per declared model.
        bound_rows: with ``bounds``, rows that suppression must remove at this node *and at
            every finer node* (:func:`check_levels`); 0 when not asked.
        blocked: population classes without sample rows failing delta-presence's ``dmin``:
            no suppression helps, the node fails (ARX's ``HashGroupify.analyze``).
    """

    levels: dict[str, int]
    classes: int
    failing_classes: int
    failing_rows: int
    per_model: tuple[tuple[str, int, int], ...]
    bound_rows: int = 0
    blocked: int = 0

    def fits(self, budget: int) -> bool:
        """Whether the models hold at this node once at most ``budget`` failing rows are suppressed."""
        return self.failing_rows <= budget and not self.blocked


def full_domain(engine: Engine, plan: Plan, levels: dict[str, int] | None = None) -> AlgorithmResult:
    """Generalize ``plan.base`` to ``levels`` (default: the spec's), suppress failing classes
    within the limit and write ``engine.work("assign")``."""
    start = time.perf_counter()
    levels = validate_levels(plan, options.of(plan).levels if levels is None else levels)
    found = check_levels(engine, plan, levels)                      # step 1
    limit = plan.allowed
    if not found.fits(limit - plan.null_suppressed):                # step 2
        _fail(plan, found, limit)
    assign = engine.work("assign")
    context, params = _context(engine, plan, levels)
    text = engine.sql("families/generalized/full_domain/assign.sql.j2", target=assign, **context)
    engine.execute(text, check.used_params(text, params), template="families/generalized/full_domain/assign.sql.j2")
    return AlgorithmResult(assign=assign, classes=found.classes - found.failing_classes,
                           suppressed=found.failing_rows, rounds=2, seconds=time.perf_counter() - start,
                           notes={"levels": levels, "per_model": found.per_model,
                                  "suppression_limit_rows": limit},
                           labels="hier", levels=levels)


def check_levels(engine: Engine, plan: Plan, levels: dict[str, int],
                 freq: FrequencySet | None = None, models: tuple[dict, dict] | None = None) -> LevelCheck:
    """Judge one level vector in one SQL statement (nothing is written), over the rows of
    ``plan.base`` or, given ``freq``, over its frequency set (the same answer, faster).

    ``models``: :func:`model_context` prepared once by a search that checks many nodes;
    prepared with ``bounds=True``, the check also counts :attr:`LevelCheck.bound_rows`.

    Example (a lattice search keeps the nodes whose failing rows fit the limit):
        ``[lv for lv in nodes if check_levels(engine, plan, lv).failing_rows <= limit]``
    """
    levels = validate_levels(plan, levels)
    context, params = _context(engine, plan, levels, freq, models)
    context["bounded"] = context["bounds"] and not all(m["sticky"] for m in context["models"])
    text = engine.sql("families/generalized/full_domain/check.sql.j2", **context)
    row = engine.execute(text, check.used_params(text, params), template="families/generalized/full_domain/check.sql.j2")
    blocking = any(m["blocks"] for m in context["models"])
    return _level_check(plan, levels, row.fetchone(), context["bounds"], context["bounded"], blocking)


def kept_loss(engine: Engine, plan: Plan, levels: dict[str, int], freq: FrequencySet,
              models: tuple[dict, dict] | None = None) -> tuple[int, float]:
    """The records a full-domain node keeps once its failing classes are suppressed, and the
    sum of ARX's per-cell loss over them (``families/generalized/full_domain/node_loss.sql.j2``):
    one statement over the frequency set ``freq``, nothing written (``models``: as for
    :func:`check_levels`)."""
    context, params = _context(engine, plan, validate_levels(plan, levels), freq, models)
    context["codes"] = [{"code": ident(q.code), "hier": q.hier} for q in plan.qis]
    for i, q in enumerate(plan.qis):
        params.update({f"lv{i}": levels[q.name], f"dom{i}": q.m})
    text = engine.sql("families/generalized/full_domain/node_loss.sql.j2", **context)
    kept, cells = engine.execute(text, check.used_params(text, params),
                                 template="families/generalized/full_domain/node_loss.sql.j2").fetchone()
    return int(kept or 0), float(cells or 0.0)


def _level_check(plan: Plan, levels: dict[str, int], row: tuple, bounds: bool, bounded: bool,
                 blocking: bool) -> LevelCheck:
    """Read ``check.sql.j2``'s row: a single model's counts are the totals, and with
    ``bounds`` and no ``bound_rows`` column (every model sticky) the bound is ``bad_rows``;
    with a ``blocking`` model (delta-presence) the ``blocked`` column follows the totals."""
    classes, bad_classes, bad_rows = (int(v) for v in row[:3])
    blocked, at = (int(row[3]), 4) if blocking else (0, 3)
    models = plan.models
    per_model: tuple[tuple[str, int, int], ...]
    if len(models) == 1:
        per_model = ((str(models[0]), bad_classes, bad_rows),)
    else:
        per_model = tuple((str(m), int(row[at + 2 * i]), int(row[at + 1 + 2 * i])) for i, m in enumerate(models))
    bound = int(row[-1]) if bounded else bad_rows if bounds else 0
    return LevelCheck(dict(levels), classes, bad_classes, bad_rows, per_model, bound, blocked)


def validate_levels(plan: Plan, levels: Mapping[str, int]) -> dict[str, int]:
    """Check that ``levels`` gives every QI a level within its hierarchy (0..height)."""
    out = {}
    for q in plan.qis:
        level = levels.get(q.name)
        if level is None:
            raise SpecError(f"algorithm.levels.{q.name}", "is required for full-domain generalization")
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= q.height:
            raise SpecError(f"algorithm.levels.{q.name}",
                            f"must be a level between 0 and {q.height} (the top, '*', of its hierarchy)", level)
        out[q.name] = level
    unknown = set(levels) - set(out)
    if unknown:
        raise SpecError(f"algorithm.levels.{sorted(unknown)[0]}", "is not a quasi-identifier")
    return out


def _context(engine: Engine, plan: Plan, levels: dict[str, int],
             freq: FrequencySet | None = None, models: tuple[dict, dict] | None = None) -> tuple[dict, dict]:
    """Template context and bound parameters shared by check.sql.j2 and assign.sql.j2:
    over ``plan.base`` at ``levels``, or over the frequency set ``freq``."""
    context, params = (dict(models[0]), dict(models[1])) if models else model_context(engine, plan)
    if freq:
        context["qis"] = [{"node": ident(freq.node(q.index, levels[q.name]))} for q in plan.qis]
    else:
        context["qis"] = [{"col": ident(q.code), "hier": q.hier} for q in plan.qis]
    params.update({f"level{i}": levels[q.name] for i, q in enumerate(plan.qis)})   # populations read them too
    context.update(base=freq.table if freq else plan.base, freq=freq is not None)
    return context, params


def model_context(engine: Engine, plan: Plan, bounds: bool = False) -> tuple[dict, dict]:
    """The declared models as ``_classes.sql.j2`` takes them: ``sens`` (the quoted sensitive
    columns they read) and ``models`` (rendered per-class checks, which read the reference
    distribution of t-closeness, :func:`reference_tables`, the input's, from its work table),
    with every model's parameters (bind through :func:`~anonymizer.models.check.used_params`).

    k-map and delta-presence read the population's classes at the same levels (``pop``:
    :func:`anonymizer.models.population.classes_sql`, bound ``$level<i>``).

    ``bounds``: also what ``check.sql.j2`` needs to count the rows no finer node can keep
    (``bound_rows``): per model ``sticky`` (a failing class fails in every part of it:
    ``monotonic_with_suppression``) or ``keep`` (t-closeness: ``models/t_closeness_keep.sql.j2``,
    how many rows of a class its t-close parts can hold), and ``$kmin``, the largest k of
    k-anonymity (a part kept must hold k rows).

    The reference is the same whatever relation the classes are formed over (``plan.base``,
    a frequency set, a pre-sampled one, or the classes left after suppression), so a class
    gets one verdict in every search, in the suppression step and in the verification gate."""
    column = {k.column.name: ident(k.internal) for k in plan.sensitive}
    sens = sorted({column[m.sensitive] for m in plan.models if m.sensitive is not None})
    refs = reference_tables(engine, plan)
    models: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    for i, m in enumerate(plan.models):
        params.update(m.params(f"m{i}"))
        if m.needs_population:          # k-map, delta-presence: class sizes against pop<i>
            models.append({"sql": check.model_sql(m, "sizes", f"m{i}", engine=engine, pop=f"pop{i}"),
                           "population": population.classes_sql(engine, plan, i)})
        elif m.sensitive is None:
            models.append({"sql": None})
        else:
            j = sens.index(column[m.sensitive])
            models.append({"sql": check.model_sql(m, f"hist{j}", f"m{i}", refs.get(sens[j]),
                                                  plan.hier_of(m), engine)})
            if bounds and isinstance(m, TCloseness):
                failing = f"(SELECT * FROM hist{j} WHERE gid IN (SELECT gid FROM cls WHERE bad{i}))"   # the rest keep all
                models[-1]["keep"] = engine.sql("models/t_closeness_keep.sql.j2", hist=failing, glob=refs[sens[j]],
                                                p=f"m{i}", distance=m.distance, hier=plan.hier_of(m))
        models[-1].setdefault("keep", None)
        models[-1].setdefault("population", None)
        models[-1]["blocks"] = not m.monotonic and m.needs_population   # delta-presence
        models[-1]["at"] = i
        models[-1]["sticky"] = bounds and m.monotonic_with_suppression
    if bounds:
        params["kmin"] = max((m.k for m in plan.models if isinstance(m, KAnonymity)), default=1)
    return {"sens": sens, "models": models, "bounds": bounds}, params


def reference_tables(engine: Engine, plan: Plan) -> dict[str, str]:
    """The reference distribution ``(s, p, rnk)`` of every sensitive column a t-closeness
    model reads, as a work table (written once per run): quoted ``base`` column -> table.

    The reference is the **input's** distribution (:data:`~anonymizer.models.check.REFERENCE`):
    the sensitive values over ``plan.base``, the rows the release takes in (the source minus
    rows suppressed for NULLs), before any suppression by an algorithm (as ARX does). See
    :func:`~anonymizer.models.check.reference_sql` for why; the verification gate
    (:func:`anonymizer.release.run.verified`) compares with the same distribution."""
    column = {k.column.name: ident(k.internal) for k in plan.sensitive}
    wanted = sorted({column[m.sensitive] for m in plan.models if m.sensitive is not None and m.needs_global})
    out = {}
    for s in wanted:
        internal = next(k.internal for k in plan.sensitive if ident(k.internal) == s)
        tag = hashlib.sha256(plan.base.encode()).hexdigest()[:8]      # one table per input relation
        out[s] = engine.work(f"reference_{internal}_{tag}")
        engine.execute(f"CREATE TABLE IF NOT EXISTS {out[s]} AS {check.reference_sql(plan.base, s)}",
                       template="models/global_distribution.sql.j2")
    return out


def _fail(plan: Plan, found: LevelCheck, limit: int) -> None:
    if found.blocked:
        model = next(str(m) for m in plan.models if m.needs_population and not m.monotonic)
        raise PrivacyCheckFailed(model, 0.0, found.blocked, achieved_is="delta of the blocked classes",
                                 reason=f"{found.blocked} class(es) of the population at these levels hold no row of "
                                        "the source (delta 0, below dmin); suppression cannot help (ARX's "
                                        "HashGroupify.analyze)")
    worst = max(found.per_model, key=lambda m: m[2])
    needed = found.failing_rows + plan.null_suppressed
    nulls = f", {plan.null_suppressed} with missing values" if plan.null_suppressed else ""
    raise PrivacyCheckFailed(
        worst[0], needed, worst[1], achieved_is="rows that would need suppression",
        reason=f"{needed} rows would need suppression ({worst[2]} in classes failing {worst[0]}{nulls}), "
               f"but suppression_limit allows {limit} rows")
