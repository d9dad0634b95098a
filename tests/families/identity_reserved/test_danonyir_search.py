"""DAnonyIR's pruned search (danonyir/search.py) finds what the plain scan of D and D* finds
(Algorithm 1 lines 7-8), step for step: the releases are the same, row for row."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer.datasets.patients import patients, patients_spec
from anonymizer.families.identity_reserved.danonyir import search
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.release.run import run_release
from anonymizer.reproduce.p004_identity_reserved.worked_example import load_table2, table2_spec
from anonymizer.spec.parse import load_spec
from tests.families.identity_reserved.test_danonyir import (EAB, EL3, MODELS, TABLE4, _grow, _state, paper_seed,
                                                            published, random_release, tables)


DEFAULT = search.CANDIDATES


def _release(con, spec, k, monkeypatch, view):
    monkeypatch.setattr(search, "CANDIDATES", k)
    result = run_release(load_spec(spec), con, force=True)
    return con.execute(f"SELECT * FROM published.{view} ORDER BY ALL").fetchall(), result.algorithm


@pytest.mark.slow
@pytest.mark.parametrize("model", [EL3, EAB], ids=["EIR 3-diversity", "EIR (0.4, 0.6)"])
@pytest.mark.parametrize("k", [1, 2, 128])
def test_running_example_is_table4_with_any_candidates(con, monkeypatch, model, k):
    """Section 4.3 with 1, 2 or 128 candidates: Table 4, as the plain scan publishes it."""
    load_table2(con)
    spec = table2_spec(model, seed=paper_seed(con))
    rows, plain = _release(con, spec, 0, monkeypatch, "table2")
    assert published(con) == TABLE4
    assert plain["plain"] == plain["steps"] and plain["scans"] == 0
    again, pruned = _release(con, spec, k, monkeypatch, "table2")
    assert again == rows and published(con) == TABLE4
    assert pruned["steps"] == plain["steps"] and pruned["merges"] == plain["merges"]
    if k == 128:   # everyone is a candidate: the first scan of each class certifies every step
        assert pruned["plain"] == 0 and pruned["rescans"] == 0 and pruned["scans"] == 2


GENERATED = [{"type": "eir-l-diversity", "l": 4}, {"type": "ir-kl-anonymity", "k": 3, "l": 3},
             {"type": "eir-alpha-beta-anonymity", "alpha": 0.4, "beta": 0.5}]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("model", GENERATED, ids=lambda m: m["type"])
def test_generated_patients_same_release_pruned_or_plain(monkeypatch, seed, model):
    """Section 5's table shape (300 patients, 6 QIs, 3 numeric): the pruned search with 4
    candidates (bounds often fail: rescans and plain steps) and with the default publishes the
    plain scan's release, row for row, and scans D far less often than once per step."""
    con = duckdb.connect()
    patients(con, "p", individuals=300, seed=seed)
    spec = patients_spec("p", qis=6, model=model, algorithm={"name": "danonyir", "seed": seed},
                         suppression_limit=1.0, release="g", view="g")
    rows, plain = _release(con, spec, 0, monkeypatch, "g")
    assert plain["scans"] == 0 and plain["plain"] == plain["steps"] > 100
    runs = {}
    for k in (4, DEFAULT):
        again, runs[k] = _release(con, spec, k, monkeypatch, "g")
        assert again == rows
        assert {x: runs[k][x] for x in ("steps", "merges", "residual", "joined")} == \
               {x: plain[x] for x in ("steps", "merges", "residual", "joined")}
    # 4 candidates: the fallbacks run; the default: one scan per class drawn, hardly a rescan
    assert runs[4]["rescans"] + runs[4]["plain"] > 0
    assert runs[DEFAULT]["rescans"] + runs[DEFAULT]["plain"] <= plain["steps"] / 20


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables(), model=MODELS, seed=st.integers(0, 5), k=st.integers(1, 3))
def test_random_tables_same_release_pruned_or_plain(con, monkeypatch, rows, model, seed, k):
    """Random multi-record tables (ties in distance are common: few distinct values), any model,
    1 to 3 candidates: the same release as the plain scan, or the same refusal."""
    spec = random_release(con, rows, model, seed)
    outcomes = []
    for candidates in (0, k):
        try:
            outcomes.append(_release(con, spec, candidates, monkeypatch, "r")[0])
        except Exception as exc:   # the same refusal (e.g. everyone suppressed), pruned or not
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1]


def _row(con, sql, params=None):
    cur = con.execute(sql, params)
    return dict(zip([d[0] for d in cur.description], cur.fetchone()))


def test_python_distances_are_the_statements(con):
    """The candidates' distances in Python are the nearest statement's, to the last bit
    (Eq. 17 for Q = {6}: individual 7 at 0.833, ...; Eq. 18 for Q = {3} and the class
    {4, 6, 7}: 8.778, section 4.3)."""
    load_table2(con)
    engine, t = _state(con, 0)
    try:
        q = _grow(con, t, [6])
        for pid in (7, 1, 2, 3, 4, 5):
            con.execute(f"CREATE OR REPLACE TABLE {t.rest} AS SELECT * FROM {t.people} WHERE pid = $p", {"p": pid})
            sql, _ = t.nearest(q)
            row = _row(con, f"SELECT * FROM {t.people} WHERE pid = $p", {"p": pid})
            d, got = search.People.of([row], q.element).nearest(q, q.element.span(), [])
            assert d == sql["d"] and got["pid"] == pid
        assert round(d, 3) == 1.833
        t.store(1, _grow(con, t, [6, 7, 4]))
        q = _grow(con, t, [3])
        _, c = t.nearest(q)
        row = _row(con, f"SELECT * FROM {t.classes}")
        assert search.class_distance(q.element, q.element.span(), q.nrec, row) == c["d"]
        assert round(c["d"], 3) == 8.778
    finally:
        engine.close_work()


def test_equal_class_distances_go_to_the_smaller_class_id(con):
    """Two classes alike to the last bit tie in Eq. (18): the statement's line 8 takes the
    smaller class id, and so do the candidates; distances apart by less than the margin (not
    equal) are not certified (float rounding could order them either way)."""
    load_table2(con)
    engine, t = _state(con, 0)
    try:
        t.store(7, _grow(con, t, [6, 7, 4]))
        t.store(3, _grow(con, t, [6, 7, 4]))
        q = _grow(con, t, [3])
        con.execute(f"CREATE TABLE {t.rest} AS SELECT * FROM {t.people} WHERE pid = 5")
        _, c = t.nearest(q)
        rows = [_row(con, f"SELECT * FROM {t.classes} WHERE cid = {cid}") for cid in (7, 3)]
        sq = q.element.span()
        d, got = search.Classes.of(rows, q.element).nearest(q.element, sq, q.nrec)
        assert (got["cid"], d) == (c["cid"], c["d"]) == (3, c["d"])
        rows[0]["sn"] -= 1e-12            # class 7 now nearer, but within the margin
        assert search.Classes.of(rows, q.element).nearest(q.element, sq, q.nrec) is None
    finally:
        engine.close_work()


def test_a_step_binds_no_list_per_numeric_value(con):
    """A numeric QI's increments (Eq. 11) are computed in SQL from the value: a step binds a
    list per categorical QI only (Postcode: 7 codes, Gender: 2), whatever the numeric domain."""
    load_table2(con)
    engine, t = _state(con, 0)
    try:
        q = _grow(con, t, [6])
        lists = {k: len(v) for k, v in q.params().items() if isinstance(v, list)}
        numeric = [a.i for a in t.attrs if a.numeric]
        assert len(numeric) == 1 and f"inc{numeric[0]}" not in lists
        assert sorted(lists.values()) == [2, 7]
        assert isinstance(q.element, Element)
    finally:
        engine.close_work()


@pytest.mark.slow
def test_a_merged_class_brings_the_members_its_tables_hold(monkeypatch):
    """Line 12 takes a merged class's members (Id_num, |R(p)|, S(p), by Id_num) from Python
    (:attr:`Tables.kept`: Q's members when it was stored), not from D*'s tables, and its rows
    leave those tables at the next statement that reads them: at every merge of a run with
    many, the rows are the ones the tables hold (as class_members.sql.j2 read them before)."""
    from anonymizer.families.identity_reserved.danonyir.state import Tables
    con = duckdb.connect()
    patients(con, "p", individuals=300, seed=2)
    spec = patients_spec("p", qis=6, model={"type": "eir-l-diversity", "l": 4},
                         algorithm={"name": "danonyir", "seed": 2}, suppression_limit=1.0, release="g", view="g")
    merges = []
    unstore = Tables.unstore

    def checked(self, cid):
        self.sync()   # the class and every class merged before reach the tables
        found = self.engine.con.execute(
            f"SELECT p.pid, p.nrec, p.sens FROM {self.people} AS p "
            f"WHERE p.pid IN (SELECT pid FROM {self.members} WHERE cid = $cid) ORDER BY p.pid", {"cid": cid}).fetchall()
        got = unstore(self, cid)
        assert got == [(pid, nrec, list(sens)) for pid, nrec, sens in found]
        merges.append(cid)
        return got

    monkeypatch.setattr(Tables, "unstore", checked)
    _, run = _release(con, spec, DEFAULT, monkeypatch, "g")
    assert len(merges) == run["merges"] > 10
