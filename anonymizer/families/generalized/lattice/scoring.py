"""PrivacyFrost2's scoring functions (paper 003, section 6).

A table's score rates how well it keeps what the user asked for: ``v[i]`` is QI ``i``'s
priority and ``e[i]`` its number of value types in the table (how many distinct values
remain at its generalization level). All three work on those few numbers only.

- basic (section 6.1):        ``S = sum_i v_i * e_i``
- eta-based (section 6.2):    ``S = sum_i v_i * eta(e_i)``, ``eta(x) = 2 if x > d,
  1 if d/2 < x <= d, 0 if x <= d/2``: favours tables generalized evenly;
- logarithm-based (6.3):      ``S = max_i v_i * log(e_i) / log(e^b_i)``, ``e^b_i`` the value
  types before anonymization: the top-priority attribute's precision dominates. The
  paper prints ``max``, and we follow it. A QI with a single value before anonymization
  (``log 1 = 0``) counts as kept whole (ratio 1).

:meth:`Scoring.bound` is the skip rule's upper bound (section 5.3): the best score
de-generalizing QI ``i`` could reach, with ``e_i`` replaced by ``b``, the number of nodes
at the next level. For the basic function it is the paper's ``s' + delta_s``,
``delta_s = (b - e_i) * v_i``; for the others it is the same bound, taken through their
formula (both are non-decreasing in each ``e_i``).

Flat steps (``tie_break``). The search moves only to a table whose score is *strictly*
higher (Figure 3: ``Score(T) > s``). eta is a step function and log a maximum: a
de-generalization that adds value types often leaves them unchanged, so the search can
stop at the fully generalized table although better tables satisfy the models (on ARX's
Adult, Table 2's grid, eta with d = 10 returns all-``*`` in 4 of 6 cells where basic
scoring reaches loss 0.882 and 0.757; ``anonymizer reproduce p003``). That is the
paper's behaviour and the default (``tie_break: none``). ``tie_break: basic`` compares
tables by their score first and, on a tie, by the basic score (section 6.1): the chosen
function still decides, the basic score only lets the search cross its flat steps.
:meth:`Scoring.rank` is that comparison key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Scoring:
    """A scoring function with its parameters.

    Attributes:
        name: ``basic``, ``eta`` or ``log``.
        priorities: ``v_i`` per QI (positive).
        d: the constant of ``eta`` (eta-based only).
        before: ``e^b_i`` per QI (logarithm-based only).
        tie_break: ``none`` (the paper) or ``basic`` (equal scores compared by the basic score).

    Example (section 6.1 with v = (10, 5, 1, 1)):
        >>> Scoring("basic", (10, 5, 1, 1)).score([3, 2, 4, 1])
        45.0
        >>> Scoring("eta", (10, 5, 1, 1), d=2).score([3, 2, 4, 1])
        27.0
        >>> Scoring("eta", (1, 1), d=10, tie_break="basic").rank([3, 2]) > Scoring("eta", (1, 1), d=10).rank([3, 2])
        True
    """

    name: str
    priorities: tuple[float, ...]
    d: float = 0.0
    before: tuple[int, ...] = ()
    tie_break: str = "none"

    def score(self, e: Sequence[int]) -> float:
        """The score of a table whose QIs have ``e`` value types."""
        if self.name == "basic":
            return float(sum(v * x for v, x in zip(self.priorities, e)))
        if self.name == "eta":
            return float(sum(v * self.eta(x) for v, x in zip(self.priorities, e)))
        return max(v * self._log_ratio(x, b) for v, x, b in zip(self.priorities, e, self.before))

    def rank(self, e: Sequence[int]) -> tuple[float, float]:
        """The comparison key of a table: ``(score, basic score)`` with ``tie_break: basic``,
        else ``(score, 0)`` (equal scores tie, as in the paper)."""
        tie = float(sum(v * x for v, x in zip(self.priorities, e))) if self.tie_break == "basic" else 0.0
        return self.score(e), tie

    def bound(self, e: Sequence[int], i: int, b: int) -> tuple[float, float]:
        """Upper bound of :meth:`rank` after de-generalizing QI ``i`` (its ``e_i`` becomes at
        most ``b``): every part of the key is non-decreasing in each ``e_i``."""
        e = list(e)
        e[i] = max(e[i], b)
        return self.rank(e)

    def eta(self, x: float) -> int:
        """The step function of section 6.2."""
        if x > self.d:
            return 2
        return 1 if x > self.d / 2 else 0

    @staticmethod
    def _log_ratio(x: int, before: int) -> float:
        if before <= 1:
            return 1.0
        return math.log(max(x, 1)) / math.log(before)
