"""Paper 002's MSB releases end to end: Table 1 under all six algorithms (groups worked by
hand), random tables re-checked in pandas against Definitions 10 and 11, the anatomy tables
re-measured with pycanon, and the gate (suppression limit, reruns, versions moving both views).

Reading the published views into pandas is the test's business, not the product's.
"""

from __future__ import annotations

from collections import Counter

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pycanon import anonymity

from anonymizer import anonymize
from anonymizer.demo import load_adult
from anonymizer.errors import AnonymizerError, DataError, PrivacyCheckFailed, SpecError, UnsupportedError
from anonymizer.families.anatomy import MSB_ALGORITHMS
from tests.families.anatomy.conftest import QIS, TABLE1, TABLE1_COLUMNS, TABLE1_GROUPS, table1_spec

LSL = {"type": "lsl-diversity", "l": [1, 2, 3]}
MULTI3 = {"type": "multi-l-diversity", "l": 3}


def G(*vectors: str) -> frozenset:
    """A group as a set of 'Physician/Disease' vectors (each appears once in Table 1)."""
    return frozenset(tuple(v.split("/")) for v in vectors)


#: the hand-worked groups of conftest.TABLE1_GROUPS, as sets of groups
EXPECTED_GROUPS = {name: {G(*group) for group in groups} for name, groups in TABLE1_GROUPS.items()}


def views(con, view: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (con.execute(f"SELECT * FROM {view}").df().reset_index(drop=True),
            con.execute(f"SELECT * FROM {view}_sensitive").df().reset_index(drop=True))


def table1_groups(con, view: str) -> set[frozenset]:
    """Groups read back from the two views joined on group_id: per group, the set of vectors."""
    rows = con.execute(f"""
        SELECT q.group_id, s.Physician, s.Disease, s.count, count(*) AS qi_rows
        FROM {view} AS q JOIN {view}_sensitive AS s USING (group_id)
        GROUP BY ALL""").fetchall()
    groups: dict[int, set] = {}
    for gid, physician, disease, count, qi_rows in rows:
        assert count == 1   # every vector of Table 1 is distinct
        groups.setdefault(gid, set()).add((physician, disease))
    sizes = dict(con.execute(f"SELECT group_id, count(*) FROM {view} GROUP BY ALL").fetchall())
    assert {g: len(v) for g, v in groups.items()} == sizes
    return {frozenset(v) for v in groups.values()}


def def14(groups: set[frozenset], l_of_vector) -> float:
    """Definition 14: sum(|G| - l_G) / sum(l_G), l_G the l of the group's highest level."""
    lg = [max(l_of_vector(v) for v in g) for g in groups]
    return (sum(len(g) for g in groups) - sum(lg)) / sum(lg)


def lsl_of(vector) -> int:
    level = {"Flu": 0, "Pneumonia": 1, "Gastritis": 1, "HIV": 2, "Cancer": 2}
    return [1, 2, 3][max(1, level[vector[1]])]   # every physician is at level 1


# -- Table 1 -------------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", MSB_ALGORITHMS)
def test_table1_groups_worked_by_hand(t1, algorithm):
    con = t1
    r = anonymize(table1_spec("t1", algorithm, LSL), con)
    assert (r.rows_in, r.rows_out, r.suppressed) == (9, 9, 0)
    assert r.view == "published.t1" and r.views == ["published.t1_sensitive"]
    groups = table1_groups(con, r.view)
    assert groups == EXPECTED_GROUPS[algorithm]
    assert r.classes == len(groups)
    assert r.utility["additional_information_loss"] == pytest.approx(def14(groups, lsl_of))
    assert r.utility["suppression_ratio"] == 0
    if algorithm.endswith("mslf"):
        # MSLF sizes every group by its highest level: Def. 14's loss is 0 on Table 1
        assert r.utility["additional_information_loss"] == 0
    else:
        # baselines group by l = 3: the one group without a level-2 value (l_G = 2) has 3 records
        assert r.utility["additional_information_loss"] == pytest.approx(1 / 8)

    # The QI table: the QIs as they were, no identifiers, each record in the group of its vector.
    qi, sens = views(con, r.view)
    assert list(qi.columns) == ["row_id", *QIS, "group_id"]
    assert list(sens.columns) == ["group_id", "Physician", "Disease", "count"]
    assert sorted(qi.row_id) == list(range(1, 10))
    source = pd.DataFrame(TABLE1, columns=TABLE1_COLUMNS)
    linked = qi.merge(source, on=QIS, how="left", validate="one_to_one")   # QIs are unique per record here
    assert linked.SSN.notna().all()
    placed = set(zip(linked.group_id, linked.Physician, linked.Disease))
    assert placed == set(zip(sens.group_id, sens.Physician, sens.Disease))


@pytest.mark.parametrize("algorithm", ["mbf", "msdcf", "mmdcf"])
def test_table1_baselines_under_multi_l_diversity(t1, algorithm):
    r = anonymize(table1_spec("t1", algorithm, MULTI3), t1)
    assert (r.rows_out, r.suppressed) == (9, 0)
    assert table1_groups(t1, r.view) == EXPECTED_GROUPS[algorithm]
    # three groups of three, l_G = 3 for each: no additional information loss
    assert r.utility["additional_information_loss"] == 0


@pytest.mark.parametrize("algorithm", ["msdcf", "mmdcf-mslf"])
def test_table1_seeded_runs_are_reproducible_and_diverse(t1, algorithm):
    a = anonymize(table1_spec("a", algorithm, LSL, seed=11), t1)
    b = anonymize(table1_spec("b", algorithm, LSL, seed=11), t1)
    ga, gb = table1_groups(t1, a.view), table1_groups(t1, b.view)
    assert ga == gb and a.rows_out + a.suppressed == 9
    for g in ga:   # Definition 10 per attribute: c(v) * l(v) <= |G|
        for j in range(2):
            for value in {v[j] for v in g}:
                l = 2 if j == 0 else {"Flu": 1, "Pneumonia": 2, "Gastritis": 2, "HIV": 3, "Cancer": 3}[value]
                assert sum(v[j] == value for v in g) * l <= len(g)


# -- random tables against the definitions, recomputed in pandas -----------------------------
L_LISTS = [[1, 2, 3], [1, 1, 2], [2, 2, 3]]


@st.composite
def msb_cases(draw):
    n = draw(st.integers(1, 80))
    d = draw(st.integers(1, 3))
    attrs = []
    for j in range(d):
        size = draw(st.integers(1, 5))
        numeric = draw(st.booleans())
        domain = list(range(size)) if numeric else [f"v{j}_{i}" for i in range(size)]
        attrs.append(domain)
    skew = draw(st.sampled_from(["uniform", "skewed"]))
    rows = []
    for i in range(n):
        vec = []
        for domain in attrs:
            if skew == "uniform":
                vec.append(draw(st.sampled_from(domain)))
            else:   # the first value far more often
                k = draw(st.integers(0, 2 * len(domain) - 1))
                vec.append(domain[max(0, k - len(domain))])
        rows.append((i, draw(st.integers(0, 9)), draw(st.sampled_from("ab")), *vec))
    securities, bad_override = [], None
    for j, domain in enumerate(attrs):
        present = sorted({r[3 + j] for r in rows}, key=str)
        kind = draw(st.sampled_from(["none", "level", "map"]))
        if kind == "none":
            securities.append(None)
        elif kind == "level":
            securities.append(draw(st.integers(0, 2)))
        else:
            chosen = draw(st.lists(st.sampled_from(present), unique=True, max_size=len(present)))
            values = {str(v): draw(st.integers(0, 2)) for v in chosen}
            if bad_override is None and draw(st.integers(0, 9)) == 0:
                bad_override = (f"s{j}", "no such value")
                values[bad_override[1]] = 1
            sec = {"values": values}
            if draw(st.booleans()):
                sec["default"] = draw(st.integers(0, 2))
            securities.append(sec)
    if draw(st.booleans()):
        model = {"type": "lsl-diversity", "l": draw(st.sampled_from(L_LISTS))}
    else:
        model = {"type": "multi-l-diversity", "l": draw(st.integers(1, 3))}
    algorithm = {"name": draw(st.sampled_from(MSB_ALGORITHMS)),
                 "seed": draw(st.one_of(st.none(), st.integers(0, 2**31))),
                 "batch": draw(st.sampled_from(["exact", 0.2]))}
    return {"rows": rows, "d": d, "numeric": [isinstance(a[0], int) for a in attrs], "securities": securities,
            "bad_override": bad_override, "model": model, "algorithm": algorithm}


def level_of(security, value) -> int:
    """A value's security level as the spec says (no security: level 2)."""
    if security is None:
        return 2
    if isinstance(security, int):
        return security
    return security["values"].get(str(value), security.get("default", 2))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=msb_cases())
def test_random_releases_satisfy_definitions_10_and_11(case):
    d, rows = case["d"], case["rows"]
    sens = [f"s{j}" for j in range(d)]
    con = duckdb.connect()
    try:
        types = ", ".join(f"{s} {'INTEGER' if num else 'VARCHAR'}" for s, num in zip(sens, case["numeric"]))
        con.execute(f"CREATE TABLE src (rid INTEGER, qa INTEGER, qb VARCHAR, {types})")
        con.executemany(f"INSERT INTO src VALUES ({', '.join(['?'] * (3 + d))})", rows)
        columns = {"rid": "insensitive", "qa": "quasi", "qb": "quasi"}
        for s, sec in zip(sens, case["securities"]):
            columns[s] = {"role": "sensitive"} if sec is None else {"role": "sensitive", "security": sec}
        spec = {"release": "r", "source": {"table": "src"}, "columns": columns, "models": [case["model"]],
                "algorithm": case["algorithm"], "suppression_limit": 1.0}
        try:
            r = anonymize(spec, con)
        except AnonymizerError as exc:
            assert not con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0]
            assert not con.execute("SELECT count(*) FROM duckdb_databases() "
                                   "WHERE database_name LIKE '_anon_work_%'").fetchone()[0]
            # the only error a valid case may raise is the override naming an absent value
            assert case["bad_override"] is not None, f"unexpected {exc!r}"
            event("refused: override of an absent value")
            assert isinstance(exc, SpecError)
            assert exc.field == f"columns.{case['bad_override'][0]}.security.values.{case['bad_override'][1]}"
            return
        assert case["bad_override"] is None, "an override naming an absent value must be refused"
        check_release(con, r, case, sens)
        event("published, none suppressed" if not r.suppressed else
              "published, all suppressed" if not r.rows_out else "published, some suppressed")
    finally:
        con.close()


def check_release(con, r, case, sens):
    rows, model = case["rows"], case["model"]
    if model["type"] == "lsl-diversity":
        l_of = [lambda v, j=j: model["l"][level_of(case["securities"][j], v)] for j in range(len(sens))]
    else:
        l_of = [lambda v: model["l"]] * len(sens)
    qi, st_ = views(con, r.view)
    assert list(qi.columns) == ["row_id", "qa", "qb", "rid", "group_id"]
    assert list(st_.columns) == ["group_id", *sens, "count"]
    # row counts add up
    assert r.rows_in == len(rows) and r.rows_out == len(qi) and r.rows_out + r.suppressed == len(rows)
    assert r.utility["suppression_ratio"] == pytest.approx(r.suppressed / len(rows))
    sizes = qi.groupby("group_id").size()
    assert (st_.groupby("group_id")["count"].sum().sort_index() == sizes.sort_index()).all()
    assert set(st_.group_id) == set(qi.group_id)
    assert (st_["count"] >= 1).all()
    # Definition 10 on every attribute of every group (Definition 11): c(v) * l(v) <= |G|
    lgs = []
    for gid, part in st_.groupby("group_id"):
        size = sizes[gid]
        lg = 1
        for j, s in enumerate(sens):
            for value, c in part.groupby(s)["count"].sum().items():
                assert c * l_of[j](value) <= size, (gid, s, value, c, size)
                lg = max(lg, l_of[j](value))
        lgs.append((size, lg))
    if lgs:
        sum_lg = sum(lg for _, lg in lgs)
        assert r.utility["additional_information_loss"] == pytest.approx(
            (sum(s for s, _ in lgs) - sum_lg) / sum_lg)
    # published vectors plus the suppressed make up the input's multiset of vectors
    source = pd.DataFrame(rows, columns=["rid", "qa", "qb", *sens])
    vec = lambda frame: Counter(tuple(x) for x in frame[sens].itertuples(index=False))  # noqa: E731
    published = Counter()
    for row in st_.itertuples(index=False):
        published[tuple(getattr(row, s) for s in sens)] += row.count
    everything = vec(source)
    assert not published - everything
    assert sum((everything - published).values()) == r.suppressed
    # each published record (found by its passed-through rid) keeps its QIs and lands in a
    # group whose sensitive rows count its vector
    assert qi.rid.is_unique
    linked = qi.merge(source, on="rid", suffixes=("", "_src"), validate="one_to_one")
    assert (linked.qa == linked.qa_src).all() and (linked.qb == linked.qb_src).all()
    by_group = Counter((row.group_id, *(getattr(row, s) for s in sens)) for row in linked.itertuples(index=False))
    listed = Counter({(row.group_id, *(getattr(row, s) for s in sens)): row.count
                      for row in st_.itertuples(index=False)})
    assert by_group == listed


# -- pycanon as an independent oracle ----------------------------------------------------------
ADULT_SENSITIVE = ["occupation", "education", "marital-status"]


def test_adult_baseline_agrees_with_pycanon(con):
    load_adult(con)
    con.execute("""CREATE TABLE adult2k AS SELECT * FROM adult
                   WHERE COLUMNS(*) IS NOT NULL ORDER BY fnlwgt, age LIMIT 2000""")
    columns = {"age": "quasi", "sex": "quasi", "race": "quasi", "native-country": "quasi",
               **{s: "sensitive" for s in ADULT_SENSITIVE}}
    spec = {"release": "adult_msb", "source": {"table": "adult2k"}, "columns": columns,
            "default_role": "identifier", "models": [MULTI3], "algorithm": {"name": "mmdcf", "seed": 1},
            "suppression_limit": 0.5}
    r = anonymize(spec, con)
    assert r.rows_out + r.suppressed == 2000
    # No 3-diverse release keeps more than N records where N <= sum_v min(c(v), N/3) on every
    # attribute (no value may exceed a third of the kept records); marital-status, with
    # Married-civ-spouse at 946 of 2000, caps N at 1278, which the greedy reaches here.
    for s in ADULT_SENSITIVE:
        counts = [c for (c,) in con.execute(f'SELECT count(*) FROM adult2k GROUP BY "{s}"').fetchall()]
        cap = max(n for n in range(2001) if n <= sum(min(c, n // 3) for c in counts))
        assert r.rows_out <= cap, s
    assert r.rows_out >= 1200
    sens = con.execute(f"SELECT * FROM {r.view}_sensitive").df()
    # Anatomy publishes groups, not records: one row per record of each group, with the group
    # id as the only quasi-identifier and each sensitive vector repeated by its count.
    frame = sens.loc[sens.index.repeat(sens["count"])].drop(columns="count").reset_index(drop=True)
    assert len(frame) == r.rows_out
    # Definition 7 bounds the most frequent value's share of its group, c(v)/|G| <= 1/l; that
    # share, maximised over groups, is exactly the alpha of (alpha, k)-anonymity. Distinct
    # l-diversity (at least l values per group) is weaker: it follows from alpha <= 1/l.
    for s in ADULT_SENSITIVE:
        alpha, k = anonymity.alpha_k_anonymity(frame, ["group_id"], [s])
        assert alpha <= 1 / 3 + 1e-12, s
        assert k >= 3
        assert anonymity.l_diversity(frame, ["group_id"], [s]) >= 3
    assert r.models[0]["figure"] <= 1


# -- the gate: suppression limit, reruns, versions ----------------------------------------------
def published_state(con, release="t1"):
    """Both views' content (row count and an order-free hash) and what they select from."""
    out = []
    for view in (release, f"{release}_sensitive"):
        exists = con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published' "
                             "AND view_name = $v", {"v": view}).fetchone()[0]
        if not exists:
            out.append(None)
            continue
        content = con.execute(f"SELECT count(*), sum(hash(t)) FROM published.{view} AS t").fetchone()
        sql = con.execute("SELECT sql FROM duckdb_views() WHERE schema_name = 'published' AND view_name = $v",
                          {"v": view}).fetchone()[0]
        out.append((content, sql))
    return out


def test_suppression_beyond_the_limit_publishes_nothing(t1):
    # MBF-MSLF under 3-diversity leaves one record of Table 1 over (the default limit is 0)
    spec = table1_spec("t1", "mbf-mslf", MULTI3)
    with pytest.raises(PrivacyCheckFailed) as err:
        anonymize(spec, t1)
    assert "suppress" in str(err.value)
    assert published_state(t1) == [None, None]
    assert t1.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchone()[0] == 0
    # with a previous version published, a failing release leaves both views as they were
    anonymize(table1_spec("t1", "mmdcf-mslf", LSL), t1)
    before = published_state(t1)
    with pytest.raises(PrivacyCheckFailed):
        anonymize(spec, t1)
    assert published_state(t1) == before
    assert t1.execute("SELECT max(version), count(*) FROM _anon_releases._audit").fetchone() == (1, 1)
    # within the limit, the same spec publishes and the suppressed record is counted (other
    # groups of the same people than v1's: read with v1 they disclose, so only independent)
    r = anonymize(dict(spec, suppression_limit=0.2, history="independent"), t1)
    assert (r.version, r.rows_out, r.suppressed) == (2, 8, 1)
    assert r.utility["suppression_ratio"] == pytest.approx(1 / 9)


def test_rerun_publishes_nothing_new_and_versions_move_both_views(t1):
    spec = table1_spec("t1", "mbf", LSL)
    first = anonymize(spec, t1)
    v1 = published_state(t1)
    assert first.version == 1 and all(v1)
    again = anonymize(spec, t1)
    assert again.unchanged and again.version == 1
    assert published_state(t1) == v1
    assert t1.execute("SELECT count(*) FROM _anon_releases._audit").fetchone()[0] == 1
    # a changed spec: version 2, and both views now select from the v2 snapshots
    second = anonymize(dict(table1_spec("t1", "mmdcf-mslf", LSL), history="independent"), t1)
    assert second.version == 2 and not second.unchanged
    v2 = published_state(t1)
    assert "t1__v2" in v2[0][1] and "t1__v2__sensitive" in v2[1][1]
    assert "t1__v1" in v1[0][1] and "t1__v1__sensitive" in v1[1][1]
    assert table1_groups(t1, "published.t1") == EXPECTED_GROUPS["mmdcf-mslf"]
    # the old snapshots stay, each pair consistent with itself
    old = t1.execute("SELECT count(DISTINCT group_id) FROM _anon_releases.t1__v1").fetchone()[0]
    old_sens = t1.execute("SELECT count(DISTINCT group_id) FROM _anon_releases.t1__v1__sensitive").fetchone()[0]
    assert old == old_sens == 3
    # a changed source is a new version too: without a person key, the cross-version gate
    # (issue 36) refuses under the default history (invariant) the groups that, read with
    # v2's through a shared member, give the joiner's values away; independent publishes
    t1.execute("INSERT INTO t1 VALUES (40000, 'Zoe', 33, 'F', 'White', 12000, 'Anne', 'Flu')")
    with pytest.raises(PrivacyCheckFailed, match="across versions"):
        anonymize(table1_spec("t1", "mmdcf-mslf", LSL), t1)
    assert published_state(t1) == v2
    third = anonymize(dict(table1_spec("t1", "mmdcf-mslf", LSL), history="independent"), t1)
    assert third.version == 3 and third.rows_in == 10
    assert third.rows_out + third.suppressed == 10


def test_rows_with_null_sensitive_values(t1):
    t1.execute("INSERT INTO t1 VALUES (1, 'Nul', 30, 'F', 'White', 10000, NULL, 'Flu'), "
               "(2, 'Nul2', 31, 'F', 'White', 10001, 'Bob', NULL)")
    with pytest.raises(DataError):
        anonymize(table1_spec("t1", "mbf", LSL), t1)
    assert published_state(t1) == [None, None]
    r = anonymize(dict(table1_spec("t1", "mbf", LSL), nulls="suppress", suppression_limit=0.3), t1)
    assert (r.rows_in, r.rows_out, r.suppressed) == (11, 9, 2)
    assert r.utility["suppression_ratio"] == pytest.approx(2 / 11)
    assert table1_groups(t1, r.view) == EXPECTED_GROUPS["mbf"]
