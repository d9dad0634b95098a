"""Plots of paper 001's figures (matplotlib).

:func:`plot_lattice`: left, every node's k (log scale) against its distortion ratio, one
series per lattice, with the frontier (the largest k reached at or below each ratio); right,
the least DCP of the nodes reaching each k (Figure 7's comparison of the builders' DCP).
:func:`plot_figures`: Figures 5 and 6, the nodes and the distortion at each level of the
hours-per-week hierarchies (:mod:`.figures`), grouped bars as the paper draws them.
"""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path
from typing import Mapping

from matplotlib.figure import Figure


def _figure(size: tuple[float, float]) -> Figure:
    return Figure(figsize=size, layout="constrained")


def plot_figures(levels: Mapping[str, list[dict]], path: str | Path) -> Path:
    """Figures 5 (nodes at each level) and 6 (the records' mean distortion at each level, the
    nodes' range as error bars) side by side, one bar per builder of ``levels``
    (:func:`.figures.level_figures`), written to ``path``; returns the path."""
    fig = _figure((11, 4.5))
    nodes, distortion = fig.subplots(1, 2)
    width = 0.8 / len(levels)
    for i, (name, rows) in enumerate(levels.items()):
        x = [r["level"] + (i - (len(levels) - 1) / 2) * width for r in rows]
        nodes.bar(x, [r["nodes"] for r in rows], width, label=name.upper())
        distortion.bar(x, [r["mean"] for r in rows], width, label=name.upper(),
                       yerr=[[max(r["mean"] - r["min"], 0) for r in rows], [max(r["max"] - r["mean"], 0) for r in rows]],
                       capsize=2)
    nodes.set(xlabel="level", ylabel="nodes", title="Fig. 5: nodes at each level (hours-per-week)")
    distortion.set(xlabel="level", ylabel="distortion (records' mean; bars: node range)",
                   title="Fig. 6: distortion at each level")
    return _save(fig, (nodes, distortion), path, axis="y")


def plot_lattice(rows_by_builder: Mapping[str, list[dict]], path: str | Path) -> Path:
    """Write the plot of one or more lattices (``name -> node rows`` as
    :class:`~anonymizer.families.generalized.lattice.evaluate.LatticeTable` holds them) to ``path`` (PNG, SVG, PDF
    by its suffix) and return the path."""
    fig = _figure((11, 4.5))
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
    return _save(fig, (cost, dcp), path, which="major")


def _save(fig, axes, path: str | Path, **grid) -> Path:
    """Grid and legend on ``axes``, then ``fig`` written to ``path``."""
    for ax in axes:
        ax.grid(True, alpha=0.3, **grid)
        ax.legend()
    out = Path(path)
    fig.savefig(out, dpi=120)
    return out

