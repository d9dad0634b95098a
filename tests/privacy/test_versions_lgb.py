"""Issue 36 for LGB (paper 000's table): an adversary who holds every version and knows, as
the paper's Lemma 2 grants, each target's local bucket in each version (p(s | t, b) =
|b(s)| / |b|). The test reads a person's bucket from the release's private state, copied
after each night, and first checks that state against what the version published (each
published bucket's values are its group's multiset). The attacks share no code with the gate:

- intersection: a person's candidates are their bucket's values; over the versions where
  their diagnosis stood, they intersect;
- difference: for two versions in which a person's diagnosis stood, the multiset difference
  of their two buckets is what joiners and leavers brought or took.
"""

from __future__ import annotations

import json

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer.api import anonymize
from anonymizer.datasets.churn import churn, people
from tests.privacy.adversary import group_difference_attack, group_intersection_attack, keep_state, publish_nights
from anonymizer.errors import UnsupportedError

L = 3


def spec(guarantee: str, **changes) -> dict:
    return {"release": "lg", "source": {"table": "people"},
            "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"},
            "algorithm": {"name": "lgb-mdp"}, "models": [{"type": "k-anonymity", "k": 5}, {"type": "l-unique", "l": L}],
            "history": {"guarantee": guarantee, "person": "pid"}, "suppression_limit": 0.02} | changes


def nights(guarantee: str, versions: int = 4, back: bool = False) -> tuple[duckdb.DuckDBPyConnection, list]:
    """``versions`` nightly versions of a changing table (with ``back``, the people who left
    on night 1 come back on night 2); returns the connection and, per version, its result
    and the night's truth table. The private state of each version is copied aside."""
    con = duckdb.connect()
    people(con, "people", 4000)
    published = publish_nights(con, lambda: anonymize(spec(guarantee), con), "people", versions, back,
                               lambda night, r: keep_state(con, "lg", night, r))
    return con, published


def buckets_as_published(con, published) -> None:
    """Every version's published buckets (the values its rows show, counterfeits included)
    are, as a multiset of multisets, its private groups' multisets (a group keeps its values
    as text): the state the attacks read is what the adversary could tell apart in the version."""
    for night, (r, _) in enumerate(published):
        shown, kept = con.execute(f"""
            WITH pub AS (SELECT list(diagnosis ORDER BY diagnosis) AS b FROM _anon_releases."lg__v{r.version}"
                         GROUP BY diagnosis_bid),
            st AS (SELECT list(g.value ORDER BY g.value) AS b FROM groups_{night} g, range(g.n) GROUP BY g.gid)
            SELECT (SELECT list(b ORDER BY b) FROM pub), (SELECT list(b ORDER BY b) FROM st)""").fetchone()
        assert shown == kept


def test_independent_lgb_versions_narrow_people_and_the_audit_says_so():
    con, published = nights("independent")
    buckets_as_published(con, published)
    assert group_intersection_attack(con, published, L) > 0 and group_difference_attack(con, published, L) > 0
    gates = [json.loads(f)["combination"] for (f,) in
             con.execute("SELECT figures FROM _anon_releases._audit ORDER BY version").fetchall()]
    assert gates[-1]["compared"] == [3] and gates[-1]["intersection"]["below"] > 0 and gates[-1]["isolated"] > 0


def test_invariant_lgb_versions_hold_against_both_attacks():
    con, published = nights("invariant")
    assert [r.version for r, _ in published] == [1, 2, 3, 4]
    buckets_as_published(con, published)
    assert group_intersection_attack(con, published, L) == 0 and group_difference_attack(con, published, L) == 0
    for r, truth in published:   # every real row in a group; counterfeits hold a bucket cell only
        (real,) = con.execute(f"SELECT count(*) FROM {truth}").fetchone()
        fakes, empty = con.execute(f'SELECT count(*) FILTER (WHERE gid IS NULL), count(*) FILTER (WHERE gid IS NULL '
                                   f'AND (age IS NOT NULL OR zip IS NOT NULL OR sex IS NOT NULL)) '
                                   f'FROM _anon_releases."lg__v{r.version}"').fetchone()
        assert r.rows_out - fakes == real and r.suppressed == 0 and empty == 0
        assert fakes == (r.algorithm.get("invariance") or {}).get("counterfeits", 0)
    assert published[-1][0].algorithm["invariance"]["counterfeits"] > 0


def test_people_who_leave_and_come_back_keep_their_buckets():
    con, published = nights("invariant", back=True)
    back = published[2][0]
    assert back.suppressed == back.algorithm["invariance"]["returners_held"] + back.algorithm["invariance"]["held_back"]
    assert back.algorithm["invariance"]["reopened"] > 0
    assert group_intersection_attack(con, published, L) == 0 and group_difference_attack(con, published, L) == 0


def test_what_the_lgb_gate_cannot_follow_is_refused_under_invariant():
    """Flagged QIs (a person's cells move between buckets and groups) are refused with a
    person key, before any work; without one, a changed source is refused (a bucket
    publishes no box to compare)."""
    con = duckdb.connect()
    people(con, "people", 2000)
    con.execute("CREATE VIEW flagged AS SELECT *, age > 60 AS age_flag FROM people")
    columns = {"pid": "identifier", "age": {"role": "quasi", "flag": "age_flag"}, "zip": "quasi", "sex": "quasi",
               "diagnosis": "sensitive"}
    with pytest.raises(UnsupportedError, match="flagged QIs"):
        anonymize(spec("invariant", release="fl", source={"table": "flagged"}, columns=columns), con)
    anonymize(spec("invariant", release="np", history={"guarantee": "invariant"}), con)
    churn(con, night=1, leave=0.05, joiners=200)
    with pytest.raises(UnsupportedError, match="needs history.person"):
        anonymize(spec("invariant", release="np", history={"guarantee": "invariant"}), con)


def test_t_close_buckets_keep_their_signatures_and_new_ones_are_close_to_the_whole_version():
    """Under t-closeness the new rows' buckets are made t-close to the whole version's values
    (not the new rows' own), so the version verifies; the gate lists t-closeness as not
    judged on differences, and the signatures still leave no one fewer values."""
    t = [{"type": "k-anonymity", "k": 5}, {"type": "t-closeness", "t": 0.3, "sensitive": "diagnosis"}]
    con = duckdb.connect()
    people(con, "people", 4000)
    published = publish_nights(con, lambda: anonymize(spec("invariant", models=t), con), "people", 3,
                               after=lambda night, r: keep_state(con, "lg", night, r))
    assert len(published) == 3
    gate = json.loads(con.execute("SELECT figures FROM _anon_releases._audit WHERE version = 3").fetchone()[0])
    assert gate["combination"]["not_checked"] and published[-1][0].algorithm["invariance"]["placed"] > 0
    buckets_as_published(con, published)
    assert group_difference_attack(con, published, L) == 0


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(150, 600), seed=st.integers(1, 10_000), leave=st.floats(0.0, 0.25),
       joiners=st.integers(0, 120), change=st.floats(0.0, 0.2), back=st.booleans())
def test_random_nights_publish_invariant_lgb_versions_or_nothing(size, seed, leave, joiners, change, back):
    """Random tables and nights: each version publishes with every stood person's bucket
    unchanged (both attacks find no one), or is refused and publishes nothing."""
    con = duckdb.connect()
    people(con, "people", size, seed=seed)
    published = publish_nights(con, lambda: anonymize(spec("invariant", suppression_limit=0.2), con), "people", 3,
                               back, lambda night, r: keep_state(con, "lg", night, r),
                               leave=leave, joiners=joiners, change=change, seed=seed)
    if published:
        buckets_as_published(con, published)
        assert group_intersection_attack(con, published, L) == 0 and group_difference_attack(con, published, L) == 0
