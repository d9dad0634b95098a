"""Plots of paper 000's experiment (:mod:`anonymizer.reproduce.p000_lgb.experiment`), after its Figs. 5-8
(matplotlib, optional).

Four PNG files, each measure against l with one line per k, like the paper's panels:

    cdm.png          C_DM, (a) LGB_MDP beside (b) LGB_NCP, at 20 %          Fig. 5
    ncp.png          NCP, (a) LGB_MDP beside (b) LGB_NCP, at 20 %           Fig. 6
    query_error.png  mean relative error, (a) LGB_MDP beside (b) LGB_NCP    Fig. 7
    density.png      LGB_MDP's mean relative error, a panel per density     Fig. 8

The panels of a figure share their y axis, so the two algorithms (or the densities) compare
at a glance.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from anonymizer.reproduce.p000_lgb.series import DENSITY_ALGORITHM, GRID_DENSITY, NAMES
from anonymizer.families.lgb import LGB_ALGORITHMS

FIGURES = (("c_dm", "cdm", "C_DM (sum of |LEG|^2)", "Fig. 5"), ("ncp", "ncp", "NCP(T)", "Fig. 6"),
           ("query_error", "query_error", "mean relative error", "Fig. 7"))
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _lines(ax, rows: list[dict], key: str) -> None:
    """One line per k of ``key`` against l."""
    for i, k in enumerate(sorted({r["k"] for r in rows})):
        series = sorted((r["l"], r[key]) for r in rows if r["k"] == k)
        ax.plot([x for x, _ in series], [y for _, y in series], marker=MARKERS[i % len(MARKERS)], label=f"k={k}")
    ax.set(xlabel="l", xticks=sorted({r["l"] for r in rows}))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")


def _figure(panels: list[tuple[str, list[dict]]], key: str, ylabel: str, title: str, path: Path) -> Path:
    """A row of panels sharing their y axis, written to ``path``."""
    figure, canvas = Figure, FigureCanvasAgg
    fig = figure(figsize=(4.2 * len(panels), 4), layout="constrained")
    canvas(fig)                                # the Agg backend, without pyplot or a display
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for i, (ax, (name, part)) in enumerate(zip(axes, panels)):
        _lines(ax, part, key)
        ax.set_title(f"({chr(97 + i)}) {name}")
    axes[0].set_ylabel(ylabel)
    fig.suptitle(title)
    fig.savefig(path, dpi=110)
    return path


def plot_experiment(rows: list[dict], folder: str | Path) -> list[Path]:
    """Write the plots of ``rows`` (as :func:`~anonymizer.reproduce.p000_lgb.experiment.run_experiment`
    returns them) into ``folder`` (created if missing); return the paths written. Figures
    whose rows are missing are not drawn."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    grid = [r for r in rows if "4.1" in r["sections"]]
    panels = [(NAMES[a], [r for r in grid if r["algorithm"] == a]) for a in LGB_ALGORITHMS]
    panels = [(name, part) for name, part in panels if part]
    written = []
    if panels:
        for key, short, label, fig in FIGURES:
            title = f"paper 000 {fig}: {label} against l, density {GRID_DENSITY:.0%}"
            written.append(_figure(panels, key, label, title, out / f"{short}.png"))
    dense = [r for r in rows if "4.3" in r["sections"]]
    if dense:
        by = [(f"{d:.0%}", [r for r in dense if r["density"] == d]) for d in sorted({r["density"] for r in dense})]
        title = f"paper 000 Fig. 8: {NAMES[DENSITY_ALGORITHM]}'s mean relative error by density of sensitive values"
        written.append(_figure(by, "query_error", "mean relative error", title, out / "density.png"))
    return written
