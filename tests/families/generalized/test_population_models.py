"""k-map and delta-presence as models a release enforces (issue 39), against ARX 3.9.2's figures.

The oracle (ARX 3.9.2, git tag v3.9.2, commit 8b7bc548, driven without its GUI): ARX's Adult
(30,162 rows) is the population, the research subset (``DataSubset``) its rows whose 0-based
index is a multiple of 10 (3,017 rows), the QIs age, sex and race with ARX's Adult
hierarchies. ``KMap(k, subset)`` and ``DPresence(dmin, dmax, subset)`` judged every class
(``isAnonymous`` on a ``HashGroupifyEntry`` with ``count`` = f and ``pcount`` = F) and, end to
end, ``ARXAnonymizer`` on the single-node lattice with no suppression. At age level 2, sex 0,
race 1 every one of the 16 subset classes has F >= 24 (k-map holds for k <= 24, not for 25)
and delta runs from 0.0417 to 0.1505 ((0, 0.5)-presence holds, (0.05, 0.5) does not); at
identity the smallest F is 1 and 220 population classes hold no subset row (delta 0).

Here the sample is the release's source, the population a table named by the model: the
release generalizes the population with its own hierarchies at the levels it chooses.
"""

from __future__ import annotations

import itertools

import duckdb
import pytest

from anonymizer import anonymize
from anonymizer.errors import DataError, PrivacyCheckFailed, SpecError
from anonymizer.families.generalized.full_domain import check_levels
from anonymizer.plan import prepare
from anonymizer.spec.parse import load_spec
from tests.conftest import ARX, arx_hierarchy

QIS = ("age", "sex", "race")
AGE2 = {"age": 2, "sex": 0, "race": 1}
IDENTITY = {"age": 0, "sex": 0, "race": 0}


@pytest.fixture
def adult():
    """ARX's Adult as ``everyone`` and the research subset (every 10th row) as ``sample``."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE everyone AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    con.execute("CREATE TABLE sample AS SELECT * EXCLUDE (i) FROM (SELECT *, rowid AS i FROM everyone) WHERE i % 10 = 0")
    yield con
    con.close()


def spec(models, algorithm, limit=0.0, source="sample"):
    columns = {q: {"role": "quasi", "hierarchy": {"csv": arx_hierarchy(q)}} for q in QIS}
    return {"release": "r", "source": {"table": source}, "columns": columns, "models": models,
            "default_role": "insensitive", "suppression_limit": limit, "algorithm": algorithm}


def k_map(k, population="everyone"):
    return {"type": "k-map", "k": k, "population": population}


def delta(dmin, dmax, population="everyone"):
    return {"type": "delta-presence", "dmin": dmin, "dmax": dmax, "population": population}


def full_domain(levels):
    return {"name": "full-domain", "levels": dict(levels)}


def published(con) -> bool:
    return con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'r'").fetchone()[0] > 0


def test_k_map_and_delta_presence_publish_with_arx_s_figures(adult):
    result = anonymize(spec([k_map(24), delta(0.0, 0.5)], full_domain(AGE2)), adult)
    checks = {c["model"]: c for c in result.models}
    kmap, presence = checks["24-map against 'everyone'"], checks["(0,0.5)-presence against 'everyone'"]
    assert (kmap["figure"], kmap["holds"], kmap["population"]) == (24, True, "everyone")
    assert presence["delta_min"] == pytest.approx(0.041666666666666664)
    assert presence["delta_max"] == presence["figure"] == pytest.approx(0.15048543689320387)
    assert result.classes == 16 and result.rows_out == 3017
    (figures,) = adult.execute("SELECT figures FROM _anon_releases._audit").fetchone()
    assert '"24-map against \'everyone\'"' in figures and "delta_min" in figures   # the audit row records them


@pytest.mark.parametrize("models", [[k_map(25)], [delta(0.05, 0.5)]], ids=["25-map", "(0.05,0.5)-presence"])
def test_a_model_arx_refuses_publishes_nothing(adult, models):
    with pytest.raises(PrivacyCheckFailed, match="does not hold"):
        anonymize(spec(models, full_domain(AGE2)), adult)
    assert not published(adult)


def test_identity_figures_are_arx_s(adult):
    result = anonymize(spec([k_map(1), delta(0.0, 1.0)], full_domain(IDENTITY)), adult)
    kmap, presence = result.models[1:]
    assert kmap["figure"] == 1 and (presence["delta_min"], presence["delta_max"]) == (0.0, 1.0)


def test_a_population_class_without_sample_rows_fails_dmin_whatever_is_suppressed(adult):
    """ARX's HashGroupify.analyze: a population class with no subset row and delta 0 < dmin
    fails the transformation (at identity, 220 of the 528 classes hold no subset row)."""
    with pytest.raises(PrivacyCheckFailed, match="220 class") as failed:
        anonymize(spec([delta(0.01, 1.0)], full_domain(IDENTITY), limit=1.0), adult)
    assert "suppression cannot help" in str(failed.value) and not published(adult)


def test_classes_failing_dmax_are_suppressed(adult):
    """A class with sample rows failing dmax is suppressed like any failing class (ARX), and
    the gate passes the rest: the largest delta released is at most dmax."""
    result = anonymize(spec([delta(0.0, 0.12)], full_domain(AGE2), limit=0.5), adult)
    assert 0 < result.suppressed and result.models[1]["delta_max"] <= 0.12


def _node_k_maps(con) -> dict[tuple[int, ...], int]:
    """Brute force, independent of the package: every node of the (age, sex, race) lattice of
    ARX's hierarchy files -> the smallest population class F over the sample's classes."""
    for q in QIS:
        con.execute(f"CREATE OR REPLACE TABLE h_{q} AS SELECT * FROM read_csv('{arx_hierarchy(q)}', delim=';', "
                    "header=false, all_varchar=true)")
    heights = [len(con.execute(f"SELECT * FROM h_{q} LIMIT 0").description) - 1 for q in QIS]
    out = {}
    for node in itertools.product(*(range(h + 1) for h in heights)):
        cols = "row(" + ", ".join(f"h_{q}.column{lv}" for q, lv in zip(QIS, node)) + ")"
        joins = " ".join(f"JOIN h_{q} ON h_{q}.column0 = CAST(t.\"{q}\" AS VARCHAR)" for q in QIS)
        out[node] = con.execute(
            f"WITH s AS (SELECT DISTINCT {cols} AS c FROM sample t {joins}), "
            f"p AS (SELECT {cols} AS c, count(*) AS f FROM everyone t {joins} GROUP BY 1) "
            "SELECT min(p.f) FROM s JOIN p USING (c)").fetchone()[0]
    return out


def test_node_checks_equal_a_brute_force_over_the_lattice(adult):
    truth = _node_k_maps(adult)
    from anonymizer.engine.session import Engine
    engine = Engine(adult)
    plan = prepare(engine, load_spec(spec([k_map(30)], {"name": "optimal"})))
    for node, smallest in truth.items():
        assert check_levels(engine, plan, dict(zip(QIS, node))).fits(0) == (smallest >= 30), node
    engine.close_work()


@pytest.mark.parametrize("algorithm", ["optimal", "privacyfrost2"])
def test_lattice_searches_find_a_node_satisfying_k_map(adult, algorithm):
    truth = _node_k_maps(adult)
    result = anonymize(spec([k_map(30)], {"name": algorithm}), adult)
    node = tuple(result.algorithm["levels"][q] for q in QIS)
    assert truth[node] >= 30 and result.models[1]["figure"] == truth[node]
    if algorithm == "optimal":   # no satisfying node is finer on every QI than the optimum
        assert not any(truth[n] >= 30 for n in truth if n != node and all(a <= b for a, b in zip(n, node)))


def test_mondrian_and_other_families_refuse_population_models(adult):
    with pytest.raises(SpecError, match=r"models\[0\]: k-map is not a model of mondrian") as refused:
        anonymize(spec([k_map(3)], {"name": "mondrian"}), adult)
    assert "reached by full-domain, privacyfrost2, optimal" in str(refused.value)
    anatomy = spec([{"type": "multi-l-diversity", "l": 2}, delta(0, 0.5)], {"name": "mbf"})
    anatomy["columns"]["occupation"] = "sensitive"
    with pytest.raises(SpecError, match=r"models\[1\]"):
        load_spec(anatomy)
    with pytest.raises(SpecError, match=r"models\[0\]: k-map compares the population at one level vector"):
        load_spec(spec([k_map(3)], {"name": "privacyfrost2", "partial": True}))


def test_bad_population_tables(adult):
    with pytest.raises(SpecError, match=r"models\[0\]\.population: names no table"):
        anonymize(spec([k_map(3, "nobody")], full_domain(AGE2)), adult)
    adult.execute("CREATE TABLE no_race AS SELECT age, sex FROM everyone")
    with pytest.raises(SpecError, match=r"models\[1\]\.population: table no_race has no column 'race'"):
        anonymize(spec([k_map(3), delta(0, 1, "no_race")], full_domain(AGE2)), adult)
    adult.execute("CREATE TABLE text_age AS SELECT CAST(age AS VARCHAR) AS age, sex, race FROM everyone")
    with pytest.raises(SpecError, match=r"models\[0\]\.population: column 'age' of text_age is VARCHAR"):
        anonymize(spec([k_map(3, "text_age")], full_domain(AGE2)), adult)
    adult.execute("CREATE TABLE too_few AS SELECT * FROM everyone WHERE age < 80")
    with pytest.raises(DataError, match=r"models\[0\]\.population: table too_few does not hold the release's source"):
        anonymize(spec([k_map(3, "too_few")], full_domain(AGE2)), adult)
    assert not published(adult)


@pytest.mark.parametrize("entry,field", [
    ({"type": "k-map", "k": 3}, r"models\[0\]\.population"),
    ({"type": "k-map", "k": 0, "population": "p"}, r"models\[0\]\.k"),
    ({"type": "delta-presence", "dmin": 0.6, "dmax": 0.5, "population": "p"}, r"models\[0\]\.dmin"),
    ({"type": "delta-presence", "dmin": 0, "dmax": 1.5, "population": "p"}, r"models\[0\]\.dmax"),
    ({"type": "delta-presence", "dmin": 0, "dmax": 1, "population": "a..b"}, r"models\[0\]\.population"),
    ({"type": "k-map", "k": 3, "population": "p", "sensitive": "x"}, r"models\[0\]\.sensitive"),
])
def test_bad_model_entries(entry, field):
    with pytest.raises(SpecError, match=field):
        load_spec(spec([entry], full_domain(AGE2)))


def test_k_map_s_k_is_not_the_release_s_k(adult):
    """k-map's k counts population rows: a k above the sample's rows is no spec error, and the
    release's classes need not hold k rows (ARX's KMap without an estimator)."""
    result = anonymize(spec([k_map(3018)], full_domain({"age": 4, "sex": 1, "race": 1})), adult)
    assert result.models[0]["figure"] == 3017 and result.models[1]["figure"] == 30162


def test_optimal_with_delta_presence_and_suppression(adult):
    """delta-presence is not monotonic: the search never prunes on it, the bound counts the
    monotonic k-map only, and the node chosen passes the gate with its failing classes suppressed."""
    result = anonymize(spec([k_map(10), delta(0.0, 0.12)], {"name": "optimal"}, limit=0.05), adult)
    _, kmap, presence = result.models
    assert kmap["figure"] >= 10 and presence["delta_max"] <= 0.12
    assert 0 < result.suppressed <= 0.05 * 3017 and result.algorithm["pruning"]
