"""A statistical test of a mechanism's privacy loss: from draws of an output event on two
neighbouring inputs, a lower confidence bound of ``ln(P[event | D] / P[event | D'])``. A
mechanism is (ε, 0)-DP only if that ratio is at most ``e^ε`` for every event, so a lower bound
above ε, at the stated confidence, says the mechanism is broken."""

from __future__ import annotations

import math

#: the normal quantile of the one-sided bounds: each bound holds with probability 1 - 3e-7
Z = 5.0


def wilson(hits: int, n: int, z: float = Z) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion (``hits`` of ``n``)."""
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def loss_lower_bound(hits: int, n: int, hits_neighbour: int, n_neighbour: int) -> float:
    """A lower bound of ``ln(p / p')`` at confidence about 1 - 6e-7 (both intervals hold)."""
    low, _ = wilson(hits, n)
    _, high = wilson(hits_neighbour, n_neighbour)
    return math.log(low / high) if low > 0 else -math.inf
