"""The exponential mechanism (anonymizer.dp.exponential): its probabilities, its draws, and a
statistical test of its privacy loss that passes for the mechanism and fails for a broken one
(the exponent doubled, as a halved noise scale doubles a Laplace mechanism's loss)."""

import math

import pytest

from anonymizer.dp import exponential
from tests.dp.privacy_loss import loss_lower_bound

EPSILON = 1.0
N = 50                       # candidates
DRAWS = 60_000


def _draws(scores, weights_exponent=0.5, n=DRAWS):
    """How often candidate 0 is drawn, by ``choose`` with the exponent's factor ``weights_exponent``
    (0.5: the mechanism; 1.0: a broken one)."""
    eps = EPSILON * weights_exponent / 0.5
    return sum(exponential.choose(range(len(scores)), scores, eps) == 0 for _ in range(n))


def test_probabilities_are_exp_of_half_epsilon_times_score():
    p = exponential.probabilities([0.0, 2.0, -1.0], 0.8)
    w = [math.exp(0.4 * s) for s in (0.0, 2.0, -1.0)]
    assert p == pytest.approx([x / sum(w) for x in w], rel=1e-12)


def test_huge_scores_neither_overflow_nor_lose_the_best():
    p = exponential.probabilities([1e6, 1e6 - 1, -1e9], 1.0)
    assert p[2] == 0.0 and p[0] / p[1] == pytest.approx(math.exp(0.5), rel=1e-12)


def test_draws_follow_the_probabilities():
    """Chi-square over 20,000 draws of 4 candidates: below the 1e-6 critical value (3 df: 30.7)."""
    scores, n = [0.0, 1.0, 2.0, 4.0], 20_000
    p = exponential.probabilities(scores, 1.0)
    counts = [0] * 4
    for _ in range(n):
        counts[exponential.choose(range(4), scores, 1.0)] += 1
    chi2 = sum((c - n * q) ** 2 / (n * q) for c, q in zip(counts, p))
    assert chi2 < 30.7


def _neighbours():
    """Scores on D and on a neighbour D' (each score moved by at most its sensitivity, 1):
    candidate 0 gains 1 and every other loses 1, the move that brings the ratio of candidate
    0's probabilities nearest e^epsilon."""
    return [0.0] * N, [1.0] + [-1.0] * (N - 1)


def test_privacy_loss_stays_within_epsilon():
    d, d_prime = _neighbours()
    on_d_prime, on_d = _draws(d_prime), _draws(d)
    assert loss_lower_bound(on_d_prime, DRAWS, on_d, DRAWS) <= EPSILON


def test_the_loss_test_catches_a_broken_mechanism():
    """The same test on a mechanism weighing exp(epsilon * score) (the factor 1/2 dropped):
    its loss, near 2 epsilon, is found above epsilon."""
    d, d_prime = _neighbours()
    on_d_prime, on_d = _draws(d_prime, 1.0), _draws(d, 1.0)
    assert loss_lower_bound(on_d_prime, DRAWS, on_d, DRAWS) > EPSILON


@pytest.mark.parametrize("bad", [([], [], 1.0), ([1], [0.0], 0.0), ([1], [float("nan")], 1.0), ([1, 2], [0.0], 1.0)])
def test_bad_input_is_refused(bad):
    with pytest.raises(ValueError):
        exponential.choose(*bad)


def _flips(scores, factor=0.5, n=DRAWS):
    eps = EPSILON * factor / 0.5
    return sum(exponential.permute_and_flip(range(len(scores)), scores, eps) == 0 for _ in range(n))


def test_permute_and_flip_keeps_the_privacy_loss_within_epsilon():
    d, d_prime = _neighbours()
    assert loss_lower_bound(_flips(d_prime), DRAWS, _flips(d), DRAWS) <= EPSILON


def test_the_loss_test_catches_a_broken_permute_and_flip():
    d, d_prime = _neighbours()
    assert loss_lower_bound(_flips(d_prime, 1.0), DRAWS, _flips(d, 1.0), DRAWS) > EPSILON


def test_permute_and_flip_takes_the_best_when_epsilon_is_large():
    assert all(exponential.permute_and_flip(["a", "b", "c"], [0.0, 50.0, 1.0], 10.0) == "b" for _ in range(100))
