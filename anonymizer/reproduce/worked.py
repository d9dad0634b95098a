"""The papers' worked examples, each printed beside ours: ``anonymizer reproduce pNNN
--table N`` or ``--figure N``.

Every paper package that has worked examples holds a module ``examples`` with a dict
``EXAMPLES``: ``("table" | "figure", "N")`` -> ``(title, function)``. The function takes a
DuckDB connection and returns a list of :class:`Side`: one table of the paper, its rows as
the paper prints them, and the same rows as our code computes them. Rows are compared as
text, cell by cell, so a difference shows where it is.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

#: paper -> the package holding its ``examples`` module
PACKAGES = {"p000": "p000_lgb", "p001": "p001_hierarchies", "p002": "p002_msb",
            "p003": "p003_privacyfrost2", "p004": "p004_identity_reserved"}


@dataclass
class Side:
    """One of the paper's tables beside ours: ``paper`` and ``ours`` are lists of rows
    under ``columns``; ``note`` says how to read a difference the paper explains (or we do).
    ``reference`` names where the left side comes from: the paper's print, or (where the
    paper prints no figure) a computation by hand that is ours, not the paper's."""

    caption: str
    columns: list[str]
    paper: list[tuple]
    ours: list[tuple]
    note: str = ""
    reference: str = "paper"
    cells: list[list[bool]] = field(init=False)

    def __post_init__(self) -> None:
        width = len(self.columns)
        for name, rows in (("paper", self.paper), ("ours", self.ours)):
            if any(len(r) != width for r in rows):
                raise ValueError(f"{self.caption}: a row of {name} does not have {width} cells")
        self.paper = [tuple(_text(v) for v in r) for r in self.paper]
        self.ours = [tuple(_text(v) for v in r) for r in self.ours]
        self.cells = [[i < len(self.ours) and a == self.ours[i][j] for j, a in enumerate(r)]
                      for i, r in enumerate(self.paper)]

    @property
    def same(self) -> bool:
        """Every row and cell of the paper's table is ours, and ours has no more rows."""
        return self.paper == self.ours

    def to_json(self) -> dict[str, Any]:
        return {"caption": self.caption, "columns": self.columns, "paper": [list(r) for r in self.paper],
                "ours": [list(r) for r in self.ours], "same": self.same, "note": self.note,
                "reference": self.reference}


def _text(value: Any) -> str:
    """A cell as both sides print it: floats to 4 significant decimals, lists as {a, b}."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return "{" + ", ".join(_text(v) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value)) + "}"
    return "" if value is None else str(value)


def examples(paper: str) -> dict[tuple[str, str], tuple[str, Callable]]:
    """The worked examples of ``paper`` ("p000" ... "p004"), empty if it has none."""
    try:
        module = importlib.import_module(f"anonymizer.reproduce.{PACKAGES[paper]}.examples")
    except ModuleNotFoundError as missing:
        if missing.name and missing.name.endswith(".examples"):
            return {}
        raise
    return module.EXAMPLES


def listing(paper: str) -> str:
    """One line per worked example of ``paper``: how to ask for it, and its title."""
    found = examples(paper)
    if not found:
        return f"paper {paper[1:]} has no worked example here"
    return "\n".join(f"  {f'--{kind} {number}':<12} {title}" for (kind, number), (title, _) in sorted(found.items()))


def run(con, paper: str, kind: str, number: str) -> tuple[str, list[Side]]:
    """Compute one worked example: its title and its sides. A ``LookupError`` names the ones there are."""
    found = examples(paper)
    if (kind, number) not in found:
        raise LookupError(f"paper {paper[1:]} has no worked {kind} {number}; there are:\n{listing(paper)}")
    title, compute = found[(kind, number)]
    return title, compute(con)


def format_side(side: Side) -> str:
    """The paper's table and ours, side by side: each row of ours marked '=' where it equals
    the paper's row, else '≠' with the differing cells in [brackets]."""
    widths = [max([len(c)] + [len(r[i]) + 2 for r in side.paper + side.ours])
              for i, c in enumerate(side.columns)]

    def line(cells, marks=None):
        return "  ".join((f"[{c}]" if marks is not None and not marks[i] else c).ljust(widths[i])
                         for i, c in enumerate(cells))

    head = line(side.columns)
    gap = " " * 4
    out = [side.caption, "=" * len(side.caption),
           side.reference.ljust(len(head)) + gap + "   ours", head + gap + "   " + head]
    for i in range(max(len(side.paper), len(side.ours))):
        left = line(side.paper[i]) if i < len(side.paper) else " " * len(head)
        if i < len(side.ours):
            marks = side.cells[i] if i < len(side.paper) else [False] * len(side.columns)
            mark = "=" if all(marks) else "≠"
            out.append(f"{left}{gap}{mark}  {line(side.ours[i], marks)}")
        else:
            out.append(f"{left}{gap}≠  (missing)")
    source = "the paper" if side.reference == "paper" else side.reference
    out.append(f"same as {source}" if side.same else f"differs from {source} (cells in [brackets])")
    if side.note:
        out.append(f"note: {side.note}")
    return "\n".join(out)


def format_example(title: str, sides: list[Side]) -> str:
    return "\n\n".join([title] + [format_side(s) for s in sides])


def example_json(paper: str, kind: str, number: str, title: str, sides: list[Side]) -> dict[str, Any]:
    return {"paper": paper[1:], kind: number, "title": title, "same": all(s.same for s in sides),
            "tables": [s.to_json() for s in sides]}
