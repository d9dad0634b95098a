"""MSB's runs (anonymizer.families.anatomy.runs): merged from the greedy's takes, they give every
record the group its take gave it, in Python and through the assign template; and the rows
MSB moves between DuckDB and Python follow the buckets and groups, not the records."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.bench.msb import run_msb_bench
from anonymizer.engine import rendering
from anonymizer.engine.session import Engine
from anonymizer.families.anatomy.runs import FIELDS, runs_of
from anonymizer.randomness import ReleaseKey


@st.composite
def takes(draw):
    """Takes as the greedy emits them: per bucket, records from 0 on (here and there a gap),
    groups often an equal stride apart (the runs' case), sometimes anywhere; in any order."""
    rows = []
    for bid in range(draw(st.integers(1, 4))):
        lo, gid = 0, draw(st.integers(0, 20))
        for _ in range(draw(st.integers(0, 12))):
            lo += draw(st.sampled_from([0, 0, 0, 1]))
            per, m = draw(st.sampled_from([1, 1, 1, 2])), draw(st.sampled_from([1, 1, 1, 1, 2, 3]))
            rows.append((bid, lo, per, gid, m))
            lo += per * m
            gid += m - 1 + draw(st.sampled_from([1, 1, 2, 2, 3, 0, -5, 7]))
    rows = draw(st.permutations(rows))
    columns = [np.array([r[i] for r in rows], np.int64) for i in range(5)]
    return np.rec.fromarrays(columns, formats=None, names="bid,lo,per,gid,m")


def by_takes(t) -> dict[tuple[int, int], int]:
    """(bucket, record) -> group, as the takes say."""
    return {(int(b), int(lo + j)): int(g + j // per)
            for b, lo, per, g, m in zip(t.bid, t.lo, t.per, t.gid, t.m) for j in range(per * m)}


def by_runs(r) -> dict[tuple[int, int], int]:
    """(bucket, record) -> group, as the runs say."""
    return {(int(b), int(lo + j)): int(g + (j // per) * step)
            for b, lo, n, g, per, step in zip(*(r[f] for f in FIELDS)) for j in range(n)}


@settings(max_examples=300, deadline=None)
@given(takes())
def test_runs_give_every_record_the_group_of_its_take(t):
    runs = runs_of(t)
    assert by_runs(runs) == by_takes(t)
    assert len(runs["bid"]) <= len(t)


def test_a_bucket_going_round_the_groups_is_one_run():
    """MBF's cycle: one record of the bucket in every third group, then two per group."""
    t = np.rec.fromarrays([np.zeros(6, np.int64), np.array([0, 1, 2, 3, 5, 7]), np.array([1, 1, 1, 2, 2, 2]),
                           np.array([4, 7, 10, 11, 12, 13]), np.ones(6, np.int64)], names="bid,lo,per,gid,m")
    runs = runs_of(t)
    assert [tuple(int(runs[f][i]) for f in FIELDS) for i in range(2)] == [(0, 0, 3, 4, 1, 3), (0, 3, 6, 11, 2, 1)]


@settings(max_examples=25, deadline=None)
@given(takes())
def test_the_assign_template_expands_the_runs_as_the_takes_say(t):
    """Every row of a bucket gets the group of its record number (its rank by the release's
    draw), and rows past every run none."""
    engine = Engine(duckdb.connect())
    sizes: dict[int, int] = {}   # one record more than the takes hand out: no run covers it
    for b, lo, per, m in zip(t.bid, t.lo, t.per, t.m):
        sizes[int(b)] = max(sizes.get(int(b), 0), int(lo + per * m) + 1)
    rows = [(bid, rid) for bid, size in sizes.items() for rid in range(size)]
    base, buckets, runs, assign = (engine.work(n) for n in ("base", "buckets", "runs", "assign"))
    engine.load_frame({"__rid": np.arange(len(rows)), "s0": np.array([b for b, _ in rows], np.int64)}, base)
    engine.load_frame({"bid": np.array(sorted(sizes)), "s0": np.array(sorted(sizes))}, buckets)
    engine.load_frame(runs_of(t), runs)
    key = ReleaseKey.from_seed(3).params()
    engine.run("families/anatomy/assign.sql.j2", key, target=assign, base=base, buckets=buckets, runs=runs,
               sens=["s0"])
    draw = rendering._ENV.from_string('{% from "_random.sql.j2" import draw %}{{ draw("msb-rank", "__rid") }}')
    ranked = engine.execute(f"SELECT __rid, s0, row_number() OVER (PARTITION BY s0 ORDER BY {draw.render()}) - 1 "
                            f"FROM {base}", key).fetchall()
    found = dict(engine.execute(f"SELECT __rid, __cid FROM {assign}").fetchall())
    want = by_takes(t)
    assert found == {rid: want[(bid, rn)] for rid, bid, rn in ranked if (bid, rn) in want}


@pytest.mark.parametrize("batch", ["exact", 0.2])
def test_msb_moves_rows_by_buckets_and_groups_not_records(batch):
    """On the bench's Adult-like tables at 8k and 32k rows: Python reads the buckets (and one
    domain size per dimension) and hands back at most one run per group and bucket, a third
    fewer than the takes with the exact greedy (which takes about one record per take); with
    batch 0.2 the runs grow clearly slower than the records."""
    small, large = run_msb_bench([8000, 32000], ["mbf-mslf"], repeat=1, batch=batch)
    for run in (small, large):
        assert run["rows_to_python"] == run["buckets"] + run["d"]
        assert run["rows_from_python"] <= run["groups"] + run["buckets"]
        if batch == "exact":
            assert 3 * run["rows_from_python"] <= 2 * run["takes"]
    if batch != "exact":
        assert large["rows_from_python"] < 3 * small["rows_from_python"]
