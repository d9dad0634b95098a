"""SafePub's β (the sampling probability) and k (of k-anonymity) from ε and δ (Bild, Kuhn and
Prasser, "SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy Guarantees",
PoPETs 2018(1); the bound of Li, Qardaji and Su, "On sampling, anonymization, and differential
privacy", 2012).

- β = 1 - e^-ε, the largest sampling probability for ε;
- γ = (e^ε - 1 + β) / e^ε;
- δ(k) = max over n >= n_m = ceil(k / γ - 1) of a_n = P[Bin(n, β) > floor(n γ)]; the search over
  n stops once the maximum so far reaches c_n = exp(-n (γ ln(γ / β) - (γ - β))), a Chernoff
  bound of every a_m with m >= n;
- k = one more than the least k with δ(k) < δ, as ARX's ``ParameterCalculation`` (3.9.2)
  returns it (its loop increments k once more after the test that ends it). δ(k) falls with
  k, so ARX's k is safe too; we take it so that our releases use ARX's figures exactly
  (tests/dp/test_safepub_parameters.py holds them, run live), and so that the rounding of our
  floating-point sums (ARX bounds its own with interval arithmetic) can never put a release at
  the least k with a δ(k) that is really above δ: δ(k + 1) is below δ(k) by far more than any
  rounding.

The binomial tails are summed in log space (``math.lgamma``), so no term underflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class SafePubParameters:
    """β and k for (ε, δ)."""

    epsilon: float
    delta: float
    beta: float
    k: int


def _log_binomial(n: int, j: int, log_beta: float, log_rest: float) -> float:
    return math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_beta + (n - j) * log_rest


def derive(epsilon: float, delta: float) -> SafePubParameters:
    """β and k (module docstring).

    Example:
        >>> p = derive(0.9, 1e-5)
        >>> round(p.beta, 6), p.k
        (0.59343, 59)
    """
    if not epsilon > 0 or not 0 < delta < 1:
        raise ValueError(f"SafePub needs epsilon > 0 and 0 < delta < 1, got epsilon={epsilon}, delta={delta}")
    beta = -math.expm1(-epsilon)
    gamma = (math.expm1(epsilon) + beta) / math.exp(epsilon)
    log_beta, log_rest = math.log(beta), math.log1p(-beta)

    @lru_cache(maxsize=None)
    def tail(n: int) -> float:                      # a_n = P[Bin(n, β) > floor(n γ)]
        terms = [_log_binomial(n, j, log_beta, log_rest) for j in range(math.floor(n * gamma) + 1, n + 1)]
        if not terms:
            return 0.0
        top = max(terms)
        return math.exp(top) * math.fsum(math.exp(t - top) for t in terms)

    def chernoff(n: int) -> float:                  # c_n
        return math.exp(-n * (gamma * math.log(gamma / beta) - (gamma - beta)))

    def delta_of(k: int) -> float:
        n, most = max(1, math.ceil(k / gamma - 1)), 0.0
        while True:
            most = max(most, tail(n))
            if most >= chernoff(n):
                return most
            n += 1

    k = 1
    while delta_of(k) >= delta:
        k += 1
    return SafePubParameters(epsilon, delta, beta, k + 1)


#: 2^53: a draw's 53 low bits are a whole number below it (``safepub/sample.sql.j2``)
DRAW_RANGE = 2 ** 53


def threshold(beta: float) -> int:
    """The draws below which a row is sampled: ``floor(β · 2^53)``, so that a row is kept with
    probability ``threshold / 2^53``, at most β (rounding down only strengthens the guarantee:
    δ(k) grows with β).

    Example:
        >>> threshold(0.5) == 2 ** 52, threshold(1.0) == 2 ** 53
        (True, True)
    """
    return int(beta * DRAW_RANGE)

