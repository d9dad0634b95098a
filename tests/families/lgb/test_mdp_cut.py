"""LGB_MDP's median cut against Algorithm 3's (paper 000, lines 12-14; anonymizer.families.lgb.mdp):
ages 1, 2, 3, 9 x 7 with k = 3. Algorithm 3 is computed here by hand in pandas (its cut taken
literally), our release by the package."""

from __future__ import annotations

import pandas as pd

from anonymizer import anonymize

AGES = [1, 2, 3] + [9] * 7
K = 3


def algorithm3_groups(ages: list[int], k: int) -> list[list[int]]:
    """Algorithm 3 on one numeric QI, taken literally: split at the median (lower median of
    the sorted values), S_l = values <= median, S_r = values > median, keep the split only if
    both sides hold k; a set that cannot split is a group."""
    todo, groups = [sorted(ages)], []
    while todo:
        values = todo.pop()
        median = values[(len(values) - 1) // 2]
        left, right = [v for v in values if v <= median], [v for v in values if v > median]
        if len(left) >= k and len(right) >= k:
            todo += [left, right]
        else:
            groups.append(values)
    return groups


def our_groups(con, ages: list[int], k: int) -> list[list[int]]:
    """The ages of each local equivalence group of our LGB_MDP release (one QI, age)."""
    con.execute("CREATE OR REPLACE TABLE t (id INTEGER, age INTEGER, d VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, a, f"d{i}") for i, a in enumerate(ages)])
    spec = {"release": "cut", "source": {"table": "t"},
            "columns": {"id": "insensitive", "age": {"role": "quasi", "type": "numeric"}, "d": "sensitive"},
            "models": [{"type": "k-anonymity", "k": k}, {"type": "l-unique", "l": 2}],
            "algorithm": {"name": "lgb-mdp"}}
    table = con.execute(f"SELECT * FROM {anonymize(spec, con).view} ORDER BY id").df()
    return sorted(sorted(ages[i] for i in g["id"]) for _, g in table.groupby("gid"))


def test_algorithm3_keeps_one_group_where_we_make_two(con):
    assert pd.Series(AGES).median() == 9                       # the median is the largest value
    assert algorithm3_groups(AGES, K) == [AGES]                # S_r empty: one group of 10
    assert our_groups(con, AGES, K) == [[1, 2, 3], [9] * 7]    # we cut at 3, below the median


def test_the_cuts_agree_when_the_median_is_below_the_top(con):
    ages = list(range(1, 11))                                  # median 5 < 10: both cut at 5
    assert sorted(algorithm3_groups(ages, K)) == our_groups(con, ages, K) == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]
