"""Population risk (anonymizer.metrics.population: ARX's population uniqueness; k-map and
delta-presence in anonymizer.metrics.risk.presence) against ARX's own figures on Adult, and
small examples worked by hand.

The oracle figures were computed by ARX 3.9.2 (git tag v3.9.2, commit 8b7bc548), its
newtonraphson-0.0.1.jar (prasser/newtonraphson commit 3fe3c8d), on ARX's Adult (30,162 rows,
``anonymizer/data/arx_adult/adult.csv.gz``, untransformed), with
``RiskModelPopulationUniqueness`` built from an ``ARXPopulationModel.create(30162, f)`` and
``ARXSolverConfiguration.create()`` (accuracy 1e-6, 1000 iterations per try, 10000 in all,
100 ms per try, 1000 ms in all, deterministic start values); the shares are its
``getFractionOfUniqueTuples{Pitman,Zayatz,SNB,Dankar}`` and the model its
``getPopulationUniquenessModel``. k-map and delta-presence: the research subset is Adult's
rows whose 0-based index is a multiple of 10 (3,017 rows), the population all of Adult,
both generalized to the levels shown by ARX's Adult hierarchies; k is the smallest ``pcount``
over the subset's classes (``KMap.isAnonymous`` without an estimator), delta the range of
count / pcount over every class of the population (``DPresence.isAnonymous``; 0 for a class
without subset rows). On 60 random class-size histograms (18 of them with an SNB estimate)
the same ARX gives the figures of ``tests/fixtures/arx_population_uniqueness.json``.
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest

from anonymizer.errors import SpecError
from anonymizer.measure import measure_table
from anonymizer.metrics import arx_numerics as N, population as P
from tests.conftest import arx_hierarchy

A, B = ["age", "sex", "race"], ["age", "sex", "race", "marital-status"]
C, D = ["age", "education", "marital-status", "sex", "race", "native-country"], ["sex", "race"]

# (qis, sampling fraction, N, Pitman, Zayatz, SNB, Dankar: shares of N, Dankar's model)
UNIQUENESS = [
    (A, 0.01, 3016200, 3.103073808297786e-05, 2.123173708594185e-05, 0.0, 3.103073808297786e-05, "pitman"),
    (A, 0.1, 301620, 0.00030720513392297775, 0.00012737682522643868, 0.0, 0.00030720513392297775, "pitman"),
    (A, 0.5, 60324, 0.001525275950281318, 0.0007123623423071529, 0.0, 0.0007123623423071529, "zayatz"),
    (B, 0.01, 3016200, 0.0006820405046640467, 0.0008272074800530325, 0.0, 0.0006820405046640467, "pitman"),
    (B, 0.1, 301620, 0.0036666626785633026, 0.0030105662858439766, 0.0, 0.0036666626785633026, "pitman"),
    (B, 0.5, 60324, 0.01188067567171781, 0.009910221733113298, 0.0, 0.009910221733113298, "zayatz"),
    (C, 0.01, 3016200, 0.0266040655714721, 0.034277524352279494, 0.0, 0.0266040655714721, "pitman"),
    (C, 0.1, 301620, 0.0657999483589156, 0.06817535355684368, 0.0, 0.0657999483589156, "pitman"),
    (C, 0.5, 60324, 0.12391239718740618, 0.12525151496113157, 0.0, 0.12525151496113157, "zayatz"),
    (D, 0.01, 3016200, 0.0, 0.0, 0.0, 0.0, "none"),     # no sample unique: ARX's model DANKAR
    (D, 0.1, 301620, 0.0, 0.0, 0.0, 0.0, "none"),
    (D, 0.5, 60324, 0.0, 0.0, 0.0, 0.0, "none"),
]
# ARX's SNB solver finds no solution on any of them (NaN: "not available", reported as 0).

# (hierarchy levels, k-map's k, delta min, delta max)
PRESENCE = [
    ({"age": 0, "sex": 0, "race": 0}, 1, 0.0, 1.0),
    ({"age": 2, "sex": 0, "race": 1}, 24, 0.041666666666666664, 0.15048543689320387),
    ({"age": 1, "sex": 0, "race": 0}, 1, 0.0, 1.0),
]


def same3(ours: float, arx: float) -> bool:
    """Equal to 3 significant digits."""
    return float(f"{ours:.3g}") == float(f"{arx:.3g}")


@pytest.mark.parametrize("qis,f,size,pitman,zayatz,snb,dankar,model", UNIQUENESS,
                         ids=[f"{'ABCD'[[A, B, C, D].index(u[0])]}-{u[1]}" for u in UNIQUENESS])
def test_population_uniqueness_matches_arx_on_adult(arx_adult, qis, f, size, pitman, zayatz, snb, dankar, model):
    found = measure_table(arx_adult, "adult", qis, sampling_fraction=f)["risk"]["population_uniqueness"]
    assert found["population_size"] == size
    for name, arx in (("pitman", pitman), ("zayatz", zayatz), ("snb", snb), ("dankar", dankar)):
        assert same3(found[f"{name}_share"], arx), (name, found[f"{name}_share"], arx)
        assert found[f"{name}_share"] == pytest.approx(arx, rel=1e-7)   # in fact to 1e-9
        assert found[name] == pytest.approx(arx * size, rel=1e-7)
    assert found["dankar_model"] == model


def test_the_histogram_is_arx_s(arx_adult):
    """The SQL class-size histogram of Adult over age, sex, race is ARX's RiskModelHistogram
    (62 sample uniques, 59 classes of 2, ... 528 classes), and N given as a size or as a
    fraction gives the same figures."""
    by_size = measure_table(arx_adult, "adult", A, population_size=301620)["risk"]["population_uniqueness"]
    by_fraction = measure_table(arx_adult, "adult", A, sampling_fraction=0.1)["risk"]["population_uniqueness"]
    assert by_size == by_fraction
    assert (by_size["sample_uniques"], by_size["sampling_fraction"]) == (62, 0.1)


RANDOM = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "arx_population_uniqueness.json").read_text())


@pytest.mark.parametrize("case", RANDOM["cases"], ids=lambda c: f"f{c['sampling_fraction']}-N{c['population_size']}")
def test_population_uniqueness_matches_arx_on_random_histograms(case):
    """ARX 3.9.2's estimates on random class-size histograms (tests/fixtures/
    arx_population_uniqueness.json says how they were made), SNB's among them: equal to 1e-5."""
    hist = [tuple(h) for h in case["histogram"]]
    found = P.uniqueness(hist, case["population_size"])
    for name in ("pitman", "zayatz", "snb", "dankar"):
        assert found[name] == pytest.approx(case[name], rel=1e-5, abs=0), name
    assert found["dankar_model"] == {"dankar": "none"}.get(case["model"], case["model"])


# ---------------------------------------------------------------- worked by hand

def test_zayatz_worked_example():
    """Sample: 4 rows, two unique classes and one of 2 (c_1 = 2, c_2 = 1, J = 3); population
    N = 8, f = 1/2. H(N, m, n)(1) = C(m,1) C(N-m, n-1) / C(N, n): m = 1: 35/70 = 1/2; m = 2:
    2 * 20 / 70 = 4/7. P = (2/3 * 1/2) / (2/3 * 1/2 + 1/3 * 4/7) = (1/3) / (11/21) = 7/11;
    Zayatz = c_1 * P / f = 2 * 7/11 * 2 = 28/11 population uniques. f > 0.1 and SNB finds no
    solution: Dankar's rule takes Zayatz."""
    hist = [(1, 2), (2, 1)]
    assert P.zayatz(hist, 8) == pytest.approx(28 / 11)
    found = P.uniqueness(hist, 8)
    assert found["dankar"] == pytest.approx(28 / 11) and found["dankar_model"] == "zayatz"
    assert found["dankar_share"] == pytest.approx(28 / 11 / 8)
    assert (found["sample_uniques"], found["sampling_fraction"]) == (2, 0.5)


def test_dankar_falls_back_to_zayatz_when_pitman_fails():
    """The same sample from N = 80 (f = 0.05): Dankar's rule asks Pitman, whose likelihood
    has no solution for so few classes (0), so it takes Zayatz:
    2 * (2/3 * 4/80) / (2/3 * 4/80 + 1/3 * H(80, 2, 4)(1)) / 0.05."""
    h2 = 2 * comb(78, 3) / comb(80, 4)
    expected = 2 * (2 / 3 * 4 / 80) / (2 / 3 * 4 / 80 + 1 / 3 * h2) / 0.05
    found = P.uniqueness([(1, 2), (2, 1)], 80)
    assert found["pitman"] == 0.0
    assert found["dankar_model"] == "zayatz" and found["dankar"] == pytest.approx(expected)


def test_no_sample_unique_no_population_unique():
    found = P.uniqueness([(2, 3), (5, 1)], 1000)
    assert {k: found[k] for k in ("pitman", "zayatz", "snb", "dankar")} == dict.fromkeys(
        ("pitman", "zayatz", "snb", "dankar"), 0.0)
    assert found["dankar_model"] == "none"


def test_arx_numerics():
    """ARX's digamma and trigamma (Gamma: Minka's approximations), including its trigamma's
    quirk (the asymptotic term is added only when the reduced argument reaches 12, so
    trigamma(10) = 0); its 16 start values; Newton-Raphson on x^2 = 4, y = 1."""
    assert N.digamma(1.0) == pytest.approx(-0.5772156649015329)
    assert N.trigamma(12.5) == pytest.approx(1 / 12.5 + 1 / (2 * 12.5**2) + 1 / (6 * 12.5**3) - 1 / (30 * 12.5**5))
    assert N.trigamma(10.0) == 0.0
    assert len(N.START_VALUES) == 16 and N.START_VALUES[0] == (0.0, 0.0) and N.START_VALUES[-1][0] == pytest.approx(0.99)
    x, y = N.newton_raphson(lambda v: ((v[0] ** 2 - 4, v[1] - 1), (2 * v[0], 0.0, 0.0, 1.0)), (1.0, 5.0))
    assert x == pytest.approx(2.0, abs=1e-6) and y == 1.0


def test_strict_math_is_java_s():
    """fdlibm's log, sin and tan, bit for bit as Java 17's StrictMath gave them, on arguments
    where the C library's or numpy's last bit differs."""
    assert N.strict_log(736.4491978609626) == 6.601840255738086
    for x, sin in ((-35153.522701466594, 0.7827622913921064), (32504.82814312246, 0.9428370895067437),
                   (0.4916266706627668, 0.47206052986265845)):
        assert N.strict_sin(x) == sin
    for x, tan in ((0.4850142797532224, 0.5270009072629736), (18413.864591829148, 1.523839974117948),
                   (-1.023141381678613, -1.6396579922221004)):
        assert N.strict_tan(x) == tan


def test_population_size_from_a_fraction_is_arx_s():
    assert P.population_size(30162, fraction=0.01) == 3016200          # Math.round(30162 / 0.01)
    assert P.population_size(3, fraction=0.4) == 8                     # round(7.5) = 8, half up
    assert P.population_size(3, size=3) == 3


def test_bad_population_options(arx_adult):
    with pytest.raises(SpecError, match="sampling_fraction: give the population size or the sampling fraction"):
        measure_table(arx_adult, "adult", A, population_size=10**6, sampling_fraction=0.1)
    with pytest.raises(SpecError, match="sampling_fraction"):
        measure_table(arx_adult, "adult", A, sampling_fraction=0)
    with pytest.raises(SpecError, match="population_size: must be a whole number at least the sample's 30162 rows"):
        measure_table(arx_adult, "adult", A, population_size=100)


# ---------------------------------------------------------------- k-map and delta-presence

def _generalized(con, levels: dict[str, int], name: str, where: str = "true") -> None:
    """Adult's QIs at ``levels`` of ARX's hierarchies (level 0: the value) as table ``name``."""
    cols, joins = [], []
    for i, (attr, level) in enumerate(levels.items()):
        joins.append(f"JOIN read_csv('{arx_hierarchy(attr)}', delim=';', header=false, all_varchar=true) AS h{i} "
                     f"ON CAST(a.\"{attr}\" AS VARCHAR) = h{i}.column0")
        cols.append(f"h{i}.column{level} AS \"{attr}\"")
    con.execute(f"CREATE TABLE {name} AS SELECT {', '.join(cols)} FROM (SELECT *, rowid AS i FROM adult) AS a "
                f"{' '.join(joins)} WHERE {where}")


@pytest.mark.parametrize("levels,k,dmin,dmax", PRESENCE, ids=["identity", "age2-race1", "age1"])
def test_k_map_and_delta_presence_match_arx_on_adult(arx_adult, levels, k, dmin, dmax):
    _generalized(arx_adult, levels, "everyone")
    _generalized(arx_adult, levels, "subset", "i % 10 = 0")
    assert arx_adult.execute("SELECT count(*) FROM subset").fetchone() == (3017,)
    risk = measure_table(arx_adult, "subset", list(levels), population="everyone")["risk"]
    assert risk["k_map"] == {"population": "everyone", "k": k}
    assert risk["delta_presence"] == {"population": "everyone", "delta_min": pytest.approx(dmin),
                                      "delta_max": pytest.approx(dmax)}


def test_k_map_and_delta_presence_worked_example(con):
    """Sample classes f = 4, 3, 2, 1 with population F = 8, 6, 5, 2, and a population class
    (F = 9) with no sample row: k = min F = 2; delta = f/F = 1/2, 1/2, 2/5, 1/2 and 0 for
    the class without sample rows: from 0 to 1/2."""
    rows = [("30-39", "F", 4, 8), ("30-39", "M", 3, 6), ("40-49", "F", 2, 5), ("40-49", "M", 1, 2), ("50-59", "F", 0, 9)]
    con.execute("CREATE TABLE s AS " + " UNION ALL ".join(f"SELECT '{a}' AS age, '{x}' AS sex FROM range({f})"
                                                          for a, x, f, _ in rows))
    con.execute("CREATE TABLE p AS " + " UNION ALL ".join(f"SELECT '{a}' AS age, '{x}' AS sex FROM range({F})"
                                                          for a, x, _, F in rows))
    risk = measure_table(con, "s", ["age", "sex"], population="p")["risk"]
    assert risk["k_map"]["k"] == 2
    assert risk["delta_presence"] == {"population": "p", "delta_min": 0.0, "delta_max": 0.5}
    con.execute("DELETE FROM p WHERE age = '50-59'")           # every population class sampled
    assert measure_table(con, "s", ["age", "sex"], population="p")["risk"]["delta_presence"]["delta_min"] == 0.4


# ---------------------------------------------------------------- anonymizer check

def test_check_prints_population_risk(tmp_path):
    from tests.cli.conftest import run_cli as invoke
    import duckdb
    db = str(tmp_path / "d.duckdb")
    with duckdb.connect(db) as c:
        c.execute("CREATE TABLE s AS SELECT * FROM (VALUES ('a', 1), ('b', 1), ('c', 1), ('c', 1)) v(g, x)")
    args = ["check", "--db", db, "--table", "s", "--qi", "g", "--population-size", "8"]
    text = invoke(*args).output
    assert "population uniques (population 8, sampling fraction 0.5, 2 sample uniques)" in text
    assert "Dankar's rule (zayatz) 0.3182 of the population (2.5 records)" in text
    found = json.loads(invoke(*args, "--json").output)["risk"]["population_uniqueness"]
    assert found["dankar"] == pytest.approx(28 / 11)
    both = invoke(*args, "--sampling-fraction", "0.5")
    assert both.exit_code == 2 and "give the population size or the sampling fraction, not both" in both.output
