"""ARX's numerics, for the population uniqueness models of :mod:`anonymizer.metrics.population`,
reproduced to the bit where it matters: Java's ``StrictMath.log`` (fdlibm's ``e_log.c``),
ARX's ``org.deidentifier.arx.risk.Gamma`` (digamma and trigamma, Java ports of Tom Minka's
Lightspeed toolbox 2.7, with the trigamma's asymptotic term skipped for reduced arguments in
[8, 12), as ARX does), commons-math3's gamma and log-gamma, and the Newton-Raphson solver
``de.linearbits.newtonraphson.NewtonRaphson2D`` 0.0.1 (prasser/newtonraphson 3fe3c8d)
configured by ``org.deidentifier.arx.ARXSolverConfiguration``'s defaults.

Pitman's solver subtracts digammas of large arguments, so a last-bit difference can send it
another way: hence fdlibm's log rather than the C library's (which differs now and then in
the last bit). The digamma's reflection for negative arguments calls ``StrictMath.tan`` and
``sin``; numpy's are used, and may differ from fdlibm's in the last bit: on 1,600 random
histograms, 9 estimates of Pitman whose solver wandered to theta far above n differ from
ARX's for that (``tests/metrics/test_population_risk.py``).
"""

from __future__ import annotations

import math
import struct
from typing import Callable

import numpy as np

Vec = tuple[float, float]
Mat = tuple[float, float, float, float]

#: ``ARXSolverConfiguration.getDefaultAccuracy`` and ``getDefaultIterationsPerTry``.
ACCURACY, ITERATIONS_PER_TRY = 1e-6, 1000


def _start_values() -> list[Vec]:
    """``ARXSolverConfiguration.getDefaultStartValues``: d1, d2 = 0, 0.33, 0.66, 0.99 (summed
    as Java sums them)."""
    steps, d = [], 0.0
    while d < 1.0:
        steps.append(d)
        d += 0.33
    return [(a, b) for a in steps for b in steps]


START_VALUES = _start_values()


_S3, _S4, _S5, _S6, _S7 = 1 / 12, 1 / 120, 1 / 252, 1 / 240, 1 / 132
_B2, _B4, _B6, _B8, _B10 = 1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66
_DIGAMMA_1 = -0.57721566490153286060651209008240243104215933593992
_TRIGAMMA_1 = math.pi * math.pi / 6.0
_TETRAGAMMA_1 = -2.0 * 1.202056903159594285399738161511449990764986292


_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
       1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01)
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10


def strict_log(x: float) -> float:
    """Java's ``StrictMath.log``: fdlibm's ``__ieee754_log`` (e_log.c), which ARX's digamma
    calls; the C library's log differs from it in the last bit now and then, and Pitman's
    solver, subtracting digammas of large arguments, can take another path for that bit.
    For x >= 2^-1022 (the digamma calls it for x >= 12 only)."""
    if not x > 0 or math.isinf(x):
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    hx, lx = bits >> 32, bits & 0xFFFFFFFF
    k = (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = struct.unpack("<d", struct.pack("<q", ((hx | (i ^ 0x3FF00000)) << 32) | lx))[0]
    k += i >> 20
    f = x - 1.0
    dk = float(k)
    if (0x000FFFFF & (2 + hx)) < 3:
        if f == 0.0:
            return 0.0 if k == 0 else dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        return f - r if k == 0 else dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    t2 = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6])))
    r = t2 + t1
    if ((hx - 0x6147A) | (0x6B851 - hx)) > 0:
        hfsq = 0.5 * f * f
        return f - (hfsq - s * (hfsq + r)) if k == 0 else dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    return f - s * (f - r) if k == 0 else dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)


def digamma(x: float) -> float:
    """``Gamma.digamma``."""
    if math.isinf(x) or math.isnan(x):
        return math.nan
    if x == 0.0:
        return -math.inf
    if x < 0.0:
        return digamma(1.0 - x) + float(np.float64(math.pi) / np.tan(-math.pi * x))
    if x <= 1e-6:
        return _DIGAMMA_1 - 1.0 / x + _TRIGAMMA_1 * x
    result = 0.0
    while x < 12.0:
        result -= 1.0 / x
        x += 1
    r = 1.0 / x
    result += strict_log(float(x)) - 0.5 * r
    r *= r
    return result - r * (_S3 - r * (_S4 - r * (_S5 - r * (_S6 - r * _S7))))


def trigamma(x: float) -> float:
    """``Gamma.trigamma``, with ARX's test of the reduced argument against 12 (not 8)."""
    if math.isinf(x) or math.isnan(x):
        return math.nan
    if x == 0.0:
        return -math.inf
    if x < 0.0:
        r = float(np.float64(math.pi) / np.sin(-math.pi * x))
        return -trigamma(1.0 - x) + r * r
    if x <= 1e-4:
        return 1.0 / (x * x) + _TRIGAMMA_1 + _TETRAGAMMA_1 * x
    result = 0.0
    while x < 8.0:
        result += 1.0 / (x * x)
        x += 1
    if x >= 12.0:
        r = 1.0 / (x * x)
        result += 0.5 * r + (1.0 + r * (_B2 + r * (_B4 + r * (_B6 + r * (_B8 + r * _B10))))) / x
    return result


def log_gamma(x: float) -> float:
    """commons-math3 ``Gamma.logGamma``: NaN for x <= 0."""
    return math.lgamma(x) if x > 0 and math.isfinite(x) else math.nan


def gamma(x: float) -> float:
    """commons-math3 ``Gamma.gamma`` (NaN at the poles, infinite past overflow)."""
    try:
        return math.gamma(x)
    except ValueError:
        return math.nan
    except OverflowError:
        return math.inf


def newton_raphson(master: Callable[[Vec], tuple[Vec, Mat]], start: Vec,
                   constraint: Callable[[Vec], bool] | None = None) -> Vec:
    """``NewtonRaphson2D._solve`` with ARX's deterministic configuration: from ``start``,
    then from each of :data:`START_VALUES`, Newton steps x -= J^-1 F(x) until both |F| <=
    :data:`ACCURACY`; a try ends when the step is not a number, breaks ``constraint`` or
    exceeds :data:`ITERATIONS_PER_TRY`; the solver ends (NaN, NaN) after the step taken from
    the last prepared start value. ``master`` gives F(x) and the Jacobian (x1, x2, y1, y2)."""
    total, cap, offset = 0, (len(START_VALUES) + 1) * ITERATIONS_PER_TRY, 0
    solution: Vec | None = None
    with np.errstate(all="ignore"):
        while total <= cap:
            if solution is None:
                solution = start
            else:
                solution = START_VALUES[offset]
                offset += 1
            iterations = 0
            while True:
                total += 1
                (fx, fy), (x1, x2, y1, y2) = master(solution)
                if abs(fx) <= ACCURACY and abs(fy) <= ACCURACY:
                    return solution
                inv = float(np.float64(1.0) / np.float64(x1 * y2 - x2 * y1))
                ix1, ix2, iy1, iy2 = inv * y2, -x2 * inv, -y1 * inv, inv * x1
                solution = (solution[0] - (ix1 * fx + ix2 * fy), solution[1] - (iy1 * fx + iy2 * fy))
                if offset == len(START_VALUES):
                    return (math.nan, math.nan)
                if constraint is not None and not constraint(solution):
                    break
                stop = math.isnan(solution[0]) or math.isnan(solution[1]) or iterations >= ITERATIONS_PER_TRY
                iterations += 1
                if stop:
                    break
    return (math.nan, math.nan)
