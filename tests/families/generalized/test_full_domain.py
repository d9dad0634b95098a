"""Full-domain generalization with suppression on the bundled Adult and its ARX hierarchies."""

from __future__ import annotations

import pytest

from anonymizer.families.generalized.full_domain import check_levels, full_domain
from anonymizer.families.generalized.steps import run_algorithm
from anonymizer.errors import PrivacyCheckFailed, SpecError

LEVELS = {"age": 2, "sex": 0, "race": 1, "education": 1, "marital-status": 1, "native-country": 1,
          "workclass": 1}


def adult_spec(source, columns, models, limit, levels=LEVELS):
    return {"release": "r", "source": source, "columns": columns, "models": models,
            "default_role": "insensitive", "suppression_limit": limit,
            "algorithm": {"name": "full-domain", "levels": dict(levels)}}


def test_suppresses_failing_classes_within_the_limit(engine, prepare_spec, adult_source, adult_columns):
    plan = prepare_spec(engine, adult_spec(adult_source, adult_columns, [{"type": "k-anonymity", "k": 5}], 0.05))
    result = run_algorithm(engine, plan)
    kept, smallest, classes = engine.execute(
        f"SELECT sum(n), min(n), count(*) FROM (SELECT count(*) AS n FROM {result.assign} GROUP BY __cid)").fetchone()
    assert smallest >= 5 and classes == result.classes
    assert 0 < result.suppressed <= 0.05 * plan.rows
    assert kept + result.suppressed == plan.base_rows
    assert result.labels == "hier" and result.levels == LEVELS


def test_bounds_are_the_hierarchy_nodes(engine, prepare_spec, adult_source, adult_columns):
    plan = prepare_spec(engine, adult_spec(adult_source, adult_columns, [{"type": "k-anonymity", "k": 5}], 0.05))
    result = full_domain(engine, plan)
    age = plan.qis[0]
    wrong = engine.execute(
        f"SELECT count(*) FROM {result.assign} a JOIN {plan.base} b USING (__rid) "
        f"JOIN {age.hier} h ON h.code = b.q0 AND h.level = 2 WHERE h.lo <> a.__lo0 OR h.hi <> a.__hi0").fetchone()[0]
    assert wrong == 0


def test_exceeding_the_limit_raises(engine, prepare_spec, adult_source, adult_columns):
    plan = prepare_spec(engine, adult_spec(adult_source, adult_columns, [{"type": "k-anonymity", "k": 5}], 0.01))
    with pytest.raises(PrivacyCheckFailed, match=r"5-anonymity .* rows would need suppression"):
        full_domain(engine, plan)


def test_check_levels_counts_per_model(engine, prepare_spec, adult_source, adult_columns):
    models = [{"type": "k-anonymity", "k": 5}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}]
    plan = prepare_spec(engine, adult_spec(adult_source, adult_columns, models, 0.05))
    found = check_levels(engine, plan, LEVELS)
    (_, k_classes, k_rows), (_, l_classes, l_rows) = found.per_model
    assert 0 < k_rows <= found.failing_rows <= k_rows + l_rows
    top = check_levels(engine, plan, {q.name: q.height for q in plan.qis})
    assert (top.classes, top.failing_rows) == (1, 0)


def test_level_above_the_hierarchy_is_a_spec_error(engine, prepare_spec, adult_source, adult_columns):
    plan = prepare_spec(engine, adult_spec(adult_source, adult_columns, [{"type": "k-anonymity", "k": 5}], 0.05))
    with pytest.raises(SpecError, match="algorithm.levels.age"):
        full_domain(engine, plan, {**LEVELS, "age": 9})
