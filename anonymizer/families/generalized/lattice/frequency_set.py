"""The frequency set lattice searches run on.

One aggregate over ``plan.base`` gives every distinct combination of QI codes and the
sensitive values the models read, with its count ``n``, joined once to each QI's
hierarchy so that the row carries the QI's node at every level (columns ``g<i>_<level>``).
A lattice node's check is then one GROUP BY over this set (``full_domain.check_levels``
with ``freq=``), whose size is the number of distinct combinations, not the row count:
this is how PrivacyFrost2's ``Check`` (paper 003, section 4.3) and the optimal search stay
fast on large tables (the "frequency set" of Incognito, LeFevre et al. 2005).
"""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.engine.session import Engine
from anonymizer.plan import Plan
from anonymizer.engine.names import ident


@dataclass(frozen=True)
class FrequencySet:
    """A frequency set in the work schema.

    Attributes:
        table: quoted work table ``(q0.., s.., n, g<i>_<level>..)``.
        heights: the top level of each QI's hierarchy, by QI index.
        rows: the records it stands for (sum of ``n``).
        size: its own rows (distinct combinations).
    """

    table: str
    heights: tuple[int, ...]
    rows: int
    size: int

    @staticmethod
    def node(i: int, level: int) -> str:
        """The (unquoted) column holding QI ``i``'s node at ``level``."""
        return f"g{i}_{level}"

    @property
    def columns(self) -> list[str]:
        """Every node column, QI by QI and level by level."""
        return [self.node(i, j) for i, h in enumerate(self.heights) for j in range(h + 1)]


def build_frequency_set(engine: Engine, plan: Plan) -> FrequencySet:
    """Aggregate ``plan.base`` into the frequency set (one statement, see module docstring)."""
    table = engine.work("freq")
    heights = tuple(q.height for q in plan.qis)
    sens = sorted({ident(plan.kept(m.sensitive).internal) for m in plan.models if m.sensitive})
    qis = [{"code": ident(q.code), "hier": q.hier,
            "nodes": [ident(FrequencySet.node(q.index, j)) for j in range(q.height + 1)]} for q in plan.qis]
    engine.run("families/generalized/lattice/frequency_set.sql.j2", target=table, base=plan.base, qis=qis, sens=sens)
    return _measured(engine, table, heights)


def presample(engine: Engine, freq: FrequencySet, levels: list[int], k_prime: int) -> tuple[FrequencySet, int]:
    """PrivacyFrost2's pre-sampling (paper 003, section 5.1) on the frequency set.

    Args:
        levels: the threshold level ``u`` of each QI, as a generalization level (0 = value).
        k_prime: groups at those levels with fewer than ``k'`` records are removed.
    Returns:
        the reduced frequency set and how many records it removed.
    """
    table = engine.work("freq_sampled")
    nodes = [ident(freq.node(i, lv)) for i, lv in enumerate(levels)]
    engine.run("families/generalized/lattice/presample.sql.j2", {"k_prime": k_prime}, target=table, freq=freq.table, nodes=nodes)
    sampled = _measured(engine, table, freq.heights)
    return sampled, freq.rows - sampled.rows


def distinct_counts(engine: Engine, freq: FrequencySet) -> list[list[int]]:
    """``e[i][level]``: distinct values of QI ``i`` at every level (paper 003, section 6.1)."""
    row = engine.one("families/generalized/lattice/distinct_counts.sql.j2", freq=freq.table,
                     nodes=[ident(c) for c in freq.columns])
    out, at = [], 0
    for h in freq.heights:
        out.append([int(v) for v in row[at:at + h + 1]])
        at += h + 1
    return out


def _measured(engine: Engine, table: str, heights: tuple[int, ...]) -> FrequencySet:
    rows, size = engine.execute(f"SELECT coalesce(sum(n), 0)::BIGINT, count(*) FROM {table}").fetchone()
    return FrequencySet(table, heights, int(rows), int(size))


def attribute_minimums(engine: Engine, freq: FrequencySet) -> list[list[int]]:
    """``x[i][level]``: the smallest group of records sharing QI ``i``'s node at ``level``
    (the x of x-anonymity of that QI alone; paper 003, section 5.2 step 1)."""
    rows = engine.rows("families/generalized/lattice/attribute_minimums.sql.j2", freq=freq.table,
                       nodes=[ident(c) for c in freq.columns])
    smallest = dict(rows)
    out, at = [], 0
    for h in freq.heights:
        out.append([int(smallest[at + j]) for j in range(h + 1)])
        at += h + 1
    return out
