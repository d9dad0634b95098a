"""Plots of evaluated lattices, after paper 001's Figures 6 and 7 (matplotlib, optional).

Left: every node's k (log scale) against its distortion ratio, one series per lattice, with
the frontier (the largest k reached at or below each ratio). Right: the least DCP of the
nodes reaching each k (Figure 7's comparison of the builders' DCP).

Install the plotting extra to use it: ``pip install 'anonymizer[plots]'``.
"""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path
from typing import Mapping

from anonymizer.errors import UnsupportedError


def plot_lattice(rows_by_builder: Mapping[str, list[dict]], path: str | Path) -> Path:
    """Write the plot of one or more lattices (``name -> node rows`` as
    :class:`~anonymizer.families.generalized.lattice.evaluate.LatticeTable` holds them) to ``path`` (PNG, SVG, PDF
    by its suffix) and return the path."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise UnsupportedError("plots need matplotlib: pip install 'anonymizer[plots]'") from exc
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    cost, dcp = fig.subplots(1, 2)
    for name, rows in rows_by_builder.items():
        points = sorted((r["distortion_ratio"], r["k"]) for r in rows)
        dots = cost.scatter([x for x, _ in points], [k for _, k in points], s=12, alpha=0.45, label=name)
        cost.step([x for x, _ in points], list(accumulate((k for _, k in points), max)), where="post",
                  color=dots.get_facecolor()[0][:3], linewidth=1.2)
        ks = sorted({r["k"] for r in rows})
        dcp.step(ks, [min(r["dcp"] for r in rows if r["k"] >= k) for k in ks], where="pre", label=name)
    cost.set(xlabel="distortion ratio (Definition 9)", ylabel="k (smallest class)", yscale="log",
             title="k against generalization cost, every lattice node")
    dcp.set(xlabel="k", ylabel="least DCP of the nodes reaching k", xscale="log", yscale="log",
            title="discernibility penalty (sec. IV.C)")
    for ax in (cost, dcp):
        ax.grid(True, which="major", alpha=0.3)
        ax.legend()
    out = Path(path)
    fig.savefig(out, dpi=120)
    return out

