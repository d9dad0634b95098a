"""Fixtures and oracles for the model tests (``con``, a fresh DuckDB, is tests/conftest.py's): brute-force pure-Python versions of the models' per-class figures."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from anonymizer.engine.session import Engine


@pytest.fixture
def engine(con):
    return Engine(con)


def load(con, name: str, columns: list[str], rows: list[tuple]) -> None:
    """Create table ``name`` with ``rows`` (types as pandas infers them)."""
    import pandas as pd

    from anonymizer.engine.names import ident

    con.register("__load_df", pd.DataFrame(rows, columns=columns))
    con.execute(f"CREATE TABLE {ident(name)} AS SELECT * FROM __load_df")
    con.unregister("__load_df")


def brute(groups: dict, c: float = 2.0) -> dict:
    """Table figures of a {class key: [sensitive values]} mapping, by definition."""
    k = min(len(v) for v in groups.values())
    distinct = min(len(set(v)) for v in groups.values())
    ent, rec, alpha = math.inf, math.inf, 0.0
    for vals in groups.values():
        counts = sorted(Counter(vals).values(), reverse=True)
        n = len(vals)
        ent = min(ent, -sum(x / n * math.log(x / n) for x in counts))
        best = 1
        for j in range(2, len(counts) + 1):
            if counts[0] < c * sum(counts[j - 1:]):
                best = j
        rec = min(rec, best)
        alpha = max(alpha, counts[0] / n)
    return {"k": k, "distinct_l": distinct, "entropy_l": math.exp(ent), "recursive_l": rec,
            "alpha": alpha}


def emd_equal(p: dict, q: dict) -> float:
    """Li et al. 2007, equal distance: 1/2 sum |p_i - q_i| over the values of q."""
    return 0.5 * sum(abs(p.get(v, 0.0) - q[v]) for v in q)


def emd_ordered(p: dict, q: dict) -> float:
    """Li et al. 2007, ordered distance: 1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|."""
    order = sorted(q)
    if len(order) == 1:
        return 0.0
    run, total = 0.0, 0.0
    for v in order:
        run += p.get(v, 0.0) - q[v]
        total += abs(run)
    return total / (len(order) - 1)


def emd_lp(p: dict, q: dict, dist) -> float:
    """The Earth Mover's Distance by its definition (a transportation LP)."""
    from scipy.optimize import linprog

    vals = sorted(q)
    m = len(vals)
    cost = np.array([[dist(a, b) for b in vals] for a in vals]).ravel()
    a_eq, b_eq = [], []
    for i in range(m):
        row = np.zeros((m, m))
        row[i, :] = 1
        a_eq.append(row.ravel())
        b_eq.append(p.get(vals[i], 0.0))
    for j in range(m):
        col = np.zeros((m, m))
        col[:, j] = 1
        a_eq.append(col.ravel())
        b_eq.append(q[vals[j]])
    res = linprog(cost, A_eq=np.array(a_eq), b_eq=np.array(b_eq), bounds=(0, None), method="highs")
    return float(res.fun)


def shares(values) -> dict:
    n = len(values)
    return {v: x / n for v, x in Counter(values).items()}
