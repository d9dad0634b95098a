"""Noise for differentially private aggregates, sampled exactly on the integers (Canonne,
Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Algorithms 1-3), from the operating system's CSPRNG (:func:`secrets.randbelow`).

Why the integers: a floating-point Laplace sample ``b * ln(u)`` leaves holes and uneven steps
that reveal the value it was added to (Mironov, "On significance of the least significant bits
for differential privacy", CCS 2012). Here every query is an integer (a count, or a sum of
values rounded to a grid of the measure's bounds: :mod:`anonymizer.families.aggregates.cells`),
the noise is an integer drawn with rational arithmetic only (:class:`fractions.Fraction`, no
``exp`` or ``log`` of floats), and the published value is the integer sum, scaled back to the
grid after the noise: the float ε and δ of a spec are read as the exact rationals they are.

- :func:`discrete_laplace`: ``P[Y = y] ∝ exp(-|y| / scale)``; with ``scale = Δ1 / ε`` it is
  ε-DP for a query of L1 sensitivity Δ1 (the geometric mechanism, Ghosh, Roughgarden and
  Sundararajan 2009);
- :func:`discrete_gaussian`: ``P[Y = y] ∝ exp(-y² / (2 σ²))``; ρ-zCDP with ``ρ = Δ2² / (2 σ²)``
  (CKS 2020, Theorem 4), hence (ε, δ)-DP for ``ε = ρ + 2 sqrt(ρ ln(1/δ))`` (Bun and Steinke
  2016, Proposition 1.3); :func:`gaussian_sigma2` inverts that for a target (ε, δ).
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction


def bernoulli(p: Fraction) -> bool:
    """True with probability ``p`` (a rational in [0, 1]), exactly."""
    return secrets.randbelow(p.denominator) < p.numerator


def bernoulli_exp(gamma: Fraction) -> bool:
    """True with probability ``exp(-gamma)``, ``gamma >= 0`` rational (CKS 2020, Algorithm 1)."""
    while gamma > 1:
        if not _bernoulli_exp_small(Fraction(1)):
            return False
        gamma -= 1
    return _bernoulli_exp_small(gamma)


def _bernoulli_exp_small(gamma: Fraction) -> bool:
    k = 1
    while bernoulli(gamma / k):
        k += 1
    return k % 2 == 1


def discrete_laplace(scale: Fraction) -> int:
    """One draw of the discrete Laplace distribution of ``scale`` (``t / s`` in CKS 2020,
    Algorithm 2: ``P[y] ∝ exp(-|y| s / t)``)."""
    if scale <= 0:
        raise ValueError(f"the scale of discrete Laplace noise must be positive, got {scale}")
    t, s = scale.numerator, scale.denominator
    while True:
        u = secrets.randbelow(t)
        if not bernoulli_exp(Fraction(u, t)):
            continue
        v = 0
        while bernoulli_exp(Fraction(1)):
            v += 1
        y = (u + t * v) // s
        negative = secrets.randbelow(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_gaussian(sigma2: Fraction) -> int:
    """One draw of the discrete Gaussian of variance parameter ``sigma2`` (CKS 2020, Algorithm 3)."""
    if sigma2 <= 0:
        raise ValueError(f"the variance of discrete Gaussian noise must be positive, got {sigma2}")
    t = math.isqrt(math.floor(sigma2)) + 1
    while True:
        y = discrete_laplace(Fraction(t))
        gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if bernoulli_exp(gamma):
            return y


def laplace_scale(sensitivity: float | Fraction, epsilon: float | Fraction) -> Fraction:
    """The scale ``Δ1 / ε`` of ε-DP discrete Laplace noise, exactly (the floats as the rationals they are)."""
    return Fraction(sensitivity) / Fraction(epsilon)


def gaussian_sigma2(l2_squared: Fraction, epsilon: Fraction, delta: float) -> Fraction:
    """``σ²`` whose discrete Gaussian is (ε, δ)-DP for a query whose L2 sensitivity squared is
    ``l2_squared``, through ρ-zCDP: ``ρ = (sqrt(ln(1/δ) + ε) - sqrt(ln(1/δ)))²``,
    ``σ² = Δ2² / (2 ρ)``. ρ is computed in floats and lowered by one part in 10^9 before use,
    so that the rounding of ``log`` and ``sqrt`` can only add noise."""
    log = math.log(1 / delta)
    rho = (math.sqrt(log + float(epsilon)) - math.sqrt(log)) ** 2 * (1 - 1e-9)
    return Fraction(l2_squared) / (2 * Fraction(rho))


def selection_threshold(scale: Fraction, groups: int, delta: float) -> int:
    """The threshold ``τ`` of private key selection: a cell is published when its count of
    persons plus discrete Laplace noise of ``scale`` reaches ``τ``. A cell that one person alone
    makes (count 1) passes with probability ``P[Y >= τ - 1] = q^(τ-1) / (1 + q)``, ``q =
    exp(-1/scale)``; a person makes at most ``groups`` cells, so ``τ`` is the least whole number
    with ``groups * q^(τ-1) / (1 + q) <= δ`` (one part in 10^9 of margin for the floats)."""
    q = math.exp(-1 / float(scale))
    need = math.log(groups / (delta * (1 + q))) / (1 / float(scale))
    return 1 + max(0, math.ceil(need * (1 + 1e-9)))
