"""The report's plots: matplotlib figures as inline SVG text (no file, no script, no URL).

Text stays text in the SVG (``svg.fonttype: none``), so the page's own font draws it and
the plots stay small; the SVG's metadata and namespace declarations (URIs, which an HTML
page does not need for inline SVG) are left out, so the page holds no address at all.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import MaxNLocator  # noqa: E402

BEFORE, AFTER, RISK, PLAIN = "#5b7fa6", "#d9822b", "#b5473a", "#6b8f71"
_STYLE = {"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
          "svg.hashsalt": "anonymizer-report"}


def svg(fig) -> str:
    """``fig`` as inline SVG markup (closed afterwards)."""
    out = io.StringIO()
    with plt.rc_context(_STYLE):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = out.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    return re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)


def _figure(width: float, height: float, panels: int = 1):
    with plt.rc_context(_STYLE):
        return plt.subplots(1, panels, figsize=(width, height), squeeze=False)


def _barh(ax, labels: Sequence[str], values: Sequence[float], color: str, title: str, unit: str = "") -> None:
    """Horizontal bars, the first label on top, each bar labelled with its value."""
    ys = range(len(labels))
    ax.barh(list(ys), values, color=color)
    ax.set_yticks(list(ys), [_short(label) for label in labels])
    ax.invert_yaxis()
    ax.set_title(title, loc="left", fontsize=9)
    top = max(values, default=0) or 1
    for y, v in zip(ys, values):
        ax.text(v + top * 0.01, y, f"{v:,.3g}{unit}" if isinstance(v, float) else f"{v:,}{unit}",
                va="center", fontsize=7)
    ax.set_xlim(0, top * 1.18)
    ax.xaxis.set_major_locator(MaxNLocator(5))


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[:width - 1] + "…"


def bars(labels: Sequence[str], values: Sequence[float], title: str, color: str = PLAIN, unit: str = "") -> str:
    """One horizontal bar chart (timings, per-attribute loss)."""
    fig, axes = _figure(6.4, 0.45 + 0.28 * max(len(labels), 1))
    _barh(axes[0][0], labels, values, color, title, unit)
    return svg(fig)


def _distribution_panel(ax, found: dict[str, Any] | None, color: str, title: str, absent: str) -> None:
    if found is None:
        ax.set_axis_off()
        ax.set_title(f"{title}: {absent}", loc="left", fontsize=9)
        return
    title = f"{title}: {found['rows']:,} rows"
    if found["kind"] == "values":
        _barh(ax, [v["value"] for v in found["values"]], [v["rows"] for v in found["values"]], color,
              f"{title}, {found['distinct']:,} distinct values")
        return
    bins = found["bins"]   # numbers, or datetimes for a date column (matplotlib draws a date axis)
    ax.bar([b["low"] for b in bins], [b["rows"] for b in bins],
           width=[b["high"] - b["low"] if b["high"] != b["low"] else found.get("unit", 1) for b in bins],
           align="edge", color=color, edgecolor="white", linewidth=0.5)
    missing = f", {found['missing']:,} missing" if found["missing"] else ""
    ax.set_title(title + missing, loc="left", fontsize=9)
    ax.set_ylabel("rows")


def distribution(title: str, before: dict[str, Any] | None, after: dict[str, Any] | None,
                 absent: str = "not in this table") -> str:
    """An attribute before (source) and after (release), side by side on one scale of rows (and
    of values, for a histogram); ``absent`` says why a side is not shown."""
    longest = max(len(d["values"]) if d and d["kind"] == "values" else 8 for d in (before, after))
    fig, axes = _figure(9.6, max(1.7, 0.7 + 0.24 * longest), panels=2)
    _distribution_panel(axes[0][0], before, BEFORE, "source", absent)
    _distribution_panel(axes[0][1], after, AFTER, "release", "not in this table")
    if before is not None and after is not None and before["kind"] == after["kind"]:   # one scale for the pair
        pair = (axes[0][0], axes[0][1])
        rows = "x" if before["kind"] == "values" else "y"
        top = max(getattr(ax, f"get_{rows}lim")()[1] for ax in pair)
        for ax in pair:
            getattr(ax, f"set_{rows}lim")(0, top)
        if before["kind"] == "bins":   # and one range of values
            low, high = min(ax.get_xlim()[0] for ax in pair), max(ax.get_xlim()[1] for ax in pair)
            for ax in pair:
                ax.set_xlim(low, high)
    fig.suptitle(title, x=0.01, ha="left", fontsize=10, fontweight="bold")
    fig.tight_layout()
    return svg(fig)


def class_sizes(sizes: Sequence[dict[str, int]]) -> str:
    """Records per class size (range), each bar labelled with its number of classes."""
    labels = [str(s["min_size"]) if s["min_size"] == s["max_size"] else f"{s['min_size']}-{s['max_size']}"
              for s in sizes]
    fig, axes = _figure(6.4, 2.6)
    ax = axes[0][0]
    ax.bar(range(len(sizes)), [s["rows"] for s in sizes], color=PLAIN)
    ax.set_xticks(range(len(sizes)), labels, rotation=45 if len(sizes) > 8 else 0, ha="right" if len(sizes) > 8
                  else "center", fontsize=7)
    for x, s in enumerate(sizes):
        ax.text(x, s["rows"], f"{s['classes']:,}", ha="center", va="bottom", fontsize=6)
    ax.set_xlabel("class size (rows sharing their QI values); above each bar: classes")
    ax.set_ylabel("records")
    return svg(fig)


def record_risk(found: Sequence[dict[str, Any]], threshold: float | None) -> str:
    """Records per bin of prosecutor risk, the at-risk threshold marked."""
    fig, axes = _figure(6.4, 2.4)
    ax = axes[0][0]
    ax.bar([b["low"] for b in found], [b["records"] for b in found], width=[b["high"] - b["low"] for b in found],
           align="edge", color=RISK, edgecolor="white", linewidth=0.5)
    if threshold is not None:
        ax.axvline(threshold, color="black", linestyle="--", linewidth=0.8)
        ax.text(threshold, ax.get_ylim()[1] * 0.95, f" threshold {threshold:g}", fontsize=7, va="top")
    ax.set_xlim(0, 1)
    ax.set_xlabel("prosecutor risk of a record (1 / its class size)")
    ax.set_ylabel("records")
    return svg(fig)


#: a panel of :func:`version_series`: its title and, per line, its label and one value per version
Panel = tuple[str, dict[str, Sequence[float | None]]]


def version_series(versions: Sequence[int], panels: Sequence[Panel]):
    """Figures per version side by side (a release's history, ``anonymizer bench history``):
    each panel one or more lines, a point per version (``None``: not measured), every panel's
    y axis from 0, so that a flat line reads as flat. Returns the figure (:func:`svg` for a
    page, ``savefig`` for a file)."""
    fig, axes = _figure(3.2 * len(panels), 2.4, panels=len(panels))
    colors = (AFTER, BEFORE, RISK, PLAIN)
    for ax, (title, lines) in zip(axes[0], panels):
        for color, (label, ys) in zip(colors, lines.items()):
            points = [(v, y) for v, y in zip(versions, ys) if y is not None]
            ax.plot([v for v, _ in points], [y for _, y in points], color=color, marker="." if len(points) < 30
                    else None, linewidth=1.2, label=label)
        ax.set_title(title, loc="left", fontsize=9)
        ax.set_xlabel("version")
        ax.set_ylim(bottom=0)
        ax.xaxis.set_major_locator(MaxNLocator(6, integer=True))
        if len(lines) > 1:
            ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def history(rows: Sequence[dict[str, Any]]) -> str | None:
    """A release's versions as the report plots them (``rows``: audit rows oldest first, each
    with ``across``, :func:`anonymizer.versions.combination.summary`): seconds, counterfeits
    (rows, or individuals in an identity-reserved release), loss, and the people a difference
    isolates or an intersection leaves below l (a gap where a version was not gated);
    ``None`` for fewer than two published versions."""
    published = [r for r in rows if (r.get("event") or "publish") == "publish"]
    if len(published) < 2:
        return None

    def figures(r: dict) -> dict:
        f = r.get("figures") or {}
        return json.loads(f) if isinstance(f, str) else f

    def seconds(r: dict) -> float | None:
        t = r.get("timings") or {}
        t = json.loads(t) if isinstance(t, str) else t
        return t.get("total")

    def loss(r: dict) -> float | None:
        utility = figures(r).get("utility") or {}
        return next((utility[k] for k in LOSS if isinstance(utility.get(k), (int, float))), None)

    across = [r.get("across") or {} for r in published]
    unit = next((a["unit"] for a in across if a.get("unit")), "rows")
    fig = version_series([r["version"] for r in published], [
        ("seconds", {"seconds": [seconds(r) for r in published]}),
        (f"counterfeit {unit}", {"counterfeits": [a.get("counterfeits") if a else None for a in across]}),
        ("loss", {"loss": [loss(r) for r in published]}),
        ("people narrowed", {"isolated by a difference": [a.get("isolated") for a in across],
                             "below l by intersection": [a.get("below") for a in across]}),
    ])
    return svg(fig)


#: the utility figure the history plots as a version's loss, the first a release has: the
#: families' own (LGB's per QI cell, anatomy's, identity-reserved's NLoss), then NCP
#: (generalized), as ``anonymizer bench history`` reports them
LOSS = ("ncp_per_qi_cell", "additional_information_loss", "nloss", "ncp")
