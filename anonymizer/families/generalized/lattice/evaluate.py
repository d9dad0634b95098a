"""Every node of a generalization lattice, evaluated for its k and its cost (paper 001).

Paper: Yaseen et al., "Improved Generalization for Secure Data Publishing", IEEE Access 6
(2018). Section III's experiment: build one hierarchy per QI with a builder (CGH, DBGH,
CBGH), take their generalization lattice (Definition 8: every combination of one level
per QI), compute "the value of k and the generalization cost for each node" and plot k
against the cost. The cost is the distortion of Definition 9: each generalized value
costs its hierarchy node's distortion (``hier.distortion``, 0 for a value, the height for
``*``; the builders divide it further), the table's distortion is the sum over records and
QIs, and the *distortion ratio* divides it by the distortion of the fully generalized
table. Section IV.C adds the discernibility penalty DCP, the sum of squared class sizes
(Bayardo and Agrawal 2005).

Steps, on the frequency set (one row per distinct QI combination and count ``n``, with the
node of every QI at every level; :mod:`anonymizer.families.generalized.lattice.frequency_set`), never on
the rows:

1. per QI and level, the distortion of generalizing that QI to that level, summed over the
   records (``families/generalized/lattice/level_sums.sql.j2``, one statement): a node's distortion
   is then a sum of constants;
2. per node, k, classes and DCP, by one of two loops (``loop``), which give the same figures:

   - ``"python"`` (the default): one GROUP BY over the frequency set per node
     (``families/generalized/lattice/evaluate/node_classes.sql.j2``), driven from Python;
   - ``"recursive"``: one statement for the whole lattice
     (``families/generalized/lattice/evaluate/node_rollup.sql.j2``), a recursive CTE that makes a node's classes by
     regrouping those of a parent node (one QI lower), not the frequency set.

   The recursive form is the faster on paper 001's Adult lattices and the slower on large
   frequency sets, so the per-node loop stays the default (``anonymizer bench recursive``;
   the figures are in the README, "Loops driven from Python or run as one recursive CTE").
   Its GROUP BY per level regroups every class of every node of the level at once, a hash
   table far larger than a node's. One statement as GROUPING SETS was slower still, as was
   the frequency set cross-joined with the nodes;
3. the table: levels, height, k, classes, DCP, distortion and distortion ratio per node
   (``families/generalized/lattice/evaluate/write_table.sql.j2``, the per-node figures bound as lists).

The table is the deliverable: the figures are returned, and the table is kept, outside the
run's work schema, in ``_anon_lattice.<name>`` only when a name is given.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Callable

import duckdb

from anonymizer.families.generalized.lattice.frequency_set import FrequencySet, build_frequency_set
from anonymizer.families.generalized.lattice.lattice import Lattice
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import Plan, prepare
from anonymizer.spec.types import ReleaseSpec
from anonymizer.engine.names import ident, table

SCHEMA = "_anon_lattice"
METRICS = ("height", "k", "classes", "dcp", "distortion", "distortion_ratio", "failing_rows", "holds")
MOST_NODES = 100_000  # one GROUP BY each, about a millisecond on a small frequency set
LOOPS = ("python", "recursive")


@dataclass(frozen=True)
class LatticeTable:
    """An evaluated lattice: the table written and its rows (one per node, small).

    Attributes:
        table: the quoted table.
        name: ``schema.table`` as people read it, or ``None`` for a table not kept (a work table).
        qis: the QI names (the level columns), in order.
        heights: the top level of each QI's hierarchy.
        records: the rows of the table evaluated.
        nodes: one dict per node: the level of every QI, then :data:`METRICS`.
        seconds: time of the evaluation (frequency set included).
        loop: the loop of step 2 (:data:`LOOPS`), and ``loop_seconds`` its time.
    """

    table: str
    name: str | None
    qis: tuple[str, ...]
    heights: tuple[int, ...]
    records: int
    nodes: list[dict]
    seconds: float
    loop: str = "python"
    loop_seconds: float = 0.0

    def best(self, k: int) -> dict[str, dict | None]:
        """The nodes reaching ``k`` (smallest class at least ``k``) with the least distortion
        ratio and with the least DCP (ties: the other figure, then the lower node).

        Example:
            >>> t = LatticeTable('"t"', "t", ("a",), (2,), 4, [
            ...     {"a": 0, "height": 0, "k": 1, "dcp": 6, "distortion_ratio": 0.0},
            ...     {"a": 1, "height": 1, "k": 2, "dcp": 8, "distortion_ratio": 0.5},
            ...     {"a": 2, "height": 2, "k": 4, "dcp": 16, "distortion_ratio": 1.0}], 0.0)
            >>> {key: node["a"] for key, node in t.best(2).items()}
            {'distortion_ratio': 1, 'dcp': 1}
        """
        return _least([n for n in self.nodes if n["k"] >= k])

    def holding(self) -> dict[str, dict | None]:
        """As :meth:`best`, among the nodes where the spec holds: every declared model (l, t,
        ...), its failing rows suppressed within the spec's ``suppression_limit`` (``holds``)."""
        return _least([n for n in self.nodes if n["holds"]])

    def levels(self, node: dict) -> dict[str, int]:
        """A node's levels as the spec's ``algorithm.levels`` mapping."""
        return {q: node[q] for q in self.qis}

    def to_dict(self, k: int) -> dict:
        """Everything, with the nodes reaching ``k`` at the least distortion ratio and DCP
        (``best``) and those where the spec holds (``holding``)."""
        return {"table": self.name, "qis": list(self.qis), "heights": list(self.heights), "records": self.records,
                "seconds": self.seconds, "k": k, "best": self.best(k), "holding": self.holding(), "nodes": self.nodes}


def _least(nodes: list[dict]) -> dict[str, dict | None]:
    """The node of ``nodes`` with the least distortion ratio and the one with the least DCP
    (ties: the other figure, then the lower node)."""
    if not nodes:
        return {"distortion_ratio": None, "dcp": None}
    return {"distortion_ratio": min(nodes, key=lambda n: (n["distortion_ratio"], n["dcp"], n["height"])),
            "dcp": min(nodes, key=lambda n: (n["dcp"], n["distortion_ratio"], n["height"]))}


def evaluate_lattice(engine: Engine, plan: Plan, target: tuple[str, str], loop: str = "python") -> LatticeTable:
    """Evaluate every node of the lattice of ``plan``'s QIs and write the table ``target``
    (``(schema, name)``, replaced if it exists; see the module docstring). ``loop``: how step 2
    runs, ``"python"`` (one statement per node) or ``"recursive"`` (one statement)."""
    start = time.perf_counter()
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {LOOPS}, got {loop!r}")
    _check_plan(plan)
    freq = build_frequency_set(engine, plan)
    levels = engine.work("level_distortion")
    engine.run("families/generalized/lattice/level_sums.sql.j2", target=levels, freq=freq.table,
               qis=[{"code": ident(q.code), "hier": q.hier} for q in plan.qis])          # step 1
    nodes = list(itertools.product(*(range(h + 1) for h in freq.heights)))
    engine.say(f"lattice: {len(nodes)} nodes over {freq.size} distinct QI combinations "
               f"of {freq.rows} rows")
    loop_start = time.perf_counter()
    figures = (_node_figures(engine, plan, freq, nodes) if loop == "recursive" else
               [engine.one("families/generalized/lattice/evaluate/node_classes.sql.j2", freq=freq.table,
                           nodes=[ident(freq.node(i, lv)) for i, lv in enumerate(node)])
                for node in nodes])                                                      # step 2
    loop_seconds = time.perf_counter() - loop_start
    budget = plan.allowed - plan.null_suppressed
    judge = Lattice(engine, plan, freq, budget)           # every declared model, its failing rows suppressed
    failing = [judge.judge(node, "evaluate").failing_rows for node in nodes]
    schema, name = target
    if schema != engine.work_schema:   # a table kept in the user's database
        engine.execute(f"CREATE SCHEMA IF NOT EXISTS {ident(schema)}")
    params: dict[str, list[int] | int] = {f"l{i}": [node[i] for node in nodes] for i in range(len(plan.qis))}
    params.update(k=[f[0] for f in figures], classes=[f[1] for f in figures], dcp=[f[2] for f in figures],
                  failing=failing, budget=budget)
    out = table(schema, name)
    engine.run("families/generalized/lattice/evaluate/write_table.sql.j2", params, target=out, levels=levels,
               qis=[{"name": ident(q.name)} for q in plan.qis])                          # step 3
    cur = engine.execute(f"SELECT * FROM {out}")
    columns = [d[0] for d in cur.description]
    rows = [dict(zip(columns, row)) for row in cur.fetchall()]   # one per node, not per record
    return LatticeTable(out, None if schema == engine.work_schema else f"{schema}.{name}", tuple(q.name for q in plan.qis), freq.heights, freq.rows, rows,
                        time.perf_counter() - start, loop, round(loop_seconds, 4))


def _node_figures(engine: Engine, plan: Plan, freq: FrequencySet, nodes: list[tuple[int, ...]]) -> list[tuple]:
    """Step 2 as one recursive statement (``families/generalized/lattice/evaluate/node_rollup.sql.j2``): ``(k, classes,
    dcp)`` per node, in the order of ``nodes``. Each node but the lowest gets a parent: its last
    raised QI one level lower if that QI's levels nest (a code then has one node at the
    level above), else at level 0 (DBGH's levels need not nest, but every level is a function
    of the values)."""
    index = {node: i for i, node in enumerate(nodes)}
    kids: dict[str, list[int]] = {"node": [], "parent": [], "qi": [], "level": []}
    for node in nodes[1:]:
        # the highest parent (the fewest classes to regroup, as a rule); ties: the last QI
        qi = max((i for i, lv in enumerate(node) if lv),
                 key=lambda i: (-(1 if plan.qis[i].nested else node[i]), i))
        parent = list(node)
        parent[qi] = node[qi] - 1 if plan.qis[qi].nested else 0
        for key, value in zip(kids, (index[node], index[tuple(parent)], qi, node[qi])):
            kids[key].append(value)
    qis = [{"nodes": [ident(freq.node(i, lv)) for lv in range(h + 1)], "nested": plan.qis[i].nested}
           for i, h in enumerate(freq.heights)]
    rows = engine.rows("families/generalized/lattice/evaluate/node_rollup.sql.j2", kids, freq=freq.table, qis=qis)
    return [row[1:] for row in rows]    # one per node, in node order


def evaluate_spec(con: duckdb.DuckDBPyConnection, spec: ReleaseSpec, name: str | None = None,
                  progress: Callable[[str], None] | None = None, loop: str = "python") -> LatticeTable:
    """Load ``spec``'s source, code its QIs with their hierarchies and evaluate their lattice
    by ``loop`` (see :func:`evaluate_lattice`). With a ``name``, the table is kept as
    ``_anon_lattice.<name>`` in ``con``'s database; without, it is a work table, dropped with
    the run's work schema, and nothing is written to ``con``'s database (which may be opened
    read-only).

    Example:
        >>> from anonymizer.spec.parse import load_spec
        >>> con = duckdb.connect()
        >>> _ = con.execute("CREATE TABLE t AS SELECT range % 4 AS a FROM range(8)")
        >>> spec = load_spec({"release": "r", "source": {"table": "t"}, "columns": {
        ...     "a": {"role": "quasi", "hierarchy": {"intervals": [2]}}}, "models": [{"type": "k-anonymity", "k": 2}]})
        >>> [(n["a"], n["k"], n["dcp"], n["distortion_ratio"]) for n in evaluate_spec(con, spec).nodes]
        [(0, 2, 16, 0.0), (1, 4, 32, 0.5), (2, 8, 64, 1.0)]
    """
    engine = Engine(con, progress=progress)
    with engine.workspace():
        plan = prepare(engine, spec)
        return evaluate_lattice(engine, plan, (SCHEMA, name) if name else (engine.open_work(), "lattice"), loop)


def _check_plan(plan: Plan) -> None:
    """The lattice is small enough to evaluate node by node, and no QI column shares its
    name with a figure column of the table."""
    size = math.prod(q.height + 1 for q in plan.qis)
    if size > MOST_NODES:
        shape = " x ".join(f"{q.height + 1} ({q.name})" for q in plan.qis)
        raise SpecError("columns", f"the lattice has {shape} = {size} nodes, more than {MOST_NODES} evaluated "
                                   "one by one; take fewer quasi-identifiers or hierarchies with fewer levels")
    for q in plan.qis:
        if q.name.lower() in METRICS:
            raise SpecError(f"columns.{q.name}", f"is named like a column of the lattice table ({', '.join(METRICS)}); "
                                                 "evaluate a view of the source that renames it")


def format_lattice(lattice: LatticeTable, k: int) -> str:
    """A short summary: the table, the lattice, and the cheapest nodes reaching ``k``."""
    shape = ", ".join(f"{q} 0..{h}" for q, h in zip(lattice.qis, lattice.heights))
    lowest, top = lattice.nodes[0], lattice.nodes[-1]
    reaching = sum(n["k"] >= k for n in lattice.nodes)
    holding = sum(n["holds"] for n in lattice.nodes)
    rows = [("columns", f"{', '.join(lattice.qis)} (levels), {', '.join(METRICS)}"),
            ("k", f"{lowest['k']} at the values .. {top['k']} fully generalized (the smallest class)"),
            (f"k >= {k}", f"{reaching} of {len(lattice.nodes)} nodes (without suppression)")]
    rows += [(f"least {'DCP' if key == 'dcp' else 'ratio'}", _node_text(lattice, node))
             for key, node in lattice.best(k).items() if node is not None]
    rows.append(("spec holds", f"{holding} of {len(lattice.nodes)} nodes: every model of the spec, failing rows "
                               "suppressed within its suppression_limit"))
    rows += [(f"  least {'DCP' if key == 'dcp' else 'ratio'}", _node_text(lattice, node))
             for key, node in lattice.holding().items() if node is not None]
    rows.append(("elapsed", f"{lattice.seconds:.2f}s"))
    kept = lattice.name or "(not kept: give --table-name to keep it)"
    head = f"lattice table {kept}: {len(lattice.nodes)} nodes ({shape}), {lattice.records} rows"
    return "\n".join([head] + [f"  {label:<13} {text}" for label, text in rows])


def _node_text(lattice: LatticeTable, node: dict) -> str:
    levels = ", ".join(f"{q}: {lv}" for q, lv in lattice.levels(node).items())
    suppressed = f", {node['failing_rows']} rows suppressed" if node["holds"] and node["failing_rows"] else ""
    return (f"levels {{{levels}}}: k {node['k']}{suppressed}, {node['classes']} classes, "
            f"distortion ratio {node['distortion_ratio']:.4f}, DCP {node['dcp']}")
