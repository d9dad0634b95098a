"""What the audit keeps of a differentially private release.

ε covers what the release publishes (its rows) and nothing else a run could write down. The
audit table is read by the adversary we design against, so a DP release's audit row keeps
only what its published rows, its spec and its parameters already say:

- kept: the spec's hash and text, the parameters (ε, δ, β, k, the node published), the
  models' verdicts and figures read from the published rows (k as measured, classes), the
  rows published;
- withheld (written as NULL, :data:`WITHHELD` or left out): the source's fingerprint (a digest of every input
  row: whoever knows all rows but one could test each candidate for the last one against
  it), the input's row count and the rows suppressed (with the rows published they give the
  input's size, one person more or less), the utility figures (measured against the input's
  rows) and the phases' timings (which grow with the input).

A DP release therefore never finds itself "unchanged": every run publishes a new version and
spends its ε again (the budget ledger counts it).
"""

from __future__ import annotations

#: the source fingerprint a DP release's audit row records: no digest ever equals it
WITHHELD = "withheld: differential privacy"
#: the figures of a DP release's audit row that are read from its published rows only
KEPT_FIGURES = ("models", "k", "classes", "combination", "views", "safepub")


def withheld(record: dict) -> dict:
    """``record`` (an audit row's values, :func:`anonymizer.release.run._record`) with what a
    DP release may not keep withheld (module docstring)."""
    figures = {k: v for k, v in (record.get("figures") or {}).items() if k in KEPT_FIGURES}
    return {**record, "fingerprint": WITHHELD, "rows_in": None, "suppressed": None, "timings": {}, "figures": figures}
