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

A timing check (a ratio of seconds) has a third outcome, decided by a margin for noise fixed
here before any run (:func:`timed`): the range the ratio takes where each median of repeated
runs may lie (:func:`median_range`: its 90 % confidence interval, or the fastest to the slowest
run when they are too few), widened to at least :data:`NOISE_FLOOR` either side of the
printed ratio. Met when the whole range meets the bound, missed when none of it does, and
*within noise* otherwise: printed with its range. A check within noise counts with the met
ones (the claim stands unless a measurement excludes it), and the count says how many were
within noise: a check whose ratio sits near its bound is met in one run and within noise in
the next, and counting both alike keeps the verdict where the evidence leaves it.

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

#: a timing check's range reaches at least this share of its ratio either side (:func:`timed`)
NOISE_FLOOR = 0.05

#: a bound: ``>= 10``, ``> 0``, ``<= 0.1``, ``< 1``, ``== 0`` or ``in [1, 1.05]``
_RULE = re.compile(r"^(?:(>=|>|<=|<|==) (\S+)|in \[(\S+), (\S+)\])$")


def rounded(x: float) -> float:
    """A figure as findings show it (4 decimals)."""
    return round(float(x), 4)


def _parts(rule: str) -> tuple[str | None, float, float, float]:
    """A rule's operator and bound, or (None, 0, and) its interval's ends."""
    m = _RULE.match(rule)
    if m is None:
        raise ValueError(f"a check's rule must read '>= x', '> x', '<= x', '< x', '== x' or 'in [a, b]': {rule!r}")
    op, bound, lo, hi = m.groups()
    return (op, float(bound), 0.0, 0.0) if op else (None, 0.0, float(lo), float(hi))


def meets(value: float, rule: str) -> bool:
    """Whether ``value`` meets ``rule``:

    >>> meets(1.16, "in [1, 1.05]"), meets(0.0, ">= 0"), meets(2, "< 2")
    (False, True, False)
    """
    op, b, lo, hi = _parts(rule)
    if op is None:
        return lo <= value <= hi
    return {">=": value >= b, ">": value > b, "<=": value <= b, "<": value < b, "==": value == b}[op]


def reachable(low: float, high: float, rule: str) -> bool:
    """Whether some number in ``[low, high]`` meets ``rule``:

    >>> reachable(1.4, 1.6, "<= 1.5"), reachable(1.6, 1.7, "<= 1.5"), reachable(0.5, 2.0, "in [1, 1.05]")
    (True, False, True)
    """
    op, b, lo, hi = _parts(rule)
    if op is None:
        return high >= lo and low <= hi
    if op == "==":
        return low <= b <= high
    return meets(high if op[0] == ">" else low, rule)


@dataclass(frozen=True)
class Check:
    """One measured number (rounded as printed) against the claim's bound, and whether it
    meets it, decided on the printed number; a timing check (:func:`timed`) also carries the
    range its runs allow, and ``met`` is None when the range straddles the bound."""

    value: float
    rule: str
    met: bool | None
    low: float | None = None
    high: float | None = None


def check(value: float, rule: str) -> Check:
    """``value`` (rounded to 4 decimals, as printed) checked against ``rule``."""
    v = rounded(value)
    return Check(v, rule, meets(v, rule))


def median_range(values: list[float], level: float = 0.9) -> tuple[float, float]:
    """Where the median of repeated runs lies: the distribution-free ``level`` confidence
    interval of the median, the order statistics x(j) and x(n + 1 - j) for the greatest j
    with P(x(j) <= median <= x(n + 1 - j)) = 1 - 2 P(Bin(n, 1/2) < j) >= ``level``, or the
    least and the greatest run when the runs are too few to reach it (3 runs reach 0.75). More
    runs narrow it, where the least and greatest of them would widen it.

    >>> median_range([3.0, 1.0, 2.0]), median_range([float(x) for x in range(1, 13)])
    ((1.0, 3.0), (3.0, 10.0))
    """
    xs, n = sorted(values), len(values)

    def coverage(j: int) -> float:        # P(x(j) <= median <= x(n + 1 - j))
        return 1 - 2 * sum(math.comb(n, i) for i in range(j)) / 2 ** n

    j = 1
    while j + 1 <= (n + 1) // 2 and coverage(j + 1) >= level:
        j += 1
    return xs[j - 1], xs[n - j]


def timed(value: float, low: float, high: float, rule: str) -> Check:
    """A timing check: the ratio ``value`` of two medians, and ``low``..``high``, the least and
    the greatest the ratio may take where each median may lie (:func:`median_range`); widened to at
    least :data:`NOISE_FLOOR` of the ratio either side, and all three are rounded as printed.
    Met when every number of the range meets ``rule``, missed when none does, else None
    (within noise):

    >>> [timed(r, lo, hi, "<= 1.5").met for r, lo, hi in ((1.2, 1.1, 1.3), (1.45, 1.4, 1.5), (1.8, 1.7, 1.9))]
    [True, None, False]
    """
    v = rounded(value)
    lo, hi = rounded(min(low, value * (1 - NOISE_FLOOR))), rounded(max(high, value * (1 + NOISE_FLOOR)))
    met = True if meets(lo, rule) and meets(hi, rule) else False if not reachable(lo, hi, rule) else None
    return Check(v, rule, met, lo, hi)


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
    standing = [c.met is not False for c in checks.values()]    # within noise: not excluded by the runs
    return {"id": key, "claim": claim, "holds": verdict(standing), "note": note,
            "checks": {label: _plain(c) for label, c in checks.items()}, "context": context or {}}


def _plain(c: Check) -> dict:
    """A check as the findings' JSON carries it (the range only for a timing check)."""
    out = asdict(c)
    if c.low is None:
        del out["low"], out["high"]
    return out


def _number(x: float) -> str:
    """A check's number in full (4 decimals at most, as it was rounded): read back, it is the
    number the check compared."""
    return f"{x:.4f}".rstrip("0").rstrip(".") if math.isfinite(x) else str(x)


def check_line(label: str, c: dict, indent: str) -> str:
    """A check as printed: ``met``, ``missed`` or ``noise`` (within noise), the label, the
    number, the claim's bound, and a timing check's range.

    >>> check_line("ratio |QI|=3", {"value": 1.1634, "rule": "in [1, 1.05]", "met": False}, "  ")
    '  missed  ratio |QI|=3: 1.1634  (claim: in [1, 1.05])'
    >>> check_line("t/l", {"value": 1.45, "rule": "<= 1.5", "met": None, "low": 1.3, "high": 1.6}, "")
    'noise   t/l: 1.45  (claim: <= 1.5; the runs allow 1.3 to 1.6)'
    """
    outcome = "noise" if c["met"] is None else "met" if c["met"] else "missed"
    runs = f"; the runs allow {_number(c['low'])} to {_number(c['high'])}" if c.get("low") is not None else ""
    return f"{indent}{outcome:<6}  {label}: {_number(c['value'])}  (claim: {c['rule']}{runs})"


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
        met = sum(c["met"] is not False for c in checks.values())
        noise = sum(c["met"] is None for c in checks.values())
        count = (f"    {met} of {len(checks)} checks met or within noise ({noise} within noise)" if noise
                 else f"    {met} of {len(checks)} checks met")
        lines.append(count if checks else "    no check: the rows lack what it needs")
        if f["context"]:
            lines.append("    context (not part of the verdict):")
            lines += context_lines(f["context"], "      ")
    return "\n".join(lines)
