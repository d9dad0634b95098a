"""The exact integer samplers (anonymizer.dp.noise): their distributions against the formulas,
and the privacy-loss test on neighbouring counts (passes for the scale Δ/ε, fails when the scale
is halved)."""

import math
from collections import Counter
from fractions import Fraction

import pytest

from anonymizer.dp import noise
from tests.dp.privacy_loss import loss_lower_bound


def test_bernoulli_exp_has_probability_exp_minus_gamma():
    n = 40_000
    for gamma in (Fraction(1, 3), Fraction(5, 2)):
        hits = sum(noise.bernoulli_exp(gamma) for _ in range(n))
        p = math.exp(-float(gamma))
        assert abs(hits / n - p) < 6 * math.sqrt(p * (1 - p) / n)


def test_discrete_laplace_has_its_distribution():
    """Frequencies of -3..3 against P[y] = (1 - q) / (1 + q) q^|y|, q = exp(-1/scale): chi-square
    below the 1e-6 critical value (7 df: 40.5)."""
    scale, n = Fraction(3, 2), 30_000
    q = math.exp(-1 / 1.5)
    counts = Counter(noise.discrete_laplace(scale) for _ in range(n))
    chi2 = 0.0
    for y in range(-3, 4):
        p = (1 - q) / (1 + q) * q ** abs(y)
        chi2 += (counts[y] - n * p) ** 2 / (n * p)
    assert chi2 < 40.5


def test_discrete_gaussian_has_its_variance():
    sigma2, n = Fraction(9, 1), 20_000
    draws = [noise.discrete_gaussian(sigma2) for _ in range(n)]
    mean = sum(draws) / n
    var = sum((d - mean) ** 2 for d in draws) / n
    assert abs(mean) < 6 * 3 / math.sqrt(n) and abs(var - 9) < 6 * 9 * math.sqrt(2 / n)


def _loss_bound(scale: Fraction, n: int = 60_000) -> float:
    """A lower confidence bound of the privacy loss of a count released with discrete Laplace
    noise of ``scale``, from the event 'the released value is >= 1' on counts 1 (D) and 0 (D')."""
    on_d = sum(1 + noise.discrete_laplace(scale) >= 1 for _ in range(n))
    on_d_prime = sum(noise.discrete_laplace(scale) >= 1 for _ in range(n))
    return loss_lower_bound(on_d, n, on_d_prime, n)


def test_count_noise_keeps_the_privacy_loss_within_epsilon():
    epsilon = 1.0
    assert _loss_bound(noise.laplace_scale(1, epsilon)) <= epsilon


def test_the_loss_test_catches_a_halved_noise_scale():
    epsilon = 1.0
    assert _loss_bound(noise.laplace_scale(1, epsilon) / 2) > epsilon


def test_gaussian_sigma_meets_its_zcdp_target():
    s2 = noise.gaussian_sigma2(Fraction(1), Fraction(1), 1e-6)
    rho = 1 / (2 * float(s2))
    assert rho + 2 * math.sqrt(rho * math.log(1e6)) <= 1.0


def test_selection_threshold_bounds_a_lone_persons_cell_by_delta():
    scale, groups, delta = Fraction(2), 3, 1e-6
    tau = noise.selection_threshold(scale, groups, delta)
    q = math.exp(-1 / 2)
    assert groups * q ** (tau - 1) / (1 + q) <= delta < groups * q ** (tau - 2) / (1 + q)


@pytest.mark.parametrize("bad", [Fraction(0), Fraction(-1)])
def test_bad_scales_are_refused(bad):
    with pytest.raises(ValueError):
        noise.discrete_laplace(bad)
    with pytest.raises(ValueError):
        noise.discrete_gaussian(bad)
