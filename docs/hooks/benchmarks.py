"""The benchmarks page's tables, generated from what ``anonymizer bench`` printed (mkdocs hook
``on_page_markdown``). Each run's JSON lines are kept as printed in ``docs/benchmarks/NAME.jsonl``
(re-recorded with the command the page shows, ``> docs/benchmarks/NAME.jsonl``); a marker

    <!-- bench NAME by FIELD,FIELD: FIELD, FIELD, ... -->

in ``benchmarks.md`` becomes a table: one row per value of the ``by`` fields, each other field
the median over that configuration's runs, and the number of runs. A field of a nested object
is named with dots (``steps.algorithm``)."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks"
MARKER = re.compile(r"<!-- bench (\S+) by ([\w.,]+): ([\w., ]+) -->")


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != "benchmarks.md":
        return markdown
    return MARKER.sub(lambda m: table(m.group(1), m.group(2).split(","), [f.strip() for f in m.group(3).split(",")]),
                      markdown)


def field(run: dict, name: str):
    for part in name.split("."):
        run = run.get(part) if isinstance(run, dict) else None
    return run


def show(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def table(name: str, by: list[str], shown: list[str]) -> str:
    """The median of each ``shown`` field per configuration (the ``by`` fields) of the runs in
    ``docs/benchmarks/NAME.jsonl``, as a Markdown table."""
    runs = [json.loads(line) for line in (RESULTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.startswith("{")]
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault(tuple(field(run, b) for b in by), []).append(run)
    lines = ["| " + " | ".join(by + shown + ["runs"]) + " |", "|" + " --- |" * (len(by) + len(shown) + 1)]
    for key, group in groups.items():
        medians = []
        for name_ in shown:
            values = [v for v in (field(r, name_) for r in group) if v is not None]
            numeric = values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            medians.append(statistics.median(values) if numeric else (values[0] if values else None))
        lines.append("| " + " | ".join(show(v) for v in (*key, *medians, len(group))) + " |")
    return "\n".join(lines)
