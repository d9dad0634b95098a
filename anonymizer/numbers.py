"""One validator for every numeric parameter of a spec, a model or an option.

A parameter is a finite number in its range: NaN passes no comparison (``nan < 0`` and
``nan > 1`` are both false, and DuckDB orders NaN above every number), so a range check
alone lets ``t: .nan`` through and makes the model hold for every class. Infinities are
refused too (``c: .inf`` makes recursive diversity hold for every class). Whole numbers
must fit a signed 64-bit integer, the type they are bound to in SQL.
"""

from __future__ import annotations

import math
from typing import Any

from anonymizer.errors import SpecError

#: the largest whole number a parameter may take (DuckDB binds Python ints as BIGINT).
MAX_WHOLE = 2**63 - 1


def _bound(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return " and ".join(parts)


def number(value: Any, where: str, low: float | None = None, high: float | None = None, *,
           low_open: bool = False, high_open: bool = False, whole: bool = False, what: str | None = None):
    """``value`` if it is a finite number (an ``int`` when ``whole``) in the range, else a
    :class:`SpecError` naming ``where``.

    ``low`` and ``high`` are inclusive unless ``low_open`` / ``high_open``; ``what``, when
    given, replaces the generated description of what is expected.

    Example:
        >>> number(0.2, "models[0].t", 0, 1)
        0.2
        >>> try:
        ...     number(float("nan"), "models[0].t", 0, 1)
        ... except SpecError as err:
        ...     print(err)
        models[0].t: must be a finite number >= 0 and <= 1 (got nan)
    """
    bound = _bound(low, high, low_open, high_open)
    expected = what or (f"a {'whole' if whole else 'finite'} number" + (f" {bound}" if bound else ""))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(where, f"must be {expected}", value)
    if whole and not isinstance(value, int):
        raise SpecError(where, f"must be {expected}", value)
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(where, f"must be {expected}", value)
    if whole and abs(value) > MAX_WHOLE:
        raise SpecError(where, f"must be {expected}, at most {MAX_WHOLE}", value)
    if not whole and isinstance(value, int) and abs(value) > 2 ** 1000:   # no float holds it
        raise SpecError(where, f"must be {expected}, within a float's range", value)
    if low is not None and (value <= low if low_open else value < low):
        raise SpecError(where, f"must be {expected}", value)
    if high is not None and (value >= high if high_open else value > high):
        raise SpecError(where, f"must be {expected}", value)
    return value


def is_number(value: Any) -> bool:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and (not isinstance(value, float) or math.isfinite(value)))


def fmt(value: Any) -> str:
    """A figure as a summary prints it: a float to 4 significant digits."""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
