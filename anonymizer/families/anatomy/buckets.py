"""Security levels and multi-dimensional buckets in SQL (paper 002, sections 3 and 4).

:func:`build_levels` gives every value of every sensitive attribute its security level and
``l`` (Definitions 1 to 3, 10); :func:`build_buckets` groups the rows by composite sensitive
vector (Definitions 4, 5 and 13) and computes, with group-by and window functions, each
bucket's size, dimension capacities ``Capa``, MSDCF's and MMDCF's selectivities (Eqs. 1
and 2) and its place in the tie order. Python then reads the buckets, which are few
(one per distinct vector, at most the product of the attributes' domain sizes).
"""

from __future__ import annotations

import numpy as np

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.plan import Plan
from anonymizer.randomness import ReleaseKey
from anonymizer.families.anatomy.greedy import Buckets

#: the most buckets (distinct sensitive vectors) the greedy reads; MSB is for categorical
#: sensitive attributes, and a vector per record would make Python work grow with the rows.
MAX_BUCKETS = 100_000


def build_levels(engine: Engine, plan: Plan, l_of: list[int]) -> str:
    """The ``levels(dim, value, code, level, l)`` work table; ``l_of[level]`` is the l of a level.

    Raises SpecError when an override names a value its attribute does not hold.
    """
    dims, values, levels, defaults = [], [], [], []
    for j, kept in enumerate(plan.sensitive):
        sec = kept.column.security
        defaults.append(sec.default if sec else 2)
        for value, level in (sec.values.items() if sec else ()):
            dims.append(j)
            values.append(value)
            levels.append(level)
    target = engine.work("msb_levels")
    params = {"dims": dims, "values": values, "levels": levels, "default_levels": defaults, "l": l_of}
    engine.run("families/anatomy/levels.sql.j2", params, target=target, base=plan.base, sens=_sens(plan))
    missing = engine.rows("families/anatomy/unmatched_levels.sql.j2", {"dims": dims, "values": values}, levels=target)
    if missing:
        j, value = missing[0]
        name = plan.sensitive[j].column.name
        raise SpecError(f"columns.{name}.security.values.{value}", f"is not a value of {name!r}", value)
    return target


def build_buckets(engine: Engine, plan: Plan, levels: str, seed: int | None) -> tuple[str, Buckets, dict]:
    """The buckets work table, the same buckets as arrays, and SQL's initial selectivities.
    Ties between buckets follow a keyed draw of the vector when ``seed`` is given, else the
    vectors' sort order (which vector goes first says nothing about any record).

    Returns:
        (table, buckets, initial) where ``initial`` maps ``sel_msdcf``/``sel_mmdcf``/``capa``
        to SQL's figures before any record is taken (Figure 1 of the paper shows them).
    """
    target = engine.work("msb_buckets")
    sens = _sens(plan)
    params = ReleaseKey.from_seed(seed).params() if seed is not None else None
    engine.run("families/anatomy/buckets.sql.j2", params, target=target, base=plan.base,
               levels=levels, sens=sens, seeded=seed is not None)
    d = len(sens)
    count = engine.count(target)
    if count > MAX_BUCKETS:
        names = ", ".join(k.column.name for k in plan.sensitive)
        raise DataError(plan.source, f"sensitive columns {names} hold {count} distinct vectors: MSB groups records by vector and handles at "
                               f"most {MAX_BUCKETS}; generalize or bucket these attributes first")
    cols = ([f"v{j}" for j in range(d)] + [f"l{j}" for j in range(d)] + ["level", "size", "tie"]
            + [f"c{j}" for j in range(d)] + ["sel_msdcf", "sel_mmdcf"])
    # one row per bucket (at most MAX_BUCKETS): the greedy's input, an aggregate
    rows = engine.execute(f"SELECT {', '.join(cols)} FROM {target} ORDER BY bid").fetchall()
    domain = [int(n) for (n,) in engine.execute(f"SELECT count(*) FROM {levels} GROUP BY dim ORDER BY dim").fetchall()]
    table = np.asarray(rows, dtype=np.int64).reshape(len(rows), len(cols))
    arr = {c: table[:, i] for i, c in enumerate(cols)}
    buckets = Buckets(
        vals=np.stack([arr[f"v{j}"] for j in range(d)], axis=1),
        lval=np.stack([arr[f"l{j}"] for j in range(d)], axis=1),
        level=arr["level"], size=arr["size"], tie=arr["tie"], domain=domain)
    initial = {"sel_msdcf": arr["sel_msdcf"], "sel_mmdcf": arr["sel_mmdcf"],
               "capa": np.stack([arr[f"c{j}"] for j in range(d)], axis=1)}
    return target, buckets, initial


def _sens(plan: Plan) -> list[str]:
    return [k.internal for k in plan.sensitive]
