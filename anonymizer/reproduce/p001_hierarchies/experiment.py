"""Paper 001's experiment (sec. III and IV) on the bundled UCI Adult data.

"We selected set of three attributes as quasi-identifiers that are Age, Education, and Work
Hours ... we produced nine generalization hierarchies (three quasi-identifiers and three
methods) ... three generalization lattices ... we computed results (value of k and
generalization cost) for each node ... and compared those results by plotting the value of
k against the generalization cost." Section IV.C compares the builders' DCP, and the
conclusion claims that CBGH gives the least distortion ratio and the least DCP.

Choices (the paper gives only hours-per-week's: root [1, 100], intervals at least 10 wide):

- Education is ``education-num`` (1..16), the numeric code the builders need (Table 3
  lists it beside the categorical ``education``); root [1, 16], intervals at least 2 wide
  (width 10 would leave it one level below ``*``).
- Age: root [17, 90] (Table 3's domain), intervals at least 5 wide (the usual five-year
  bands; width 10 would give CGH only two levels below ``*``).
- Every builder gets the same root and minimum width for a QI; the hierarchies differ only
  by how the builder splits (CGH halves, DBGH takes the divisors of the maximum, CBGH merges
  leaves by cardinality).
- The baseline IOTF (section IV: "we compared the proposed method with the existing
  state-of-the-art IOTF"; ``anonymizer/hierarchy/iotf.py``) gets the same roots and Table
  4's 24, 16, 4 nodes per level; education-num's 16 values leave it the 4-node level only.
- The 32,561 rows of ``adult.data`` (the paper counts 48,834 with the test file); these
  three columns have no missing values.

The comparison takes, for each k of :data:`KS`, the least distortion ratio and the least DCP
among the nodes whose smallest class reaches k (no suppression).
"""

from __future__ import annotations

from typing import Callable

import duckdb

from anonymizer.demo import load_adult
from anonymizer.families.generalized.lattice.evaluate import LatticeTable, evaluate_spec
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec

BUILDERS = ("iotf", "cgh", "dbgh", "cbgh")
QIS = {"age": {"min_width": 5, "range": [17, 90]},
       "education-num": {"min_width": 2, "range": [1, 16]},
       "hours-per-week": {"min_width": 10, "range": [1, 100]}}
KS = (2, 5, 10, 50, 100)


def experiment_spec(builder: str) -> ReleaseSpec:
    """The spec of one lattice: table ``adult``, the three QIs with ``builder``'s hierarchies."""
    def options(qi: dict) -> dict:
        return {"range": qi["range"]} if builder == "iotf" else dict(qi)

    return load_spec({"release": f"paper001_{builder}", "source": {"table": "adult"}, "default_role": "identifier",
                      "columns": {name: {"role": "quasi", "hierarchy": {builder: options(qi)}}
                                  for name, qi in QIS.items()},
                      "models": [{"type": "k-anonymity", "k": 2}]})


def paper001(con: duckdb.DuckDBPyConnection, progress: Callable[[str], None] | None = None) -> dict[str, LatticeTable]:
    """Load Adult into table ``adult`` and evaluate the three lattices into
    ``_anon_lattice.paper001_<builder>``; return them by builder."""
    load_adult(con)
    return {b: evaluate_spec(con, experiment_spec(b), progress=progress) for b in BUILDERS}


def comparison(lattices: dict[str, LatticeTable], ks: tuple[int, ...] = KS) -> dict:
    """Per builder: table, nodes, QI heights, lattice height, and per k the least distortion
    ratio and DCP of the nodes reaching it (``None`` if none does)."""
    out = {}
    for builder, lattice in lattices.items():
        best = {}
        for k in ks:
            nodes = lattice.best(k)
            best[k] = {key: None if node is None else {"value": node[key], "levels": lattice.levels(node)}
                       for key, node in nodes.items()}
        out[builder] = {"table": lattice.name, "nodes": len(lattice.nodes), "heights": dict(zip(lattice.qis,
                                                                                              lattice.heights)),
                        "max_height": sum(lattice.heights), "seconds": lattice.seconds, "best": best}
    return out


def format_comparison(compared: dict) -> str:
    """The comparison as two small tables; ``*`` marks the least figure for each k."""
    builders = list(compared)
    lines = ["paper 001's experiment: UCI Adult (32,561 rows), QIs " + ", ".join(
                 f"{q} (min width {o['min_width']}, root {o['range']})" for q, o in QIS.items()), "",
             f"{'builder':<8} {'nodes':>6} {'heights':>9} {'max height':>11} {'table'}"]
    for b, c in compared.items():
        lines.append(f"{b:<8} {c['nodes']:>6} {'/'.join(map(str, c['heights'].values())):>9} "
                     f"{c['max_height']:>11} {c['table']}")
    for key, title, fmt in (("distortion_ratio", "least distortion ratio reaching k", "{:.4f}"),
                            ("dcp", "least DCP reaching k", "{:,}")):
        lines += ["", title, f"{'k':>5} " + " ".join(f"{b:>16}" for b in builders)]
        for k in next(iter(compared.values()))["best"]:
            values = {b: (compared[b]["best"][k][key] or {}).get("value") for b in builders}
            least = min((v for v in values.values() if v is not None), default=None)
            cells = ["-" if v is None else fmt.format(v) + ("*" if v == least else " ") for v in values.values()]
            lines.append(f"{k:>5} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)
