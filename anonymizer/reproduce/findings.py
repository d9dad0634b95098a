"""What every paper experiment reports the same way: a claim of the paper checked against
the measured rows (a *finding*), its verdict, and the text that shows it.

A finding's verdict is never set by hand: it follows from its *checks*, each one printed
number against the bound the claim sets (:func:`check`). Every check met: *holds*; none:
*does not hold*; some: *partly*, with the checks inside and outside the claim printed;
no check (the rows lack what the claim needs): *n/a*. The printed text carries each
check's number, bound and outcome, so a reader (and ``tests/project/test_verdicts.py``)
can recompute every verdict from what was printed.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

#: verdicts of a finding: every check met, none, some, no check
HOLDS, PARTLY, NOT, NA = "holds", "partly", "does not hold", "n/a"

#: a bound: ``>= 10``, ``> 0``, ``<= 0.1``, ``< 1``, ``== 0`` or ``in [1, 1.05]``
_RULE = re.compile(r"^(?:(>=|>|<=|<|==) (\S+)|in \[(\S+), (\S+)\])$")


def rounded(x: float) -> float:
    """A figure as findings show it (4 decimals)."""
    return round(float(x), 4)


def meets(value: float, rule: str) -> bool:
    """Whether ``value`` meets ``rule``:

    >>> meets(1.16, "in [1, 1.05]"), meets(0.0, ">= 0"), meets(2, "< 2")
    (False, True, False)
    """
    m = _RULE.match(rule)
    if m is None:
        raise ValueError(f"a check's rule must read '>= x', '> x', '<= x', '< x', '== x' or 'in [a, b]': {rule!r}")
    op, bound, lo, hi = m.groups()
    if op is None:
        return float(lo) <= value <= float(hi)
    b = float(bound)
    return {">=": value >= b, ">": value > b, "<=": value <= b, "<": value < b, "==": value == b}[op]


@dataclass(frozen=True)
class Check:
    """One measured number (rounded as printed) against the claim's bound, and whether it
    meets it, decided on the printed number."""

    value: float
    rule: str
    met: bool


def check(value: float, rule: str) -> Check:
    """``value`` (rounded to 4 decimals, as printed) checked against ``rule``."""
    v = rounded(value)
    return Check(v, rule, meets(v, rule))


def verdict(met: list[bool]) -> str:
    """All met, none, some, or no check."""
    return NA if not met else HOLDS if all(met) else NOT if not any(met) else PARTLY


def finding(key: str, claim: str, checks: dict[str, Check], note: str, context: dict | None = None) -> dict:
    """One claim checked: its id in the paper's list, the claim, the checks (label to
    :class:`Check`), the verdict they give, the rule in words, and context numbers that
    explain but do not decide (``context``)."""
    return {"id": key, "claim": claim, "holds": verdict([c.met for c in checks.values()]), "note": note,
            "checks": {label: asdict(c) for label, c in checks.items()}, "context": context or {}}


def _number(x: float) -> str:
    """A check's number in full (4 decimals at most, as it was rounded): read back, it is the
    number the check compared."""
    return f"{x:.4f}".rstrip("0").rstrip(".") if math.isfinite(x) else str(x)


def check_line(label: str, c: dict, indent: str) -> str:
    """A check as printed: ``met`` or ``missed``, the label, the number, the claim's bound.

    >>> check_line("ratio |QI|=3", {"value": 1.1634, "rule": "in [1, 1.05]", "met": False}, "  ")
    '  missed  ratio |QI|=3: 1.1634  (claim: in [1, 1.05])'
    """
    return f"{indent}{'met' if c['met'] else 'missed':<6}  {label}: {_number(c['value'])}  (claim: {c['rule']})"


def context_lines(value: Any, indent: str) -> list[str]:
    """Nested context as indented lines."""
    if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
        out = []
        for k, v in value.items():
            if isinstance(v, dict):
                out.append(f"{indent}{k}:")
                out += context_lines(v, indent + "  ")
            else:
                out.append(f"{indent}{k}: {v}")
        return out
    if isinstance(value, dict):
        return [indent + ", ".join(f"{k}: {v}" for k, v in value.items())]
    return [f"{indent}{value}"]


def format_findings(found: list[dict], paper: str) -> str:
    """The findings, one block each: verdict and claim, the rule, each check, how many met,
    and the context numbers."""
    title = f"paper {paper}'s claims against these rows"
    lines = [title, "=" * len(title)]
    for f in found:
        lines += ["", f"({f['id']}) {f['holds'].upper():<13} {f['claim']}", f"    rule: {f['note']}"]
        checks = f["checks"]
        lines += [check_line(label, c, "    ") for label, c in checks.items()]
        met = sum(c["met"] for c in checks.values())
        lines.append(f"    {met} of {len(checks)} checks met" if checks else "    no check: the rows lack what it needs")
        if f["context"]:
            lines.append("    context (not part of the verdict):")
            lines += context_lines(f["context"], "      ")
    return "\n".join(lines)
