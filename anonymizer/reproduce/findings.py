"""What every paper experiment reports the same way: a claim of the paper checked against
the measured rows (a *finding*), its verdict, and the text that shows it.

A finding's verdict is never set by hand: it follows from its *checks*, each one printed
number against the bound the claim sets (:func:`check`), by a rule fixed before any run
(:func:`verdict`): N of M checks met gives *holds* (every one), *mostly holds* (at least
three quarters), *partly* (more than a quarter, less than three quarters), *mostly does
not hold* (some, at most a quarter), *does not hold* (none); no check (the rows lack what
the claim needs): *n/a*. The printed text carries each check's number, bound and outcome, so
a reader (and ``tests/project/test_verdicts.py``) can recompute every verdict from what was
printed.

A claimed trend ("grows with k", "falls as d rises") is one check on the whole series
(:func:`trend`), never pieces that can each pass while the series goes the other way.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

#: verdicts of a finding, by the share of its checks met (:func:`verdict`)
HOLDS, MOSTLY, PARTLY, SCARCELY, NOT, NA = ("holds", "mostly holds", "partly", "mostly does not hold",
                                            "does not hold", "n/a")
#: the shares that bound *mostly holds* (at least) and *mostly does not hold* (at most)
MOSTLY_AT, SCARCELY_AT = 0.75, 0.25

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
    """The verdict of N of M checks met (the module docstring's rule):

    >>> [verdict([True] * n + [False] * (12 - n)) for n in (12, 10, 9, 8, 4, 3, 1, 0)]
    ['holds', 'mostly holds', 'mostly holds', 'partly', 'partly', 'mostly does not hold', 'mostly does not hold', 'does not hold']
    """
    if not met:
        return NA
    share = sum(met) / len(met)
    return (HOLDS if share == 1 else MOSTLY if share >= MOSTLY_AT else PARTLY if share > SCARCELY_AT
            else SCARCELY if share > 0 else NOT)


def trend(series: list[list[float]], up: bool = True) -> float:
    """How a claimed trend shows in ``series`` (one or more lines of values, each in the
    order of the setting that varies), judged whole: the share of the consecutive steps that
    go the claimed way (up, or down with ``up`` false) where the fitted slope (least squares
    against the step index, pooled over the lines) goes that way too; where it does not, minus
    the share of steps going the other way. In [-1, 1]: 1 every step the claimed way; a
    negative number, a series whose fit goes against the claim, however many steps agree.
    NaN without a step.

    >>> trend([[1.0, 2.0, 3.0], [2.0, 1.0, 4.0]]), trend([[1.0, 2.0, 3.0]], up=False)
    (0.75, -1.0)
    >>> trend([[1.0, 1.1, 1.2, 1.3, 0.1]])   # three steps of four up, the series down
    -0.25
    """
    sign = 1 if up else -1
    steps = [sign * (b - a) for s in series for a, b in zip(s, s[1:])]
    if not steps:
        return float("nan")
    covariance = variance = 0.0
    for s in series:
        if len(s) > 1:
            mx, my = (len(s) - 1) / 2, sum(s) / len(s)
            covariance += sum((i - mx) * (y - my) for i, y in enumerate(s))
            variance += sum((i - mx) ** 2 for i in range(len(s)))
    claimed = sign * covariance / variance > 0
    return (sum(d > 0 for d in steps) if claimed else -sum(d < 0 for d in steps)) / len(steps)


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
        lines += ["", f"({f['id']}) {f['holds'].upper():<20} {f['claim']}", f"    rule: {f['note']}"]
        checks = f["checks"]
        lines += [check_line(label, c, "    ") for label, c in checks.items()]
        met = sum(c["met"] for c in checks.values())
        lines.append(f"    {met} of {len(checks)} checks met" if checks else "    no check: the rows lack what it needs")
        if f["context"]:
            lines.append("    context (not part of the verdict):")
            lines += context_lines(f["context"], "      ")
    return "\n".join(lines)
