"""Plots of paper 004's experiment (:mod:`anonymizer.reproduce.p004_identity_reserved.experiment`), after its Figs. 2-9
(matplotlib, optional).

Eight PNG files, one per figure of the paper, each a row of panels (one per sweep) with a
line per algorithm variant:

    fig2_vulnerable_kl.png   v of GeneIR_kl, DAnonyIR_kl against (a) l, (b) |QI|            Fig. 2
    fig3_vulnerable_ab.png   v of GeneIR_ab, DAnonyIR_ab against (a) alpha, (b) beta, (c) |QI|  Fig. 3
    fig4_nloss_kl.png        NLoss of the three kl variants against (a) l, (b) |QI|         Fig. 4
    fig5_nloss_ab.png        NLoss of the three ab variants against alpha, beta, |QI|       Fig. 5
    fig6_error_kl.png        query error: (a) lambda = 1 against l, (b) lambda = |QI| and
                             (c) lambda = 1 against |QI|                                    Fig. 6
    fig7_error_ab.png        query error: lambda = 1 against (a) alpha, (b) beta; (c) lambda
                             = |QI| and (d) lambda = 1 against |QI|                         Fig. 7
    fig8_runtime_kl.png      algorithm seconds against (a) l, (b) |QI|                      Fig. 8
    fig9_runtime_ab.png      algorithm seconds against alpha, beta, |QI|                    Fig. 9

The paper's Figs. 6b and 7c plot lambda = |QI| only; the lambda = 1 panels beside them show
the drop (or rise) the paper attributes to the query dimension. Panels of a figure do not
share their y axis (their x axes differ).
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from anonymizer.reproduce.p004_identity_reserved.experiment import SWEEPS, VARIANTS

MARKERS = {"danonyir-el": "o", "danonyir-kl": "s", "geneir-kl": "^", "danonyir-eab": "o", "danonyir-ab": "s",
           "geneir-ab": "^"}
IR_ONLY = ("danonyir-kl", "geneir-kl", "danonyir-ab", "geneir-ab")
#: file, measure, y label, title, panels as (sweep, measure override or None)
FIGURES = (
    ("fig2_vulnerable_kl", "vulnerable_percent", "vulnerable classes (%)", "Fig. 2: vulnerable classes, IR (k, l)",
     (("l", None), ("qi-kl", None))),
    ("fig3_vulnerable_ab", "vulnerable_percent", "vulnerable classes (%)",
     "Fig. 3: vulnerable classes, IR (alpha, beta)", (("alpha", None), ("beta", None), ("qi-ab", None))),
    ("fig4_nloss_kl", "nloss", "NLoss", "Fig. 4: information loss, (k, l) / l", (("l", None), ("qi-kl", None))),
    ("fig5_nloss_ab", "nloss", "NLoss", "Fig. 5: information loss, (alpha, beta)",
     (("alpha", None), ("beta", None), ("qi-ab", None))),
    ("fig6_error_kl", "query_error_1", "relative error", "Fig. 6: query error, (k, l) / l",
     (("l", None), ("qi-kl", "query_error_qi"), ("qi-kl", None))),
    ("fig7_error_ab", "query_error_1", "relative error", "Fig. 7: query error, (alpha, beta)",
     (("alpha", None), ("beta", None), ("qi-ab", "query_error_qi"), ("qi-ab", None))),
    ("fig8_runtime_kl", "runtime", "algorithm seconds", "Fig. 8: runtime, (k, l) / l",
     (("l", None), ("qi-kl", None))),
    ("fig9_runtime_ab", "runtime", "algorithm seconds", "Fig. 9: runtime, (alpha, beta)",
     (("alpha", None), ("beta", None), ("qi-ab", None))),
)
LAMBDA = {"query_error_1": "lambda = 1", "query_error_qi": "lambda = |QI|"}


def _panel(ax, rows: list[dict], sweep: str, key: str, only_ir: bool) -> bool:
    """One line per variant of ``key`` against the sweep's parameter; False if nothing to draw."""
    param = SWEEPS[sweep][1]
    drawn = False
    for v in VARIANTS:
        if only_ir and v not in IR_ONLY:
            continue
        series = sorted((r[param], r[key]) for r in rows
                        if sweep in r["sweeps"] and r["variant"] == v and r[key] is not None)
        if not series:
            continue
        ax.plot([x for x, _ in series], [y for _, y in series], marker=MARKERS[v], label=VARIANTS[v][0])
        drawn = True
    xs = sorted({r[param] for r in rows if sweep in r["sweeps"]})
    ax.set(xlabel="|QI|" if param == "qi" else param, xticks=xs)
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize="small")
    return drawn


def plot_experiment(rows: list[dict], folder: str | Path) -> list[Path]:
    """Write the figures of ``rows`` (as :func:`~anonymizer.reproduce.p004_identity_reserved.experiment.run_experiment`
    returns them) into ``folder`` (created if missing); return the paths written. A figure
    none of whose panels has rows is not drawn; an empty panel is left out."""
    figure, canvas = Figure, FigureCanvasAgg            # refuse before creating the folder
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, key, ylabel, title, panels in FIGURES:
        only_ir = key == "vulnerable_percent"
        usable = [(sweep, k or key) for sweep, k in panels
                  if any(sweep in r["sweeps"] and r[k or key] is not None
                         and (not only_ir or r["variant"] in IR_ONLY) for r in rows)]
        if not usable:
            continue
        fig = figure(figsize=(4.2 * len(usable), 4), layout="constrained")
        canvas(fig)                            # the Agg backend, without pyplot or a display
        axes = fig.subplots(1, len(usable), squeeze=False)[0]
        for i, (ax, (sweep, k)) in enumerate(zip(axes, usable)):
            _panel(ax, rows, sweep, k, only_ir)
            extra = f", {LAMBDA[k]}" if k in LAMBDA else ""
            ax.set_title(f"({chr(97 + i)}) {SWEEPS[sweep][2]}{extra}", fontsize="small")
        axes[0].set_ylabel(ylabel)
        fig.suptitle(f"paper 004 {title}")
        path = out / f"{name}.png"
        fig.savefig(path, dpi=110)
        written.append(path)
    return written
