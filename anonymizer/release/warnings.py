"""Where a release is weaker than its verdict looks (issue 56): the declared models can all
hold while a sensitive column is homogeneous in some classes (a release that declares only
k-anonymity), a passed-through column tells a generalized QI or points at one row, or every
QI is generalized to its top so that the release tells nothing of them. :func:`weaker`
words each finding once; the command line's summary and the HTML report show the same list."""

from __future__ import annotations

from anonymizer.numbers import fmt


def weaker(measures: dict, declared: list[dict]) -> list[str]:
    """The warnings for a release's ``measures`` (:func:`anonymizer.measure.measure_table`'s
    figures, with the family's ``passthrough`` findings, :mod:`anonymizer.metrics.passthrough`)
    and its ``declared`` models' entries (``{model, holds, ...}``), one sentence each."""
    found = []
    models = " ".join(m.get("model", "") for m in declared)
    for name, figures in (measures.get("sensitive") or {}).items():
        classes = figures.get("homogeneous_classes") or 0
        if classes:
            guard = "" if f"on '{name}'" in models else f" (no l-diversity or t-closeness is declared on {name!r})"
            found.append(f"{name}: {classes} class(es) hold a single value of it, so everyone in them discloses "
                         f"it{guard}")
    by_column: dict[str, list[dict]] = {}
    for entry in measures.get("passthrough") or []:
        by_column.setdefault(entry["column"], []).append(entry)
    for column, entries in by_column.items():
        told = sorted((e for e in entries if e["qi"] is not None), key=lambda e: -e["rows"])
        unique = sum(e["rows"] for e in entries if e["qi"] is None)
        said = []
        if told:
            named = ", ".join(f"{e['qi']} for {fmt(e['rows'])} row(s)" for e in told[:3])
            more = f" and {len(told) - 3} more QI(s)" if len(told) > 3 else ""
            said.append(f"tells {named}{more} that the release generalized")
        if unique:
            said.append(f"holds a value no other row holds in {fmt(unique)} row(s), which points at them")
        found.append(f"{column} (passed through, unchanged) {' and '.join(said)}")
    rows, classes = measures.get("rows") or 0, measures.get("classes")
    if classes == 1 and rows > 1:
        found.append(f"every row is in one class ({fmt(rows)} rows): the release tells nothing of its "
                     "quasi-identifiers (the models asked more than the data allow short of that)")
    return found
