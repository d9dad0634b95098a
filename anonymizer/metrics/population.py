"""Population uniqueness: how many records of the population are unique on the QIs,
estimated from a sample, exactly as ARX estimates it (``org.deidentifier.arx.risk.
RiskModelPopulationUniqueness``, version of 2025-09; Dankar, El Emam, Neisa and Roffey,
"Estimating the re-identification risk of clinical data sets", BMC Med. Inform. Decis. Mak.
12:66, 2012).

SQL computes the sample's class-size histogram, c_i = the number of classes of size i
(``metrics/class_size_histogram.sql.j2``: ARX's ``RiskModelHistogram``); its rows are the
distinct class sizes, at most sqrt(2 n) for n rows, so the estimators below run in Python on
it whatever the table's size. With J classes, n rows, population size N and sampling
fraction f = n / N:

- **Zayatz** (``ModelZayatz``; Zayatz, "Estimation of the number of unique population
  elements using a sample", 1991): c_1 * P / f, P the conditional probability that a sample
  unique is a population unique, from hypergeometric probabilities H(N, i, n)(1).
- **Pitman** (``ModelPitman``; Hoshino, "Applying Pitman's sampling formula to microdata
  disclosure risk assessment", J. Official Statistics 17(4), 2001): the maximum likelihood
  (theta, alpha) of Pitman's sampling formula, solved by Newton-Raphson, then
  Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha.
- **SNB** (``ModelSNB``; Chen and Keller-McNulty, "Estimation of identification disclosure
  risk in microdata", J. Official Statistics 14(1), 1998): the slide negative binomial's
  (alpha, beta) solved by Newton-Raphson from c_1, c_2 and Shlosser's estimate K of the
  population's classes (Haas et al. 1995), then K * beta^alpha.
- **Dankar** (``getNumUniqueTuplesDankar``, with Zayatz as the fallback as ARX's default):
  for f <= 0.1 Pitman, else the smaller of Zayatz and SNB; an estimate that is not a number
  or 0 is not valid, and falls back to Zayatz.

An estimate that is not a number, or 0, is reported as 0 (ARX's ``isValid``); a sample
without a unique has no population unique in any model. The numerics are ARX's, in
:mod:`anonymizer.metrics.arx_numerics`: its digamma and trigamma, its Newton-Raphson with
``ARXSolverConfiguration``'s defaults (accuracy 1e-6, 1000 iterations per try, the given
start value then 16 prepared ones). ARX also stops a try after 100 ms and the solver after
1 s; Python, slower, does not: the iteration caps alone bound it.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.metrics.arx_numerics import ACCURACY, Mat, Vec, digamma, gamma, log_gamma, newton_raphson, trigamma

Histogram = Sequence[tuple[int, int]]


def class_size_histogram(engine: Engine, sizes_sql: str) -> list[tuple[int, int]]:
    """(size, classes) pairs, ascending, of the classes ``sizes_sql`` (a relation with a
    column ``n``, the size of each class): ``metrics/class_size_histogram.sql.j2``."""
    return [(int(s), int(c)) for s, c in engine.rows("metrics/class_size_histogram.sql.j2", sizes=sizes_sql)]


def population_size(rows: int, size: int | None = None, fraction: float | None = None) -> int:
    """The population size N of a sample of ``rows`` rows, given as ``size`` or as the
    sampling ``fraction`` (``ARXPopulationModel.create(sampleSize, samplingFraction)``:
    ``Math.round(sampleSize / samplingFraction)``).

    Raises:
        SpecError: neither or both given, a fraction outside (0, 1], or N below ``rows``.
    """
    if (size is None) == (fraction is None):
        raise SpecError("population_size", "give the population size or the sampling fraction, one of them")
    if fraction is not None:
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
            raise SpecError("sampling_fraction", "must be a number in (0, 1]: the sample's share of the population",
                            fraction)
        return math.floor(rows / fraction + 0.5)
    if isinstance(size, bool) or not isinstance(size, int) or size < rows:
        raise SpecError("population_size", f"must be a whole number at least the sample's {rows} rows", size)
    return size


# --- the models ---------------------------------------------------------------------------

def _classes_of_size(hist: Histogram, size: int) -> float:
    """``RiskModelPopulation.getNumClassesOfSize``."""
    return float(next((c for s, c in hist if s == size), 0))


def _hypergeometric_one(population: int, successes: int, sample: int) -> float:
    """P(X = 1) of commons-math3's ``HypergeometricDistribution(population, successes,
    sample)``: C(m, 1) C(N - m, n - 1) / C(N, n), 0 outside its support."""
    if not max(0, sample + successes - population) <= 1 <= min(successes, sample):
        return 0.0

    def log_choose(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)
    return math.exp(math.log(successes) + log_choose(population - successes, sample - 1)
                    - log_choose(population, sample))


def zayatz(hist: Histogram, population: int) -> float:
    """``ModelZayatz``: c_1 * P(population unique | sample unique) / f."""
    n = sum(s * c for s, c in hist)
    classes = float(sum(c for _, c in hist))
    big, small = min(population, 2**31 - 1), min(n, 2**31 - 1)  # ARX's int casts
    c1 = hist[0][1] if hist[0][0] == 1 else 0
    temp = sum(c / classes * _hypergeometric_one(big, s, small) for s, c in hist)
    with np.errstate(all="ignore"):
        uniqueness = np.float64(c1 / classes * _hypergeometric_one(big, 1, small)) / np.float64(temp)
        return float(_classes_of_size(hist, 1) * uniqueness / (n / population))


def _total(terms: np.ndarray) -> float:
    """The sum of ``terms`` added one by one from the first, as Java's loops add them."""
    return float(np.cumsum(terms)[-1]) if len(terms) else 0.0


def _pitman_master(hist: Histogram, u: float, n: float, closed: bool) -> Callable[[Vec], tuple[Vec, Mat]]:
    """``ModelPitman.getMasterFunctionClosed`` (polygamma closed forms) or
    ``getMasterFunctionIterative`` (the sums): the likelihood equations in (theta, alpha) and
    their Jacobian. Arguments are numpy floats, so that x / 0 is infinite as in Java."""
    keys = np.array([s for s, _ in hist if s != 1], dtype=np.int64)
    counts = np.array([c for s, c in hist if s != 1], dtype=np.float64)
    form = _pitman_closed if closed else _pitman_iterative
    return lambda x: form(np.float64(x[0]), np.float64(x[1]), keys, counts, u, n)


def _pitman_closed(t: np.float64, a: np.float64, keys: np.ndarray, counts: np.ndarray, u: float,
                   n: float) -> tuple[Vec, Mat]:
    """``ModelPitman.getMasterFunctionClosed``'s ``evaluate``, term for term."""
    v0 = u - 1.0
    v1, v2 = digamma(v0 + t / a + 1.0), trigamma((a + t + a * v0) / a)
    v3, v4, v5 = trigamma(t / a + 1.0), digamma(t / a + 1.0), a * a
    d1 = (v3 - v2) / v5
    d5 = (a * v1 + t * v2 - a * v4 - t * v3) / (v5 * a)
    d3 = (v5 * v0 - t * t * v2 + t * t * v3 - 2.0 * a * t * v1 + 2.0 * a * t * v4) / (v5 * v5)
    o1, o3 = (v1 - v4) / a, (-t * v1 + a * v0 + t * v4) / (a * a)
    o2, d2 = digamma(n + t) - digamma(t + 1.0), trigamma(t + 1.0) - trigamma(n + t)
    v6, v7 = digamma(1.0 - a), trigamma(1.0 - a)
    d4 = o4 = 0.0
    for k, c in zip(keys.tolist(), counts.tolist()):
        d4 += c * (v7 - trigamma(k - a))
        o4 += c * (digamma(k - a) - v6)
    return (float(o1 - o2), float(o3 - o4)), (float(d2 - d1), float(-d5), float(-d5), float(-d3 - d4))


def _pitman_iterative(t: np.float64, a: np.float64, keys: np.ndarray, counts: np.ndarray, u: float,
                      n: float) -> tuple[Vec, Mat]:
    """``ModelPitman.getMasterFunctionIterative``'s ``evaluate``: Java's terms, summed in
    Java's order (a cumulative sum adds one by one)."""
    i_u, i_n = np.arange(1, math.ceil(u), dtype=np.float64), np.arange(1, math.ceil(n), dtype=np.float64)
    val0 = t + i_u * a
    inv, inv2 = 1.0 / val0, 1.0 / (val0 * val0)
    d1, d5, d3 = _total(inv2), _total(i_u * inv2), _total(i_u * (i_u * inv2))
    o1, o3 = _total(inv), _total(i_u * inv)
    jm = np.arange(1, int(keys.max()) if len(keys) else 1, dtype=np.float64) - a
    sq = np.concatenate(([0.0], np.cumsum(1.0 / (jm * jm))))
    lin = np.concatenate(([0.0], np.cumsum(1.0 / jm)))
    d4, o4 = _total(counts * sq[keys - 1]), _total(counts * lin[keys - 1])
    ti = t + i_n
    d2, o2 = _total(1.0 / (ti * ti)), _total(1.0 / ti)
    return (o1 - o2, o3 - o4), (d2 - d1, -d5, -d5, -d3 - d4)


def pitman(hist: Histogram, population: int) -> float:
    """``ModelPitman``: the closed-form solution, checked against (or replaced by) the
    iterative one, then Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha."""
    c1, c2 = _classes_of_size(hist, 1), _classes_of_size(hist, 2)
    u, n, p = float(sum(c for _, c in hist)), float(sum(s * c for s, c in hist)), float(population)
    with np.errstate(all="ignore"):
        c2 = c2 if c2 != 0 else 1.0
        c = np.float64(c1 * (c1 - 1)) / c2
        t = (n * u * c - c1 * (n - 1) * (2 * u + c)) / ((2 * c1 * u + c1 * c) - n * c)
        a = (t * (c1 - n) + (n - 1) * c1) / (n * u)
        start, keep = (float(t), float(a)), (lambda x: x[0] >= 0)
        result = newton_raphson(_pitman_master(hist, u, n, True), start, keep)
        iterative = _pitman_master(hist, u, n, False)
        if not math.isnan(result[0]) and not math.isnan(result[1]):
            (tx, ty), _ = iterative(result)
            if math.isnan(tx) or math.isnan(ty) or abs(tx) > ACCURACY or abs(ty) > ACCURACY:
                result = newton_raphson(iterative, start, keep)
        else:
            result = newton_raphson(iterative, start, keep)
        return _pitman_result(result, p)


def _pitman_result(result: Vec, p: float) -> float:
    """``ModelPitman.getResult``: the larger valid of the log-gamma and gamma forms."""
    t, a = result
    if math.isnan(a) or math.isnan(t) or a == 0:
        return math.nan
    power = float(np.power(np.float64(p), np.float64(a)))
    val1 = float(np.exp(np.float64(log_gamma(t + 1.0) - log_gamma(t + a)))) * power
    val1 = val1 if 0.0 <= val1 <= p else math.nan
    val2 = float(np.float64(gamma(t + 1.0)) / np.float64(gamma(t + a))) * power
    val2 = val2 if 0.0 <= val2 <= p else math.nan
    valid = [v for v in (val1, val2) if not math.isnan(v)]
    return max(valid) if valid else math.nan


def _shlosser(hist: Histogram, classes: float, c1: float, f: float) -> float:
    """``ModelSNB.estimateNonEmptyEquivalenceClasses``: Shlosser's estimate of the
    population's non-empty classes (Haas et al. 1995), term for term as ARX sums it."""
    var1 = var2 = var3 = var4 = 0.0
    f2 = f * f
    for size, count in hist:
        val2 = (1 - f) ** size * count
        var1 += size * f2 * (1 - f2) ** (size - 1) * count
        var2 += val2 * (1 + f) ** size - 1
        var3 += val2
        var4 += size * f * (1 - f) ** (size - 1) * count
    return float(classes + c1 * (np.float64(var1) / var2) * (np.float64(var3) / var4) ** 2)


def _snb_master(k: float, f: float, c1: float, c2: float) -> Callable[[Vec], tuple[Vec, Mat]]:
    """``ModelSNB.getObjectFunction`` and ``getDerivatives`` (ARX's Matlab-derived forms)."""
    def pw(x: Any, y: Any) -> float:
        return float(np.power(np.float64(x), np.float64(y)))

    def evaluate(x: Vec) -> tuple[Vec, Mat]:
        a, b = np.float64(x[0]), np.float64(x[1])
        dividend = (1 - f) * (1 - b)
        fx = k * f * pw(b / (1 - dividend), a) * ((a * dividend) / (1 - dividend) + 1) - c1
        fy = k * a * pw(b, a) * (f * f) * (1 - b) / 2 * pw(1 - dividend, a + 2) * (2 - (1 - a) * dividend) - c2
        v0 = (b - 1.0) * (f - 1.0)
        v1, v2 = v0 - 1.0, 1.0 - v0
        v3, v4, v6, v7 = a * v0 / v1 - 1.0, pw(-b / v1, a), f * f, pw(b, a)
        v9, v10, v11 = a * v7 * v6 * k, 2.0 * pw(v2, a + 2.0), v1 * v1
        v13, v14, v15, v16 = f * k, f - 1.0, a - 1.0, b - 1.0
        v17, v18 = v15 * v0, v6 * k
        v19 = v17 + 2.0
        v20 = v18 * v19
        x1 = -v13 * np.log(-b / v1) * v3 * v4 - (v13 * v4 * v0) / v1
        x2 = (a * v13 * (1.0 / v1 - (b * v14) / v11) * v3 * pw(-b / v1, v15)
              - v13 * v4 * ((a * v14) / v1 - (a * v16 * v14 * v14) / v11))
        y1 = ((v9 * np.log(v2) * v19 * v16) / v10 - (v9 * v16 * v16 * v14) / v10 - (v7 * v20 * v16) / v10
              - (a * v7 * v18 * np.log(b) * v19 * v16) / v10)
        y2 = (-(v9 * v19) / v10 - (a * a * pw(b, v15) * v20 * v16) / v10 - (a * v7 * v18 * v17) / v10
              - (a * v7 * v20 * (a + 2.0) * v0) / (2.0 * pw(v2, a + 3.0)))
        return (float(fx), float(fy)), (float(x1), float(x2), float(y1), float(y2))
    return evaluate


def snb(hist: Histogram, population: int) -> float:
    """``ModelSNB``: K * beta^alpha, (alpha, beta) solved from (1, 1)."""
    c1, c2 = _classes_of_size(hist, 1), _classes_of_size(hist, 2)
    n = float(sum(s * c for s, c in hist))
    f = n / population
    with np.errstate(all="ignore"):
        k = _shlosser(hist, float(sum(c for _, c in hist)), c1, f)
        a, b = newton_raphson(_snb_master(k, f, c1, c2), (1.0, 1.0))
        return float(k * np.power(np.float64(b), np.float64(a)))


def uniqueness(hist: Histogram, population: int) -> dict[str, Any]:
    """ARX's ``RiskModelPopulationUniqueness`` of the class-size histogram ``hist`` ((size,
    classes) pairs, ascending) and the population size ``population``.

    Returns:
        ``{population_size, sampling_fraction, sample_uniques, pitman, zayatz, snb,
        dankar, dankar_model}``: each model's estimated number of population uniques (0 when
        the model gives no valid estimate), ``dankar_model`` naming the model Dankar's rule
        chose (``none``: no sample unique), and ``*_share`` each number's share of N
        (ARX's ``getFractionOfUniqueTuples*``).
    """
    n = sum(s * c for s, c in hist)
    f, c1 = n / population, int(_classes_of_size(hist, 1))
    found: dict[str, Any] = {"population_size": population, "sampling_fraction": f, "sample_uniques": c1}
    if c1 == 0:
        figures = {"pitman": 0.0, "zayatz": 0.0, "snb": 0.0, "dankar": 0.0}
        chosen = "none"
    else:
        def valid(x: float) -> bool:
            return not math.isnan(x) and x != 0.0
        raw = {"zayatz": zayatz(hist, population)}
        if f <= 0.1:
            raw["pitman"] = pitman(hist, population)
            raw["snb"] = snb(hist, population)
            chosen = "pitman" if valid(raw["pitman"]) else "zayatz"
        else:
            raw["snb"] = snb(hist, population)
            raw["pitman"] = pitman(hist, population)
            chosen = ("zayatz" if raw["zayatz"] < raw["snb"] else "snb") if valid(raw["snb"]) else "zayatz"
        figures = {name: (x if valid(x) else 0.0) for name, x in raw.items()}
        figures["dankar"] = figures[chosen]
    for name in ("pitman", "zayatz", "snb", "dankar"):
        found[name] = figures[name]
        found[f"{name}_share"] = figures[name] / population
    found["dankar_model"] = chosen
    return found
