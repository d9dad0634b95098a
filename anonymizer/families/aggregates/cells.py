"""dp-aggregates' algorithm: bound each person's contribution, aggregate, select the cells,
add the noise (the reading guide: :mod:`anonymizer.families.aggregates`).

Sensitivities, with at most ``G`` cells per person, ``R`` rows per person and cell, and a
measured value clamped to ``[lo, hi]`` and put on a grid of ``2^20`` steps of its largest
magnitude ``M`` (``step = M / 2^20``, so ``M`` is ``2^20`` units):

- the count of rows: L1 ``G R``, L2² ``G R²``;
- the sum of a value in units: L1 ``G R 2^20``, L2² ``G R² 2^40``;
- the persons per cell (private selection only): L1 ``G``.

A mean is its sum over the count (post-processing, clamped to its bounds); a count and a mean
share the one noisy count of rows. ε is split evenly among the noisy quantities (and the
selection), δ among the selection and the Gaussian quantities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import pandas as pd

from anonymizer.dp import noise
from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.families.aggregates import options
from anonymizer.plan import Plan

#: a measured value's grid: its largest magnitude is this many units
UNITS = 2 ** 20


@dataclass(frozen=True)
class Quantity:
    """One noisy integer per cell: ``column`` of the cells table, its sensitivities (in units)."""

    column: str
    l1: Fraction
    l2_squared: Fraction


@dataclass
class Cells:
    """What the algorithm hands to the release: the bounded rows, the published (noisy) cells,
    their number, and the figures the audit may keep (parameters only, nothing of the data)."""

    bounded: str
    published: str
    cells: int
    columns: list[str]
    notes: dict = field(default_factory=dict)


def measured(a: options.Options) -> list[tuple[str, tuple[float, float]]]:
    """The measured values, once each: a column and its bounds (a sum and a mean of the same
    column within the same bounds share one noisy sum)."""
    out: list[tuple[str, tuple[float, float]]] = []
    for m in a.measures:
        if m.column is not None and (m.column, m.bounds) not in out:
            out.append((m.column, m.bounds))
    return out


def with_noise(values: list[int], q: Quantity, epsilon: Fraction, delta: float, gaussian: bool) -> tuple[list[int], float]:
    """``values`` (one quantity's true integers, one per cell) with the noise of ``q`` at
    ``epsilon`` (and ``delta`` for the Gaussian); and the noise's scale (Laplace) or sigma."""
    if gaussian:
        sigma2 = noise.gaussian_sigma2(q.l2_squared, epsilon, delta)
        return [v + noise.discrete_gaussian(sigma2) for v in values], math.sqrt(float(sigma2))
    scale = noise.laplace_scale(q.l1, epsilon)
    return [v + noise.discrete_laplace(scale) for v in values], float(scale)


def counted(column: str, g: int, r: int) -> Quantity:
    """A count of rows, each person in at most ``g`` cells with ``r`` rows each."""
    return Quantity(column, Fraction(g * r), Fraction(g * r * r))


def summed(column: str, g: int, r: int) -> Quantity:
    """A sum in units (a row adds at most :data:`UNITS`), bounded as :func:`counted`."""
    return Quantity(column, Fraction(g * r * UNITS), Fraction(g * r * r * UNITS * UNITS))


def selection(cells: int, g: int, epsilon: Fraction, delta: float) -> tuple[list[int], int, Fraction]:
    """The private selection of the data's cells: one noise draw per cell for its count of
    persons (sensitivity ``g``), the threshold ``τ`` the noisy count must reach, and the scale."""
    scale = noise.laplace_scale(g, epsilon)
    return [noise.discrete_laplace(scale) for _ in range(cells)], noise.selection_threshold(scale, g, delta), scale


def steps_of(m: options.Measure | tuple[str, tuple[float, float]]) -> float:
    """The grid step of a measured value: its largest magnitude over :data:`UNITS`."""
    bounds = m.bounds if isinstance(m, options.Measure) else m[1]
    return max(abs(bounds[0]), abs(bounds[1])) / UNITS


def check_keys(engine: Engine, plan: Plan) -> None:
    """Refuse public keys of another type than their dimension's column (the user's to fix)."""
    public = options.of(plan).keys or {}
    for q in plan.qis if public else []:
        kind = engine.columns(q.dom)["value"]
        if engine.execute(f"SELECT count(*) FILTER (WHERE TRY_CAST(k AS {kind}) IS NULL) FROM unnest($k) AS t(k)",
                          {"k": list(public[q.name])}, template="<public keys>").fetchone()[0]:
            raise SpecError(f"algorithm.keys.{q.name}", f"must be values of the column's type ({kind})",
                            list(public[q.name]))


def cells(engine: Engine, plan: Plan) -> Cells:
    """Bound, aggregate, select and add noise (module docstring)."""
    a = options.of(plan)
    valued = measured(a)
    bounded = engine.work("dp_bounded")
    qis = [ident(q.code) for q in plan.qis]
    values = [{"col": ident(plan.kept(column).internal), "name": ident(f"m{j}")} for j, (column, _) in enumerate(valued)]
    params = plan.key.params(groups=a.groups_per_person, rows=a.rows_per_group,
                             **{f"{side}{j}": v for j, m in enumerate(valued)
                                for side, v in (("lo", m[1][0]), ("hi", m[1][1]), ("step", steps_of(m)))})
    person = ident(plan.individual.internal) if plan.individual else "__rid"
    engine.run("families/aggregates/bounded.sql.j2", params, target=bounded, base=plan.base, person=person, qis=qis,
               values=values)
    true = engine.work("dp_cells")
    dims = [{"code": ident(q.code), "dom": q.dom, "name": ident(f"d{q.index}"), "type": engine.columns(q.dom)["value"]}
            for q in plan.qis]
    keys = {f"keys{q.index}": list(a.keys[q.name]) for q in plan.qis} if a.keys is not None else {}
    engine.run("families/aggregates/cells.sql.j2", keys, target=true, bounded=bounded, qis=dims,
               values=[v["name"] for v in values], public=a.keys is not None)
    g, r = a.groups_per_person, a.rows_per_group
    quantities = ([counted("rows", g, r)] if any(m.kind != "sum" for m in a.measures) else []) + \
        [summed(f"m{j}", g, r) for j, _ in enumerate(valued)]
    shares = len(quantities) + (1 if a.keys is None else 0)
    epsilon = Fraction(a.epsilon) / shares
    gaussian = a.noise == "gaussian"
    delta = a.delta / ((1 if a.keys is None else 0) + (len(quantities) if gaussian else 0) or 1)
    frame = engine.execute(f"SELECT * FROM {true}").df()   # the cells: an aggregate, never rows
    notes: dict = {"epsilon": a.epsilon, "delta": a.delta, "noise": a.noise, "quantities": len(quantities),
                   "epsilon_each": float(epsilon), "groups_per_person": g, "rows_per_group": r,
                   "keys": "private" if a.keys is None else "public"}
    if a.keys is None:                                        # private keys: a noisy threshold on persons
        draws, tau, scale = selection(len(frame), g, epsilon, delta)
        frame = frame.loc[[p + d >= tau for p, d in zip(frame["persons"], draws)]].reset_index(drop=True)   # no cell: []
        notes.update(threshold=tau, selection_scale=float(scale))
    noisy: dict[str, list[int]] = {}
    for q in quantities:
        noisy[q.column], spread = with_noise([int(x) for x in frame[q.column]], q, epsilon, delta, gaussian)
        notes[f"{q.column}_{'sigma' if gaussian else 'scale'}"] = spread
    out = pd.DataFrame({q.name: frame[f"d{q.index}"] for q in plan.qis})
    for m in a.measures:
        if m.kind == "count":
            out["count"] = [max(n, 0) for n in noisy["rows"]]
            continue
        j = valued.index((str(m.column), m.bounds))
        sums = [u * steps_of(m) for u in noisy[f"m{j}"]]
        out[m.name] = sums if m.kind == "sum" else [
            min(max(s / max(n, 1), m.bounds[0]), m.bounds[1]) for s, n in zip(sums, noisy["rows"])]
    published = engine.work("dp_published")
    engine.load_frame(out, published)
    return Cells(bounded, published, len(out), list(out.columns), {"dp_aggregates": notes})
