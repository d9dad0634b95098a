"""Plots of paper 002's experiment (:mod:`anonymizer.reproduce.p002_msb.experiment`), after its Figures 2-23
(matplotlib, optional).

Six PNG files, one per measure and sweep, one line per algorithm (a colour and marker per greedy
key, dashed with hollow markers for the baseline, solid with filled markers for its MSLF
variant; coinciding series show as nested markers): the paper's pairwise figures (MBF
against MBF-MSLF, ...) and its Figures 20-23 (the three MSLF variants) in one plot each.

    loss_n.png         additional information loss against n (d = 3)     Figures 2, 8, 14, 20
    suppression_n.png  suppression ratio against n (d = 3)                Figures 3, 9, 15
    runtime_n.png      algorithm seconds against n (d = 3)                Figures 4, 10, 16, 21
    loss_d.png         additional information loss against d (n = 2000)  Figures 5, 11, 17, 22
    suppression_d.png  suppression ratio against d (n = 2000)             Figures 6, 12, 18
    runtime_d.png      algorithm seconds against d (n = 2000)             Figures 7, 13, 19, 23
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from anonymizer.reproduce.p002_msb.experiment import DIM_N, SIZE_D
from anonymizer.reproduce.p002_msb.setting import ALGORITHMS

PLOTS = (("additional_information_loss", "loss", "additional information loss (Definition 14)"),
         ("suppression_ratio", "suppression", "suppression ratio (Definition 15)"),
         ("algorithm_seconds", "runtime", "algorithm seconds"))
SWEEPS = {"n": ("n (number of records)", f"d = {SIZE_D}"),
          "d": ("d (number of sensitive attributes)", f"n = {DIM_N}")}
COLOURS = {"mbf": "tab:blue", "msdcf": "tab:orange", "mmdcf": "tab:green"}
#: marker and size per greedy key: equal series (the baselines often coincide) show as nested markers
MARKERS = {"mbf": ("o", 9), "msdcf": ("^", 6.5), "mmdcf": ("s", 4)}


def plot_experiment(rows: list[dict], folder: str | Path) -> list[Path]:
    """Write the six plots of ``rows`` (as :func:`~anonymizer.reproduce.p002_msb.experiment.run_experiment`
    returns them) into ``folder`` (created if missing); return the paths written. A sweep
    without rows gives no plots."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for sweep, (xlabel, fixed) in SWEEPS.items():
        part = [r for r in rows if r["sweep"] == sweep]
        if not part:
            continue
        xs = sorted({r["setting"] for r in part})
        for key, short, label in PLOTS:
            fig = Figure(figsize=(7, 4.5), layout="constrained")
            ax = fig.subplots()
            for algorithm in ALGORITHMS:
                series = sorted((r["setting"], r[key]) for r in part if r["algorithm"] == algorithm)
                if not series:
                    continue
                base = algorithm.removesuffix("-mslf")
                mslf = algorithm != base
                marker, size = MARKERS[base]
                ax.plot([x for x, _ in series], [y for _, y in series], color=COLOURS[base],
                        linestyle="-" if mslf else "--", linewidth=1.6 if mslf else 1.2, marker=marker,
                        markersize=size, markerfacecolor=COLOURS[base] if mslf else "none",
                        label=algorithm.upper())
            ax.set(xlabel=xlabel, ylabel=label, xticks=xs, title=f"paper 002: {label} against {sweep} ({fixed})")
            if key != "algorithm_seconds":
                ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(ncols=3, fontsize="small")
            path = out / f"{short}_{sweep}.png"
            fig.savefig(path, dpi=110)
            written.append(path)
    return written
