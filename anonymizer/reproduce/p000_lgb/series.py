"""The rows of paper 000's experiment as the tables and findings read them: which runs
there are (the grid of sections 4.1/4.2, section 4.3's densities, the variants of LGB_NCP
that explain the figures), their names, and the series and trends read off them.

A row is one verified LGB release (:func:`anonymizer.reproduce.p000_lgb.experiment.evaluate`)
with ``sections``, ``algorithm``, ``density``, ``k``, ``l`` and its measures.
"""

from __future__ import annotations

GRID_DENSITY = 0.2              # sections 4.1 and 4.2
DENSITY_ALGORITHM = "lgb-mdp"   # section 4.3
#: LGB_NCP with balance false: Algorithm 4 lines 15-20 as printed (finding g; :mod:`.explain`)
LITERAL = "lgb-ncp-literal"
#: LGB_NCP minimizing the reported NCP: value sets, not code ranges (Fig. 7's contributor (i); :mod:`.fig7`)
SET_OBJECTIVE = "lgb-ncp-set"
#: each variant's algorithm and the options it sets
VARIANTS = {LITERAL: ("lgb-ncp", {"balance": False}), SET_OBJECTIVE: ("lgb-ncp", {"objective": "set"})}
NAMES = {"lgb-mdp": "LGB_MDP", "lgb-ncp": "LGB_NCP", LITERAL: "LGB_NCP literal", SET_OBJECTIVE: "LGB_NCP set"}
#: a trend (findings d, f, i; :func:`anonymizer.reproduce.findings.trend`): at least this share
#: of the steps goes that way, the fitted slope too
GROWS = 0.75


def grid_rows(rows: list[dict]) -> list[dict]:
    """The runs of sections 4.1 and 4.2 (both algorithms, every k and l, at 20 %)."""
    return [r for r in rows if "4.1" in r["sections"]]


def table(rows: list[dict], algorithm: str, key: str) -> dict[tuple[int, int], float]:
    """``key`` by (k, l) of ``algorithm`` at 20 % (a variant's runs are in no section)."""
    return {(r["k"], r["l"]): r[key] for r in rows
            if r["algorithm"] == algorithm and r["density"] == GRID_DENSITY and r.get(key) is not None}


def pairs(rows: list[dict], key: str, other: str = "lgb-ncp") -> list[tuple[tuple[int, int], float, float]]:
    """(k, l), LGB_MDP's and ``other``'s ``key`` wherever both ran at 20 %."""
    mdp, ncp = table(rows, "lgb-mdp", key), table(rows, other, key)
    return [(kl, mdp[kl], ncp[kl]) for kl in sorted(mdp) if kl in ncp]


def last_minus_first(lines: list[list[float]]) -> float:
    """Over several series, the mean of last - first (context: which way they end up).

    >>> last_minus_first([[1.0, 2.0, 3.0], [2.0, 1.0, 4.0]])
    2.0
    """
    long = [s for s in lines if len(s) > 1]
    return sum(s[-1] - s[0] for s in long) / len(long) if long else float("nan")


def ratios(lines: list[list[float]]) -> float:
    """Over several series, the mean ratio last / first (how much a setting moves them).

    >>> ratios([[1.0, 2.0, 3.0], [2.0, 1.0, 4.0]])
    2.5
    """
    found = [s[-1] / s[0] for s in lines if len(s) > 1 and s[0]]
    return sum(found) / len(found) if found else float("nan")


def k_l_series(t: dict[tuple[int, int], float]) -> tuple[list[list[float]], list[list[float]]] | None:
    """A full k x l table as its series over k (one per l) and over l (one per k), or None
    without two k and two l."""
    ks, ls = sorted({k for k, _ in t}), sorted({l for _, l in t})
    if len(ks) < 2 or len(ls) < 2 or len(t) < len(ks) * len(ls):
        return None
    return [[t[k, l] for k in ks] for l in ls], [[t[k, l] for l in ls] for k in ks]
