"""DP queries for analysts (anonymizer.dp.queries, the macros anon_dp_*): contributions bounded in
SQL as the dp-aggregates release bounds them, the noise a bound parameter drawn in Python at the
release's scales, the budget spent before any draw, and refused once spent."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

from anonymizer import dp_count, dp_mean, dp_sum
from anonymizer.cli import main
from anonymizer.dp import queries
from anonymizer.dp.ledger import open_account
from anonymizer.engine.session import Engine
from anonymizer.errors import BudgetExhausted, SpecError
from anonymizer.macros import install
from tests.dp.privacy_loss import loss_lower_bound

REGIONS = {"region": ["r0", "r1", "r2", "r3", "r4"]}


def _open(con, account: str = "ann", epsilon: float = 1000.0, delta: float = 1e-3) -> None:
    open_account(Engine(con), None, "_anon_releases", account, (epsilon, delta), "the tests")


@pytest.fixture
def visits():
    """400 patients in 4 regions, 3 visits each, and one patient with 500 visits in 6 regions."""
    con = duckdb.connect()
    con.execute("""CREATE TABLE visits AS
        SELECT i % 400 AS patient, 'r' || (i % 400) % 4 AS region, (i * 7 % 150)::DOUBLE AS minutes
        FROM range(1200) t(i)
        UNION ALL
        SELECT 9999, 'r' || (i % 6), 1000.0 FROM range(500) t(i)""")
    con.execute("CREATE TABLE regions AS SELECT 'r' || i AS region FROM range(5) t(i)")
    install(con, temporary=True)
    _open(con)
    return con


def _cells(con, **kw) -> pd.DataFrame:
    args = ", ".join(f"{k} := {v!r}" for k, v in kw.items())
    return con.execute(f"SELECT * FROM anon_dp_cells('visits', ['region'], 'patient'{', ' + args if args else ''})").df()


def test_each_person_adds_at_most_g_cells_of_r_rows(visits):
    free = _cells(visits, groups_per_person=10, rows_per_group=1000)
    bounded = _cells(visits, groups_per_person=2, rows_per_group=3)
    # the heavy patient: 500 rows over 6 regions unbounded; 2 cells of at most 3 rows bounded
    assert free["rows"].sum() == 1700
    assert bounded["rows"].sum() == 1200 + 6 and bounded["persons"].sum() == 400 + 2
    ones = _cells(visits)                                  # the default: one cell, one row a person
    assert ones["rows"].sum() == ones["persons"].sum() == 401


def test_values_are_clamped_to_the_bounds_on_the_grid(visits):
    c = _cells(visits, value="minutes", lo=0.0, hi=100.0, groups_per_person=1, rows_per_group=3)
    unit = 100 / 2 ** 20
    want = visits.execute("""SELECT sum(least(minutes, 100)) FROM visits WHERE patient < 400""").fetchone()[0]
    heavy = c["units"].sum() * unit - want                 # the heavy patient: 3 rows of 1000 clamped to 100
    assert heavy == pytest.approx(300, abs=1e-3)


def test_zero_noise_gives_the_bounded_truth_and_every_declared_cell(visits):
    rows = visits.execute("SELECT * FROM anon_dp_count('visits', ['region'], 'patient', [0, 0, 0, 0, 0], "
                          "keys := 'regions', rows_per_group := 3) ORDER BY region").fetchall()
    # 100 patients of 3 visits a region, and the heavy patient's one cell (of 3 rows) in one of r0..r4;
    # r5 is not declared, so not published; r4 is declared, and published however few it holds
    assert [r for r, _ in rows] == ["r0", "r1", "r2", "r3", "r4"]
    assert sum(n for _, n in rows) in (1200, 1203) and all(n - 300 in (0, 3) for _, n in rows[:4])
    means = visits.execute("SELECT region, mean FROM anon_dp_mean('visits', ['region'], 'patient', 'minutes', 0, "
                           "150, [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], keys := 'regions', rows_per_group := 3) "
                           "ORDER BY region").df()
    truth = visits.execute("SELECT region, avg(minutes) AS m FROM visits WHERE patient < 400 GROUP BY region "
                           "ORDER BY region").df()
    assert list(means["mean"][:4]) == pytest.approx(list(truth["m"]), abs=1e-3)


@pytest.mark.parametrize(("sql", "message"), [
    ("anon_dp_count('visits', ['region'], 'patient', [0, 0])", "selection_noise, threshold"),
    ("anon_dp_count('visits', ['region'], 'patient', [0], keys := 'regions')", "noise: a list shorter"),
    ("anon_dp_count('visits', ['region'], 'patient', [0, 0, 0, 0, 0], keys := 'regions', groups_per_person := 0)",
     "groups_per_person"),
    ("anon_dp_sum('visits', ['region'], 'patient', 'minutes', 5, 1, [0, 0, 0, 0, 0], keys := 'regions')", "lo, hi"),
])
def test_the_macros_refuse_what_would_not_be_private(visits, sql, message):
    with pytest.raises(duckdb.Error, match=message):
        visits.execute(f"SELECT * FROM {sql}").fetchall()


def test_queries_publish_noisy_cells_and_spend_from_the_ledger(visits):
    counts = dp_count(visits, "visits", ["region"], "patient", epsilon=1.0, account="ann", keys=REGIONS)
    sums = dp_sum(visits, "visits", ["region"], "patient", "minutes", (0, 150), epsilon=1.0, account="ann",
                  keys=REGIONS)
    means = dp_mean(visits, "visits", ["region"], "patient", "minutes", (0, 150), epsilon=2.0, account="ann",
                    delta=1e-6, rows_per_group=3)
    assert list(counts["region"]) == list(sums["region"]) == ["r0", "r1", "r2", "r3", "r4"]
    assert all(abs(c - 100) < 40 for c in counts["count"][:4])       # 100 patients each, scale 1
    assert list(means.columns) == ["region", "count", "mean"] and len(means) <= 6
    events = visits.execute("SELECT event, release, epsilon, delta, reason FROM _anon_releases._budget "
                            "ORDER BY seq").fetchall()
    assert events == [("open", None, 1000.0, 1e-3, "the tests"),
                      ("spend", "anon_dp_count(visits)", 1.0, 0.0, "a query"),
                      ("spend", "anon_dp_sum(visits)", 1.0, 0.0, "a query"),
                      ("spend", "anon_dp_mean(visits)", 2.0, 1e-6, "a query")]


def test_two_queries_never_draw_the_same_noise(visits):
    visits.execute("CREATE TABLE many AS SELECT i AS patient, i % 50 AS cell FROM range(5000) t(i)")
    a, b = (dp_count(visits, "many", ["cell"], "patient", epsilon=1.0, account="ann",
                     keys={"cell": list(range(50))})["count"] for _ in range(2))
    assert len(a) == 50 and list(a) != list(b)       # a column named cell, too (the review's finding 7)


def test_a_cell_one_person_makes_is_never_published(visits):
    """Private selection: 'r4' and 'r5' hold only the heavy patient (delta 1e-9: the chance
    of seeing either in 30 queries is below 1e-7)."""
    seen = set()
    for _ in range(30):
        seen |= set(dp_count(visits, "visits", ["region"], "patient", epsilon=4.0, delta=1e-9,
                             account="ann", groups_per_person=6)["region"])
    assert {"r0", "r1", "r2", "r3"} <= seen and not seen & {"r4", "r5"}


def _count_loss(halve: bool, n: int = 40_000) -> float:
    """The privacy loss bound of a query's count noise (G = 2, R = 3: neighbouring counts 0 and
    6, one person's most), from the draws the query binds; ``halve`` halves them."""
    q = queries.query("count", "t", ["x"], "p", None, None, 1.0, {"keys": {"x": [1]}, "groups_per_person": 2,
                                                                    "rows_per_group": 3})
    d, d_prime = queries.noisy(q, n)["count"], queries.noisy(q, n)["count"]
    if halve:
        d, d_prime = [v // 2 for v in d], [v // 2 for v in d_prime]
    return loss_lower_bound(sum(6 + v >= 6 for v in d), n, sum(v >= 6 for v in d_prime), n)


def test_query_noise_keeps_the_privacy_loss_within_epsilon():
    assert _count_loss(False) <= 1.0


def test_the_loss_test_catches_a_halved_noise_scale():
    assert _count_loss(True) > 1.0


def test_a_query_the_account_cannot_pay_is_refused_before_any_draw(visits):
    _open(visits, "bob", 1.5, 1e-6)
    dp_count(visits, "visits", ["region"], "patient", epsilon=1.0, account="bob", keys=REGIONS)
    with pytest.raises(BudgetExhausted, match="only epsilon 0.5"):
        dp_count(visits, "visits", ["region"], "patient", epsilon=1.0, account="bob", keys=REGIONS)
    assert visits.execute("SELECT count(*) FROM _anon_releases._budget WHERE event = 'spend' AND account = 'bob'"
                          ).fetchone()[0] == 1


def test_a_query_spends_only_from_an_open_account(visits):
    """The review's finding 4: a query that named new totals, another recipient or another
    schema opened a fresh account; now an account opens only by `anonymizer budget open`."""
    for account, schema in (("carl", "_anon_releases"), ("ann", "fresh")):
        with pytest.raises(SpecError, match="is not open"):
            dp_count(visits, "visits", ["region"], "patient", epsilon=1.0, account=account, keys=REGIONS,
                     schema=schema)
    with pytest.raises(SpecError, match="has a budget already"):
        _open(visits)


@pytest.mark.parametrize(("call", "field"), [
    (lambda c: dp_count(c, "visits", ["regionx"], "patient", epsilon=1, account="ann", keys={"regionx": ["r0"]}),
     "by, person"),
    (lambda c: dp_count(c, "nope", ["region"], "patient", epsilon=1, account="ann", keys=REGIONS), "table"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1, account="ann", keys="regions"), "keys"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1, account="ann", keys={"region": ["r0", "r0"]}),
     "keys.region"),
    (lambda c: dp_count(c, "visits", ["patient"], "patient", epsilon=1, account="ann", keys={"patient": ["x"]}),
     "keys.patient: must be values of the column's type"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1, account="ann"), "delta"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=0, account="ann", keys=REGIONS), "epsilon"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1e-9, account="ann", keys=REGIONS), "epsilon"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1, delta=0.5, account="ann"), "delta"),
    (lambda c: dp_sum(c, "visits", ["region"], "patient", "minutes", (1, 1), epsilon=1, account="ann",
                      keys=REGIONS), "bounds"),
    (lambda c: dp_sum(c, "visits", ["region"], "patient", "minutes", (0, 5e-324), epsilon=1, account="ann",
                      keys=REGIONS), "bounds"),
    (lambda c: dp_sum(c, "visits", ["region"], "patient", "minutes", (0, 10 ** 400), epsilon=1, account="ann",
                      keys=REGIONS), "bounds"),
    (lambda c: dp_count(c, "visits", ["region"], "patient", epsilon=1, account="ann", keys=REGIONS,
                        rows_per_group=0), "rows_per_group"),
    (lambda c: dp_count(c, "visits", ["count"], "patient", epsilon=1, account="ann", keys={"count": [1]}), "by"),
    (lambda c: dp_mean(c, "visits", ["patient"], "patient", "region", (0, 1), epsilon=1, account="ann", delta=1e-6),
     "value: must be a numeric column"),
])
def test_bad_arguments_are_the_users_errors_and_spend_nothing(visits, call, field):
    with pytest.raises(SpecError, match=field):
        call(visits)
    assert visits.execute("SELECT count(*) FROM _anon_releases._budget WHERE event = 'spend'").fetchone()[0] == 0


def test_rows_of_no_person_and_null_values_are_left_out(visits):
    """The review's finding 1: rows whose person is NULL were bounded as one person, so one more
    such row moved two rows between cells; they are left out now (and NULL values of a sum)."""
    con = duckdb.connect()
    install(con, temporary=True)
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ('b', NULL, 7.0), ('c', NULL, 3.0), ('c', 1, NULL), "
                "('c', 2, 4.0)) AS v(cell, p, x)")
    con.execute("ALTER TABLE t ALTER x TYPE DOUBLE")
    before = con.execute("SELECT rows, units FROM anon_dp_cells('t', ['cell'], 'p', value := 'x', lo := 0, hi := 10) "
                         "ORDER BY i").fetchall()
    con.execute("INSERT INTO t VALUES ('a', NULL, 10.0)")
    after = con.execute("SELECT rows, units FROM anon_dp_cells('t', ['cell'], 'p', value := 'x', lo := 0, hi := 10) "
                        "ORDER BY i").fetchall()
    assert before == [(0, 0), (1, round(4 / 10 * 2 ** 20))] and after == [(0, 0), (0, 0), (1, round(4 / 10 * 2 ** 20))]


def test_declared_values_are_cast_to_the_columns_types():
    """The review's finding 8: declared cells of another type than the data's matched nothing
    (DOUBLE 1.0 against INTEGER 1); they are cast first. And -0.0 and 0.0 are one cell, for the
    noise lists and the macro alike (finding 3)."""
    con = duckdb.connect()
    _open(con)
    con.execute("CREATE TABLE d AS SELECT i AS p, (i % 2)::DOUBLE * (CASE WHEN i = 3 THEN -0.0 ELSE 1 END) AS code "
                "FROM range(4000) t(i)")
    out = dp_count(con, "d", ["code"], "p", epsilon=5.0, account="ann", keys={"code": [0, 1]})
    assert list(out["code"]) == [0.0, 1.0] and all(abs(c - 2000) < 30 for c in out["count"])
    assert len(dp_count(con, "d", ["code"], "p", epsilon=5.0, delta=1e-6, account="ann")) == 2


def test_the_cli_opens_an_account_prints_the_cells_and_exits_1_once_spent(tmp_path):
    db = str(tmp_path / "w.duckdb")
    con = duckdb.connect(db)
    con.execute("CREATE TABLE visits AS SELECT i % 3000 AS patient, 'r' || i % 3 AS region FROM range(9000) t(i)")
    con.close()
    opened = CliRunner().invoke(main, ["budget", "open", "ann", "--epsilon", "1.5", "--delta", "1e-5", "--reason",
                                       "the tests", "--db", db])
    assert opened.exit_code == 0, opened.output
    args = ["dp", "count", "visits", "--by", "region", "--person", "patient", "--epsilon", "1",
            "--keys", "region=r0,r1,r2,r9", "--account", "ann", "--db", db]
    first = CliRunner().invoke(main, [*args, "--json"])
    assert first.exit_code == 0, first.output
    assert '"region": "r9"' in first.output and '"epsilon": 1.0' in first.output
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 1 and "only epsilon 0.5" in second.output
