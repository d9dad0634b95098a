"""Paper 001, Algorithm 1 (DBGH) honours the root's lower bound MinValue.

CreateLevel counts its intervals from 1 and skips those ending below MinValue; the root is
[MinValue, MaxValue] (Table 3 gives age the domain [17, 90]), so the interval holding
MinValue starts at MinValue: [17, 18] for width 18, not [1, 18]. Distortions are the
proportions formula H (hi - lo) / (MaxValue - MinValue).
"""

from __future__ import annotations

import pytest

from tests.hierarchy.conftest import build, nodes
from tests.hierarchy.test_builders import table

# age on [17, 90], min_width 5: divisors of 90 from 5 below 90, one level each (hand computed)
AGE_FIRST = {1: "[17, 20]", 2: "[17, 18]", 3: "[17, 18]", 4: "[17, 20]", 5: "[17, 30]", 6: "[17, 18]",
             7: "[17, 30]", 8: "[17, 45]"}


def test_age_labels_start_at_the_declared_lower_bound(adult):
    coded = build(adult, '"adult"', "age", {"dbgh": {"min_width": 5, "range": [17, 90]}})
    assert coded.height == 9, "divisors 5, 6, 9, 10, 15, 18, 30, 45 and the root 90"
    firsts = {j: nodes(adult, coded, j)[0] for j in range(1, 9)}
    assert {j: n[0] for j, n in firsts.items()} == AGE_FIRST
    low_ends = adult.execute(f"SELECT min(regexp_extract(label, '\\[(\\d+),', 1)::INT) FROM {coded.hier} "
                             "WHERE level BETWEEN 1 AND 8").fetchone()[0]
    assert low_ends == 17
    width18 = nodes(adult, coded, 6)
    assert [n[0] for n in width18[:2]] == ["[17, 18]", "[19, 36]"]
    assert [n[3] for n in width18[:2]] == pytest.approx([9 * 1 / 73, 9 * 17 / 73])


def test_one_value_has_no_interval_levels(engine):
    """Root [4, 4]: MaxValue 4 has the divisor 2, but a root of no length has nothing to divide."""
    coded = build(engine, table(engine, "SELECT 4 AS x FROM range(3)"), "x", {"dbgh": {"min_width": 2}})
    assert coded.height == 1


def test_a_declared_bound_below_the_data_is_the_root(engine):
    """x = 7..20 declared on [5, 20]: MaxValue 20, widths 5 and 10. Level 1 [6, 10] (from 1:
    [1, 5] holds no value), level 2 [5, 10] (not [1, 10], nor the data's 7), distortion
    3 (10 - 5) / (20 - 5) = 1."""
    t = table(engine, "SELECT range::INTEGER AS x FROM range(7, 21)")
    coded = build(engine, t, "x", {"dbgh": {"min_width": 5, "range": [5, 20]}})
    assert coded.height == 3
    assert [n[0] for n in nodes(engine, coded, 1)] == ["[6, 10]", "[11, 15]", "[16, 20]"]
    assert [(n[0], n[3]) for n in nodes(engine, coded, 2)] == [("[5, 10]", 1.0), ("[11, 20]", 1.8)]
