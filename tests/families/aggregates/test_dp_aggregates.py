"""dp-aggregates: counts, sums and means by dimensions, each person's contribution bounded in
SQL, noise on the integers, public or privately selected keys, spending from the ledger; its
noise tested on neighbouring counts (and caught when the scale is halved)."""

from __future__ import annotations

import json
from fractions import Fraction

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.dp.audit import WITHHELD
from anonymizer.errors import BudgetExhausted, SpecError
from anonymizer.families.aggregates.cells import Quantity, with_noise
from anonymizer.spec.parse import load_spec
from tests.dp.privacy_loss import loss_lower_bound


def _table(con, rows: int = 60_000, people: int = 20_000):
    con.execute(f"""CREATE OR REPLACE TABLE visits AS
        SELECT i % {people} AS pid, ['F', 'M'][1 + (i * 7) % 2] AS sex,
               ['north', 'south', 'east', 'west'][1 + (i % {people}) % 4] AS region,
               (20 + (i * 13) % 60)::DOUBLE AS hours
        FROM range({rows}) t(i)""")


def _spec(**algorithm) -> dict:
    return {"release": "visits_dp", "source": {"table": "visits"}, "default_role": "identifier",
            "columns": {"pid": "individual", "sex": "quasi", "region": "quasi", "hours": {"role": "sensitive",
                                                                                          "type": "numeric"}},
            "algorithm": {"name": "dp-aggregates", "epsilon": 1.0, "delta": 1e-6,
                          "measures": ["count", {"mean": "hours", "bounds": [0, 100]}], **algorithm},
            "budget": {"epsilon": 10, "delta": 1e-4}, "output": {"view": "visits_dp"}}


def test_cells_publish_with_bounded_contributions_and_an_audit_of_parameters_only(con):
    _table(con)
    r = anonymize(_spec(groups_per_person=2, rows_per_group=3), con)
    cells = con.execute("SELECT sex, region, count, hours_mean FROM published.visits_dp ORDER BY ALL").fetchall()
    assert [(s, g) for s, g, *_ in cells] == [("F", "east"), ("F", "north"), ("M", "south"), ("M", "west")]
    for *_, count, mean in cells:   # 5,000 people x 3 rows a cell; noise of scale 18 rows, 18 * 100 / 1 in sums
        assert abs(count - 15_000) < 400 and 40 < mean < 60
    assert [c["holds"] for c in r.models] == [True, True, True]
    fingerprint, rows_in, parameters = con.execute("SELECT source_fingerprint, rows_in, parameters FROM "
                                                   "_anon_releases._audit").fetchone()
    notes = json.loads(parameters)["chosen"]["dp_aggregates"]
    assert (fingerprint, rows_in, notes["threshold"], notes["rows_scale"]) == (WITHHELD, None, 85, 18.0)


def test_a_person_with_many_rows_counts_at_most_rows_per_group(con):
    """One person holds 5,000 rows of a cell: with rows_per_group 2 the cell's true count of
    rows is 2 per person, and its published count is near it (noise scale 3 rows)."""
    con.execute("""CREATE TABLE visits AS
        SELECT CASE WHEN i < 5000 THEN 0 ELSE i END AS pid, 'F' AS sex, 'north' AS region, 1.0::DOUBLE AS hours
        FROM range(6000) t(i)""")
    anonymize(_spec(rows_per_group=2, keys={"sex": ["F"], "region": ["north"]}), con)
    (count,) = con.execute("SELECT count FROM published.visits_dp").fetchone()
    assert abs(count - (1000 + 2)) < 80


def test_public_keys_publish_every_declared_cell_and_nothing_else(con):
    _table(con)
    keys = {"sex": ["F", "M", "X"], "region": ["north", "south", "east", "west"]}
    anonymize(_spec(keys=keys), con)
    got = con.execute("SELECT sex, region, count FROM published.visits_dp ORDER BY ALL").fetchall()
    assert [(s, g) for s, g, _ in got] == sorted((s, g) for s in keys["sex"] for g in keys["region"])
    assert all(n < 100 for s, g, n in got if s == "X")   # empty cells: noise around 0 (scale 2), floored at 0


def test_a_cell_of_one_person_is_not_published_under_private_keys(con):
    _table(con)
    con.execute("INSERT INTO visits VALUES (999999, 'X', 'north', 50.0)")
    for _ in range(3):
        anonymize(_spec(), con)
        assert con.execute("SELECT count(*) FROM published.visits_dp WHERE sex = 'X'").fetchone()[0] == 0


def test_two_runs_never_draw_the_same_noise(con):
    _table(con)
    seen = []
    for _ in range(2):
        anonymize(_spec(noise="gaussian"), con)
        seen.append(con.execute("SELECT count, hours_mean FROM published.visits_dp ORDER BY sex, region").fetchall())
    assert seen[0] != seen[1]


def test_the_ledger_refuses_the_run_that_would_overspend(con):
    _table(con, rows=2000, people=1000)
    spec = dict(_spec(keys={"sex": ["F", "M"], "region": ["north", "south", "east", "west"]}),
                budget={"epsilon": 2.5, "delta": 1e-4})
    anonymize(spec, con)
    anonymize(spec, con)
    with pytest.raises(BudgetExhausted):
        anonymize(spec, con)


def _count_loss(scale_factor: float, n: int = 40_000) -> float:
    """The privacy loss bound of the family's count noise on neighbouring counts 0 and 1 (one
    person of sensitivity 1), from ``with_noise``; ``scale_factor`` 0.5 halves the noise."""
    q = Quantity("rows", Fraction(1), Fraction(1))
    epsilon = Fraction(1) / Fraction(scale_factor)     # the scale 1/epsilon times scale_factor
    on_d = sum(v >= 1 for v in with_noise([1] * n, q, epsilon, 0.0, False)[0])
    on_d_prime = sum(v >= 1 for v in with_noise([0] * n, q, epsilon, 0.0, False)[0])
    return loss_lower_bound(on_d, n, on_d_prime, n)


def test_count_noise_stays_within_epsilon():
    assert _count_loss(1.0) <= 1.0


def test_the_test_catches_a_halved_noise_scale():
    assert _count_loss(0.5) > 1.0


@pytest.mark.parametrize(("change", "field"), [
    ({"measures": [{"mean": "hours"}]}, "algorithm.measures[0].bounds"),
    ({"measures": [{"mean": "sex", "bounds": [0, 1]}]}, "algorithm.measures[0]"),
    ({"keys": {"sex": ["F"]}}, "algorithm.keys"),
    ({"delta": 0}, "algorithm.delta"),
    ({"seed": 3}, "algorithm.seed"),
])
def test_spec_rules(change, field):
    with pytest.raises(SpecError) as err:
        load_spec(_spec(**change))
    assert str(err.value).startswith(field)


def test_public_keys_with_laplace_noise_spend_no_delta():
    spec = load_spec(_spec(keys={"sex": ["F", "M"], "region": ["north"]}))
    assert spec.budget.spends == (1.0, 0.0)
    assert load_spec(_spec()).budget.spends == (1.0, 1e-6)


def test_the_audit_keeps_no_value_of_the_data(con):
    """A person's own extreme value (98.5 hours) appears nowhere in the audit: the checks record
    the declared bounds, not what the rows hold."""
    _table(con)
    con.execute("INSERT INTO visits VALUES (999999, 'F', 'north', 98.5)")
    anonymize(_spec(), con)
    row = con.execute("SELECT figures::VARCHAR || parameters::VARCHAR FROM _anon_releases._audit").fetchone()[0]
    assert "98.5" not in row and "98.49" not in row and "[0, 100]" in row.replace(".0", "")


def test_a_measured_column_must_be_declared_numeric():
    spec = _spec()
    spec["columns"] = {**spec["columns"], "hours": "sensitive"}
    with pytest.raises(SpecError, match="type 'numeric'"):
        load_spec(spec)


def test_public_keys_of_another_type_are_the_users_error(con):
    _table(con)
    con.execute("ALTER TABLE visits ADD COLUMN grp INTEGER DEFAULT 1")
    spec = _spec(keys={"sex": ["F", "M"], "grp": ["a", "b"]})
    spec["columns"] = {**{k: v for k, v in spec["columns"].items() if k != "region"}, "grp": "quasi"}
    with pytest.raises(SpecError, match="algorithm.keys.grp"):
        anonymize(spec, con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0


def test_an_empty_table_runs_the_mechanism_declared_cells_and_all(con):
    """Refusing an empty table would tell the table from one with one person in it: the
    release runs. With declared keys every cell publishes, noisy; with private keys no cell
    passes the threshold (an empty version)."""
    _table(con)
    con.execute("DELETE FROM visits")
    anonymize(_spec(keys={"sex": ["F", "M"], "region": ["north"]}), con)
    assert [(s, g) for s, g in con.execute("SELECT sex, region FROM published.visits_dp ORDER BY ALL").fetchall()] == [
        ("F", "north"), ("M", "north")]
    assert anonymize(_spec(), con).version == 2
    assert con.execute("SELECT count(*) FROM published.visits_dp").fetchone()[0] == 0


@pytest.mark.parametrize("value, counted", [("nan", 100.0), ("inf", 100.0), ("-inf", 0.0)])
def test_a_nan_or_infinity_is_clamped_never_a_reason_to_stop(con, value, counted):
    """Whether a DP release runs must not tell a fact of one row: a non-finite measured value
    counts as a bound (NaN as the upper), as any value beyond the bounds does."""
    con.execute("""CREATE TABLE visits AS SELECT i AS pid, 'F' AS sex, 'north' AS region, 50.0::DOUBLE AS hours
                   FROM range(1, 400) t(i)""")
    con.execute(f"INSERT INTO visits VALUES (0, 'F', 'north', '{value}'::DOUBLE)")
    spec = dict(_spec(keys={"sex": ["F"], "region": ["north"]}, epsilon=500.0), budget={"epsilon": 500, "delta": 1e-4})
    r = anonymize(spec, con)
    assert r.version == 1 and all(m["holds"] for m in r.models)
    (mean,) = con.execute("SELECT hours_mean FROM published.visits_dp").fetchone()
    assert abs(mean - (399 * 50.0 + counted) / 400) < 0.02   # noise of scale 0.004 rows and 0.4 in sums
