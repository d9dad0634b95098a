"""Private selection: the exponential mechanism (McSherry and Talwar, FOCS 2007) as SafePub
uses it, candidate ``i`` drawn with probability proportional to ``exp(ε · u_i / 2)``, where
``u_i`` is its score already divided by the score's sensitivity
(:mod:`~anonymizer.families.generalized.lattice.safepub_scores`); and permute-and-flip
(McKenna and Sheldon, NeurIPS 2020), ε-DP under the same condition and never worse in
expected score (:func:`permute_and_flip`), which draws SafePub's published node.

The draw comes from the operating system's CSPRNG (:class:`secrets.SystemRandom`): nothing
seeds it and nothing of it is stored, so no one, us included, can replay a selection.
Floating point: the exponents are shifted by their maximum before ``exp`` (the largest weight
is 1, none overflows; a weight that underflows to 0 belongs to a candidate whose true
probability is below 2^-1074 of the best's); the draw is one uniform 53-bit number against the
running sum of the weights. The probabilities are thus the mechanism's up to the rounding of
``exp`` and the sums, relative errors of about 2^-52 per candidate, far inside the factor
``e^ε`` the guarantee allows (a bound on the rounding's effect on ε, as Ilvento's base-2
mechanism gives, is not derived here).
"""

from __future__ import annotations

import math
import secrets
from typing import Sequence, TypeVar

T = TypeVar("T")

#: the draws of every selection (a CSPRNG: the operating system's, never seeded)
SYSTEM = secrets.SystemRandom()


def probabilities(scores: Sequence[float], epsilon: float) -> list[float]:
    """Each candidate's probability under the mechanism (for tests and the trace)."""
    weights = _weights(scores, epsilon)
    total = math.fsum(weights)
    return [w / total for w in weights]


def choose(candidates: Sequence[T], scores: Sequence[float], epsilon: float, rng=SYSTEM) -> T:
    """One candidate drawn by the exponential mechanism with budget ``epsilon``."""
    if not candidates or len(candidates) != len(scores):
        raise ValueError("the exponential mechanism needs as many scores as candidates, and at least one")
    weights = _weights(scores, epsilon)
    u = rng.random() * math.fsum(weights)
    running = 0.0
    for candidate, w in zip(candidates, weights):
        running += w
        if u < running:
            return candidate
    return candidates[max(i for i, w in enumerate(weights) if w > 0)]   # u at the sum's rounding edge


def permute_and_flip(candidates: Sequence[T], scores: Sequence[float], epsilon: float, rng=SYSTEM) -> T:
    """One candidate drawn by permute-and-flip with budget ``epsilon``: the candidates in a
    random order, each taken with probability ``exp(ε (u_i - max u) / 2)`` (the best surely),
    the first taken returned (McKenna and Sheldon 2020, Algorithm 1, scores of sensitivity 1)."""
    if not candidates or len(candidates) != len(scores):
        raise ValueError("permute-and-flip needs as many scores as candidates, and at least one")
    weights = _weights(scores, epsilon)
    order = list(range(len(candidates)))
    rng.shuffle(order)
    while True:
        for i in order:
            if weights[i] >= 1.0 or rng.random() < weights[i]:
                return candidates[i]


def _weights(scores: Sequence[float], epsilon: float) -> list[float]:
    if not epsilon > 0 or not all(math.isfinite(s) for s in scores):
        raise ValueError(f"the exponential mechanism needs epsilon > 0 and finite scores (epsilon={epsilon})")
    exponents = [0.5 * epsilon * s for s in scores]
    top = max(exponents)
    return [math.exp(e - top) for e in exponents]
