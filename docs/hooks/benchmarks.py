"""The benchmarks page's tables, generated from what ``anonymizer bench`` printed (mkdocs hook
``on_page_markdown``). Each run's JSON lines are kept as printed in ``docs/benchmarks/NAME.jsonl``
(re-recorded with the command the page shows, ``> docs/benchmarks/NAME.jsonl``); a marker

    <!-- bench NAME by FIELD,FIELD: FIELD, FIELD, ... -->

in ``benchmarks.md`` becomes a table: one row per value of the ``by`` fields, each other field
the median over that configuration's runs, and the number of runs (a line that is itself the
median of several, as ``bench arx-grid`` and ``bench recursive`` print, counts as its
``runs``). A field of a nested object is named with dots (``steps.algorithm``); a format
after a colon (``loss:.6f``) prints it so, else three significant digits."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks"
MARKER = re.compile(r"<!-- bench (\S+) by ([\w.,]+): ([\w.,: ]+) -->")


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != "benchmarks.md":
        return markdown
    return MARKER.sub(lambda m: table(m.group(1), m.group(2).split(","), [f.strip() for f in m.group(3).split(",")]),
                      markdown)


def field(run: dict, name: str):
    for part in name.split("."):
        run = run.get(part) if isinstance(run, dict) else None
    return run


def show(value, form: str = "") -> str:
    if value is None:
        return "-"
    if form and isinstance(value, (int, float)):
        return format(value, form)
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def runs_of(line: dict) -> int:
    """How many runs a JSON line stands for: its own ``runs`` (a count, or the list of each
    run's seconds) when it is a median, else one."""
    runs = line.get("runs", 1)
    return len(runs) if isinstance(runs, list) else int(runs)


def table(name: str, by: list[str], shown: list[str]) -> str:
    """The median of each ``shown`` field (``FIELD`` or ``FIELD:FORMAT``) per configuration
    (the ``by`` fields) of the runs in ``docs/benchmarks/NAME.jsonl``, as a Markdown table."""
    runs = [json.loads(line) for line in (RESULTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.startswith("{")]
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault(tuple(field(run, b) for b in by), []).append(run)
    fields = [f.partition(":")[0] for f in shown]
    forms = [f.partition(":")[2] for f in shown]
    lines = ["| " + " | ".join(by + fields + ["runs"]) + " |", "|" + " --- |" * (len(by) + len(shown) + 1)]
    for key, group in groups.items():
        medians = []
        for name_ in fields:
            values = [v for v in (field(r, name_) for r in group) if v is not None]
            numeric = values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            medians.append(statistics.median(values) if numeric else (values[0] if values else None))
        cells = [show(v) for v in key] + [show(v, form) for v, form in zip(medians, forms)]
        lines.append("| " + " | ".join(cells + [str(sum(runs_of(r) for r in group))]) + " |")
    return "\n".join(lines)
