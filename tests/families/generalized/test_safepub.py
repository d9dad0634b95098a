"""SafePub (Bild, Kuhn and Prasser, PoPETs 2018) as a release: published, verified and audited
with nothing read from the input beyond epsilon; its sample drawn from a secret; its scores
against an independent pandas computation of ARX's definitions; its spec's rules."""

from __future__ import annotations

import itertools
import json
import math

import duckdb
import pandas as pd
import pytest

from anonymizer.api import anonymize
from anonymizer.dp.audit import WITHHELD
from anonymizer.dp.safepub_parameters import derive, threshold
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.families.generalized import options
from anonymizer.families.generalized.lattice.frequency_set import build_frequency_set
from anonymizer.families.generalized.lattice.safepub import Walk
from anonymizer.plan import prepare
from anonymizer.randomness import ReleaseKey
from anonymizer.row_ids import VIEW_ROWID
from anonymizer.spec.parse import load_spec
from tests.families.generalized.conftest import ADULT

QIS = ["age", "sex", "race", "education"]


def _spec(qis: list[str] = QIS, **algorithm) -> dict:
    columns = {q: {"role": "quasi", "hierarchy": {"csv": str(ADULT / f"adult_hierarchy_{q}.csv")}} for q in qis}
    columns["age"]["type"] = "numeric"
    return {"release": "adult_dp", "source": {"table": "adult"}, "columns": columns, "default_role": "identifier",
            "algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, **algorithm}, "output": {"view": "adult_dp"},
            "budget": {"epsilon": 10.0, "delta": 1e-4}}


@pytest.fixture
def adult():
    con = duckdb.connect()
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true)")
    yield con
    con.close()


def test_a_release_publishes_k_anonymous_rows_and_audits_no_count_of_its_input(adult):
    from pycanon import anonymity

    first = anonymize(_spec(), adult)
    p = derive(0.95, 1e-5)
    assert first.models == [{"model": f"{p.k}-anonymity", "figure": first.models[0]["figure"], "holds": True}]
    frame = adult.execute(f"SELECT {', '.join(f'{q!r}'.replace(chr(39), chr(34)) for q in QIS)} "
                          "FROM published.adult_dp").df().reset_index(drop=True)
    assert len(frame) == first.rows_out and anonymity.k_anonymity(frame, QIS) >= p.k   # pycanon, the oracle
    again = anonymize(_spec(), adult)      # the same spec and source: a new version, a new sample
    assert (first.version, again.version, again.unchanged) == (1, 2, False)
    rows = adult.execute("SELECT version, source_fingerprint, rows_in, suppressed, timings, figures, parameters "
                         "FROM _anon_releases._audit ORDER BY version").fetchall()
    for version, fingerprint, rows_in, suppressed, timings, figures, parameters in rows:
        assert (fingerprint, rows_in, suppressed, json.loads(timings)) == (WITHHELD, None, None, {})
        assert "utility" not in json.loads(figures)
        chosen = json.loads(parameters)["chosen"]["safepub"]
        assert (chosen["k"], chosen["beta"], chosen["epsilon"], chosen["delta"]) == (p.k, p.beta, 1.0, 1e-5)
        assert set(chosen["levels"]) == set(QIS) and json.loads(parameters)["randomness"] == "secret"


def test_two_runs_draw_two_samples(adult):
    """The published rows of two runs of one spec (as a multiset) differ: a fresh secret each run."""
    seen = []
    for _ in range(2):
        anonymize(_spec(), adult)
        seen.append(adult.execute("SELECT * EXCLUDE (eq_class) FROM published.adult_dp ORDER BY ALL").fetchall())
    assert seen[0] != seen[1]


def test_best_selection_warns_that_epsilon_does_not_cover_it(adult):
    result = anonymize(_spec(selection="best", score="loss", steps=20), adult)
    (said,) = [w for w in result.warnings if "selection: best" in w]
    assert "covers the sample and the search's steps, not that choice" in said
    # a score whose sensitivity does not hold leaves the steps unprivate too: epsilon covers the sample only
    (said,) = [w for w in anonymize(_spec(selection="best", score="entropy", steps=20), adult).warnings
               if "selection: best" in w]
    assert "covers the sample only" in said and "steps are not private either" in said


@pytest.mark.parametrize(("change", "field"), [
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "seed": 7}}, "algorithm.seed"),
    ({"models": [{"type": "k-anonymity", "k": 5}]}, "models"),
    ({"suppression_limit": 0.5}, "suppression_limit"),
    ({"history": "invariant"}, "history.guarantee"),
    ({"history": {"guarantee": "independent", "person": "fnlwgt"}}, "history.person"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "search_epsilon": 1.0}}, "algorithm.search_epsilon"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0}}, "algorithm.delta"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1.0}}, "algorithm.delta"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "score": "classification"}}, "algorithm.target"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "target": "salary-class"}}, "algorithm.target"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "score": "classification",
                    "target": "salary-class"}}, "algorithm.target"),          # not a quasi-identifier
    ({"columns": {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"csv": str(ADULT / "adult_hierarchy_age.csv")}},
                  "salary-class": "insensitive"}}, "columns.salary-class"),   # published as it is
    ({"default_role": "insensitive"}, "default_role"),
    ({"default_role": "sensitive"}, "default_role"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "score": "gini"}}, "algorithm.score"),
    ({"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-5, "score": "entropy"}}, "algorithm.score"),
    ({"columns": {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"intervals": [5, 10]}}}},
     "columns.age.hierarchy"),
])
def test_spec_rules(change, field):
    spec = {**_spec(), **change}
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert err.value.field == field or str(err.value).startswith(field)


def test_the_sample_keeps_each_row_with_probability_beta_under_a_fresh_secret():
    """200,000 rows at beta 0.3: the kept count within 6 standard deviations of beta n, and two
    keys' samples overlapping as two independent ones do (beta^2 n)."""
    con = duckdb.connect()
    engine = Engine(con)
    n, beta = 200_000, 0.3
    con.execute(f"CREATE TABLE base AS SELECT range AS __rid FROM range({n})")
    kept = []
    for name in ("a", "b"):
        engine.run("families/generalized/safepub/sample.sql.j2", ReleaseKey.fresh().params(threshold=threshold(beta)),
                   target=name, base="base")
        kept.append(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
    sd = math.sqrt(n * beta * (1 - beta))
    assert all(abs(k - beta * n) < 6 * sd for k in kept)
    both = con.execute("SELECT count(*) FROM a JOIN b USING (__rid)").fetchone()[0]
    assert abs(both - beta * beta * n) < 6 * math.sqrt(n * beta * beta * (1 - beta * beta))


def _hierarchy(q: str) -> pd.DataFrame:
    return pd.read_csv(ADULT / f"adult_hierarchy_{q}.csv", sep=";", header=None, dtype=str)


def _smooth(s: int, k: int) -> int:
    """smooth_loss's rows of a class of ``s`` counted as suppressed (safepub_scores.py), written apart."""
    return s if s < k else max(0, 2 * (k - 1) - s)


@pytest.mark.parametrize("score", ["smooth_loss", "loss", "precision", "discernibility", "aecs", "entropy",
                                   "classification"])
def test_scores_are_arxs_definitions_computed_apart(score):
    """Every score of a few nodes, from the SQL aggregates (scores.sql.j2), against pandas over the
    rows and ARX's formulas (MetricMDNMLoss, MetricMDNMPrecision, MetricSDNMDiscernability,
    MetricSDAECS, MetricMDNUEntropyPrecomputed ``getScore``; smooth_loss: ours, from its
    definition), with no row sampled away."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true) "
                "LIMIT 3000")
    engine = Engine(con)
    classify = score == "classification"   # the target a quasi-identifier, its input values counted
    qis = QIS + ["salary-class"] if classify else QIS
    plan = prepare(engine, load_spec(_spec(qis, score=score, selection="best",
                                           **({"target": "salary-class"} if classify else {}))))
    k = plan.models[0].k
    freq = build_frequency_set(engine, plan)
    walk = Walk(engine, plan, freq, k, options.of(plan))
    heights = freq.heights
    nodes = [tuple(heights), (0, 0, 0, 0), (1, 1, 0, 1), (3, 0, 1, 2), (2, 1, 1, 0)]
    if classify:   # the target generalized (its input values still tell the classes apart) and not
        nodes = [nodes[0]] + [n + (1,) for n in nodes[1:]] + [(2, 1, 1, 0, 0)]
    walk._score(nodes)
    rows = con.execute("SELECT * FROM adult").df()
    n, d = len(rows), len(qis)
    maps = {q: _hierarchy(q) for q in qis}
    for node in nodes:
        gen = pd.DataFrame({q: rows[q].astype(str).map(dict(zip(maps[q][0], maps[q][lv]))) for q, lv in zip(qis, node)})
        sizes = gen.groupby(qis).size()
        kept_sizes = sizes[sizes >= k]
        keep = gen.set_index(qis).index.isin(kept_sizes.index)
        kept, suppressed = int(keep.sum()), n - int(keep.sum())
        cell = pd.Series(0.0, index=gen.index)                   # each row's loss: its cells' shares of the leaves
        for q, lv in zip(qis, node):                            # the file's leaves under each node
            under = maps[q][lv].value_counts() if lv else pd.Series(1, index=maps[q][0])
            cell += (gen[q].map(under.to_dict()).astype(float) - 1) / (len(maps[q]) - 1)
        if score == "smooth_loss":
            per = cell.groupby([gen[q] for q in qis]).agg(["sum", "size"])
            want = -sum(t + (d - t / z) * _smooth(z, k) for t, z in zip(per["sum"], per["size"])) / d
        elif score == "loss":
            want = -(cell[keep].sum() + suppressed * d) / (d * (k - 1))
        elif score == "precision":
            want = -sum(kept * lv / h + suppressed for lv, h in zip(node, heights)) / d / (k - 1)
        elif score == "discernibility":
            want = -(int((kept_sizes ** 2).sum()) + n * suppressed) / (n * (k * k / (k - 1) + 1))
        elif score == "aecs":
            want = len(kept_sizes) + (1 if suppressed else 0)
        elif score == "classification":                         # MetricSDClassification: majority votes / k
            votes = rows[keep].groupby([gen[q][keep] for q in qis])["salary-class"].agg(lambda v: v.value_counts().max())
            want = sum(int(v) for v in votes) / k
        else:
            total = 0
            for q, lv, h in zip(QIS, node, heights):
                total += n * n if lv == h else int((gen[q][keep].value_counts() ** 2).sum()) + n * suppressed
            want = -total / (n * d) / (k * k / (k - 1) + 1)
        assert walk.scores[node] == pytest.approx(want, rel=1e-9), node


def test_a_table_too_small_for_k_is_a_clear_data_error_and_the_run_has_spent():
    """70 rows, k = 59: a sample of about 42 rows (the chance of 59 is below 1e-9) leaves no class
    of k at any node. The mechanism ran (its output is empty), so the run spent its epsilon: a
    retry until a run works costs every try (the review's finding 5)."""
    from anonymizer.errors import DataError
    con = duckdb.connect()
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true) "
                "LIMIT 70")
    for _ in range(2):
        with pytest.raises(DataError, match="every row is suppressed.*has spent"):
            anonymize(_spec(steps=5), con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases' "
                       "AND table_name = '_audit'").fetchone()[0] == 0
    assert con.execute("SELECT event, version, epsilon, reason FROM _anon_releases._budget ORDER BY seq").fetchall() == [
        ("open", None, 10.0, "opened by adult_dp"),
        ("spend", None, 1.0, "run started; no version published"),
        ("spend", None, 1.0, "run started; no version published")]


def test_a_dry_run_and_kept_work_are_refused_they_would_show_the_draws_without_spending():
    from anonymizer.release.run import run_release
    con = duckdb.connect()
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true) "
                "LIMIT 100")
    with pytest.raises(SpecError, match="dry run.*without spending"):
        anonymize(_spec(steps=5), con, publish=False)
    with pytest.raises(SpecError, match="--keep-work.*keeps no work"):
        run_release(load_spec(_spec(steps=5)), con, keep_work=True)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0


@pytest.mark.parametrize(("epsilon", "search"), [(0.11, 0.1), (3.5, 0.1)])
def test_epsilon_outside_the_derived_range_is_refused(epsilon, search):
    with pytest.raises(SpecError, match="between 0.02 and 3"):
        load_spec(_spec(epsilon=epsilon, search_epsilon=search))


def _all_scores(con, spec: dict) -> dict:
    """Every node's score (no sampling: the frequency set of all rows)."""
    engine = Engine(con)
    plan = prepare(engine, load_spec(spec))
    freq = build_frequency_set(engine, plan)
    walk = Walk(engine, plan, freq, plan.models[0].k, options.of(plan))
    nodes = [tuple(n) for n in itertools.product(*(range(h + 1) for h in freq.heights))]
    walk._score(nodes)
    return walk.scores


@pytest.mark.parametrize("score", ["smooth_loss", "loss", "precision", "aecs", "classification"])
def test_one_person_moves_every_private_score_by_at_most_its_sensitivity(score, tmp_path):
    """The review's finding 3, as it found it: a hierarchy A, B -> AB; C -> C; * and 12,000
    rows of A or B, with and without one person of C. A cell loss read from the data's domain
    moved node (1)'s score by 103; read from the file, every node's score moves by at most 1,
    the sensitivity the mechanisms are scaled to."""
    (tmp_path / "x.csv").write_text("A;AB;*\nB;AB;*\nC;C;*\n")
    (tmp_path / "y.csv").write_text("0;*\n1;*\n2;*\n")
    classify = score == "classification"   # its target a quasi-identifier
    columns = {"x": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "x.csv")}},
               "y": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "y.csv")}} if classify else "identifier"}
    spec = {**_spec(score=score, selection="best", **({"target": "y"} if classify else {})), "source": {"table": "t"},
            "columns": columns}
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT ['A', 'B'][1 + i % 2] AS x, i % 3 AS y FROM range(12000) t(i)")
    without = _all_scores(con, spec)
    con.execute("INSERT INTO t VALUES ('C', 1)")
    with_one = _all_scores(con, spec)
    assert sorted(with_one) == sorted(without) == ([(x, y) for x in range(3) for y in range(2)] if classify
                                                   else [(0,), (1,), (2,)])
    assert max(abs(with_one[n] - without[n]) for n in with_one) <= 1 + 1e-9


@pytest.mark.parametrize("extra", [1, 2, 3])
def test_smooth_loss_moves_by_at_most_one_across_every_bend(extra, tmp_path):
    """smooth_loss at every size of a class around its bends (k - 1 and 2 (k - 1)), one row of
    it added at a time (a new class too: size 0 to 1): every node's score moves by at most 1,
    and by nearly 1 where a class of k - 1 rows at the bottom node gets its k-th (a cost that
    fell by ``d`` with no cell loss). The classes sit beside ``extra`` others of 300 rows."""
    (tmp_path / "x.csv").write_text("A;AB;*\nB;AB;*\nC;C;*\n")
    spec = {**_spec(), "source": {"table": "t"}, "columns": {"x": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "x.csv")}}}}
    k = derive(0.95, 1e-5).k
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT ['A', 'B'][1 + i % 2] AS x FROM range({300 * extra}) t(i)")
    before, moved = _all_scores(con, spec), {}
    for size in range(1, 2 * k + 2):
        con.execute("INSERT INTO t VALUES ('C')")
        after = _all_scores(con, spec)
        moved[size] = max(abs(after[n] - before[n]) for n in after)
        before = after
    assert max(moved.values()) <= 1 + 1e-9
    assert moved[k] == pytest.approx(1.0)


def test_the_classification_score_publishes_and_a_target_the_plan_drops_is_refused_before_spending(adult):
    r = anonymize(_spec(QIS + ["salary-class"], score="classification", target="salary-class", steps=20), adult)
    assert r.version == 1 and r.algorithm["safepub"]["score"] == "classification"
    spec = _spec(score="classification", target="salary-class", steps=20)    # salary-class no QI: dropped
    with pytest.raises(SpecError, match="algorithm.target"):
        anonymize({**spec, "release": "adult_dp2", "output": {"view": "adult_dp2"}}, adult)
    spent = adult.execute("SELECT count(*) FROM _anon_releases._budget WHERE event = 'spend'").fetchone()[0]
    assert spent == 1                                     # the first release's; the refused one spent nothing


def test_a_column_published_as_it_is_is_refused_it_would_show_who_was_sampled(adult):
    """The attack the rule stops: one person's value of a column SafePub would publish as it
    is (here a unique salary-class) shows in the output exactly when they were sampled and
    their class kept, a chance near beta with them and 0 without: no epsilon bounds that."""
    spec = {**_spec(steps=5), "default_role": "insensitive"}
    with pytest.raises(SpecError, match="default_role.*quasi-identifiers only"):
        anonymize(spec, adult)
    spec = {**_spec(steps=5), "columns": {**_spec()["columns"], "salary-class": "sensitive"}}
    with pytest.raises(SpecError, match="columns.salary-class.*quasi-identifiers only"):
        anonymize(spec, adult)
    assert adult.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0


def test_nulls_are_suppressed_never_a_reason_to_stop(adult):
    """A run that stopped on a NULL would publish, or not, by a fact of one row: a DP release
    leaves those rows out (nulls: suppress, its only setting), and a table smaller than k
    publishes the mechanism's empty output, having spent, instead of refusing before it."""
    with pytest.raises(SpecError, match="nulls"):
        load_spec({**_spec(), "nulls": "error"})
    adult.execute("UPDATE adult SET age = NULL WHERE rowid < 5")
    assert anonymize(_spec(steps=5), adult).version == 1
    small = duckdb.connect()
    small.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true) "
                  "LIMIT 40")                            # under k = 59: no refusal before the mechanism
    with pytest.raises(Exception, match="every row is suppressed.*has spent"):
        anonymize(_spec(steps=5), small)


def test_a_value_its_hierarchy_file_lacks_is_left_out_never_a_reason_to_stop(adult):
    """Whether a run publishes must not tell whether one row holds a value the hierarchy file
    does not name (or a NaN): such rows are left out, as rows with a NULL are (dp/covered.py).
    When no row is left, the mechanism runs on none and the run has spent."""
    adult.execute("UPDATE adult SET education = 'Narnia' WHERE rowid = 3")
    adult.execute("UPDATE adult SET age = 200 WHERE rowid = 4")
    r = anonymize(_spec(steps=5), adult)
    assert r.version == 1
    assert adult.execute("SELECT count(*) FROM published.adult_dp WHERE education = 'Narnia' OR age = '200'"
                         ).fetchone()[0] == 0
    adult.execute("UPDATE adult SET education = 'Narnia'")
    with pytest.raises(Exception, match='table "adult": safepub.*every row is suppressed.*has spent'):
        anonymize(_spec(steps=5), adult)
    assert [e for e, in adult.execute("SELECT event FROM _anon_releases._budget ORDER BY seq").fetchall()] == [
        "open", "spend", "spend"]


def test_a_hierarchy_file_that_is_no_tree_is_refused_on_the_file_alone(tmp_path):
    """The review's finding: with X under P and under Q, 400 rows of a and c published and one
    more row, of b, made the data's shape check fail (a refusal, before spending, telling of
    one row). A DP release checks the file's own values: refused with or without that row."""
    (tmp_path / "x.csv").write_text("a;X;P\nb;Y;P\nc;X;Q\n")
    spec = {**_spec(steps=5), "source": {"table": "t"},
            "columns": {"x": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "x.csv")}}}}
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT ['a', 'c'][1 + i % 2] AS x FROM range(400) t(i)")
    for _ in range(2):
        with pytest.raises(SpecError, match="columns.x.hierarchy.*'X' at level 1"):
            anonymize(spec, con)
        con.execute("INSERT INTO t VALUES ('b')")
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0


def test_the_audit_and_the_ledger_keep_the_day_not_the_time_the_mechanism_ran(adult):
    """From the spend event (when the mechanism started) to the audit row (when it published)
    is how long the run took, which grows with the rows: a DP release records days only."""
    anonymize(_spec(steps=5), adult)
    times = adult.execute("SELECT published_at, created_at FROM _anon_releases._audit UNION ALL "
                          "SELECT created_at, created_at FROM _anon_releases._budget").fetchall()
    assert len(times) == 3 and all(t == t.replace(hour=0, minute=0, second=0, microsecond=0) for row in times for t in row)


def test_the_rows_are_read_through_the_covered_view_twice_whatever_the_qis(adult, monkeypatch):
    """The view that leaves out uncovered rows is evaluated again by every statement reading it
    (a semi-join per QI): the profile's pass writes the QIs' distinct vectors, the hierarchies
    are built over those (source_profile.vectors_first), and only the copy of the rows into
    ``base`` reads the view again; never once per QI."""
    read: list[str] = []
    texts: dict[str, str] = {}
    execute = Engine.execute

    def logged(self, text, params=None, *, template="<inline>"):
        if "dp_covered" in text and not text.lstrip().upper().startswith(("CREATE VIEW", "DROP")):
            read.append(template)
        texts[template] = text
        return execute(self, text, params, template=template)

    monkeypatch.setattr(Engine, "execute", logged)
    anonymize(_spec(steps=5), adult)
    assert sorted(read) == ["hierarchy/qi_values.sql.j2", "prepare/base.sql.j2"], read
    assert f"src.{VIEW_ROWID} AS __rid" in texts["prepare/base.sql.j2"].replace('"', "")   # the table's rowid, passed on
    adult.execute("CREATE VIEW adult_view AS SELECT * FROM adult")   # a view: no rowid to pass on, its rows numbered
    assert anonymize({**_spec(steps=5), "source": {"table": "adult_view"}}, adult, force=True).version == 2
    assert "row_number() OVER () AS __rid" in texts["prepare/base.sql.j2"]


def test_a_column_whose_type_cannot_show_the_files_values_is_refused_before_spending(adult):
    """A DOUBLE age holds 39 as '39.0', which ARX's file of whole numbers never names: every
    row would be left out and the run would spend for nothing. The column's type and the file
    are public, so the release is refused on them, before the ledger is touched."""
    adult.execute("ALTER TABLE adult ALTER age TYPE DOUBLE")
    with pytest.raises(SpecError, match=r"columns.age.hierarchy: no value of the file is written as a DOUBLE.*'1'.*'1.0'"):
        anonymize(_spec(steps=5), adult)
    assert adult.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0
    adult.execute("ALTER TABLE adult ALTER age TYPE SMALLINT")
    assert anonymize(_spec(steps=5), adult).version == 1


def test_columns_named_as_the_files_own_columns_are_the_rows(tmp_path):
    """The covered view compares each row's value with its file's values in a subquery over
    the file's table (value, h1, ..): a QI named ``value`` or ``h1`` is the row's, never the
    file's own column (which would keep every row, or none)."""
    (tmp_path / "v.csv").write_text("a;*\nb;*\n")
    (tmp_path / "h.csv").write_text("x;*\ny;*\n")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT ['a', 'b', 'zz'][1 + i % 3] AS value, ['x', 'y'][1 + i % 2] AS h1 "
                "FROM range(3000) t(i)")
    spec = {**_spec(steps=5), "source": {"table": "t"},
            "columns": {"value": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "v.csv")}},
                        "h1": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "h.csv")}}}}
    anonymize(spec, con)
    assert con.execute("SELECT count(*) FROM published.adult_dp WHERE value NOT IN ('a', 'b', '*')").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM published.adult_dp").fetchone()[0] > 0


@pytest.mark.parametrize("score", ["smooth_loss", "entropy", "classification"])
def test_a_batch_summed_over_the_levels_it_never_reads_scores_as_one_with_the_bottom(score):
    """scores.sql.j2 first sums the frequency set over the levels below the batch's lowest
    (its meet): a batch of coarse nodes alone scores every node as a batch holding the bottom
    node does, which reads every level."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{ADULT / 'adult.csv.gz'}', delim=';', header=true) "
                "LIMIT 3000")
    engine = Engine(con)
    classify = score == "classification"
    qis = QIS + ["salary-class"] if classify else QIS
    plan = prepare(engine, load_spec(_spec(qis, score=score, selection="best",
                                           **({"target": "salary-class"} if classify else {}))))
    freq = build_frequency_set(engine, plan)
    coarse = [n + (1,) * classify for n in [(2, 1, 1, 1), (3, 1, 1, 2), (2, 1, 1, 2), (4, 1, 1, 1)]]
    walk = Walk(engine, plan, freq, plan.models[0].k, options.of(plan))
    walk._score(coarse)
    alone, walk.scores = walk.scores, {}
    walk._score(coarse + [(0,) * len(qis)])
    assert alone == pytest.approx({n: walk.scores[n] for n in coarse}, rel=1e-12)
    assert len(set(alone.values())) == len(coarse)


@pytest.mark.parametrize("name", ["__anon_source_rowid", "__ANON_SOURCE_ROWID"])
def test_a_source_column_named_as_the_views_row_id_is_never_taken_for_it(tmp_path, name):
    """The review's F1: the row id was guessed from a column's name, so a source column of
    that name (one value in every row) became every row's id: one shared sample draw (rows
    kept or dropped all together), and n^2 rows in the candidate after the run had spent. The
    covered view now hands its column over, and takes none that a source column's name
    (in any case) would shadow."""
    (tmp_path / "y.csv").write_text("a;*\nb;*\nc;*\n")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y, 7 AS {name} FROM range(3000) t(i)")
    con.execute("CREATE VIEW tv AS SELECT * FROM t")
    for source in ("t", "tv"):
        spec = {**_spec(steps=5), "release": f"r_{source}", "output": {"view": f"r_{source}"}, "source": {"table": source},
                "columns": {"y": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "y.csv")}}}}
        anonymize(spec, con)
        kept = con.execute(f"SELECT count(*) FROM published.r_{source}").fetchone()[0]
        assert 0.5 * 3000 < kept < 0.7 * 3000   # beta ~ 0.61 of the rows, each drawn apart


def _one_qi(tmp_path, lines: str, column_sql: str, rows: int = 3000) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """A table t of one QI x (``column_sql``: its type and values over i) and a spec with a
    hierarchy file of ``lines``."""
    (tmp_path / "x.csv").write_text(lines)
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT {column_sql} AS x FROM range({rows}) t(i)")
    return con, {**_spec(steps=5), "source": {"table": "t"},
                 "columns": {"x": {"role": "quasi", "hierarchy": {"csv": str(tmp_path / "x.csv")}}}}


@pytest.mark.parametrize(("lines", "column_sql", "refusal"), [
    # the review's F2: 0.0 and -0.0 are one DOUBLE, written apart: coded as one, labelled by the first row
    ("0.0;A;*\n-0.0;A;*\n1.0;B;*\n", "[0.0, -0.0, 1.0][1 + i % 3]::DOUBLE", "equal as the DOUBLE column compares them"),
    # F2/F3: 'a' and 'A' under NOCASE; a collation takes apart what the file's text tells apart
    ("a;X;*\nb;X;*\n", "['a', 'b'][1 + i % 2]::VARCHAR COLLATE NOCASE", "columns.x: compares text under a collation"),
    # F5: a BIGINT file ordered as DOUBLEs hid a split that one row of 99999999999999999 showed
    ("99999999999999990;A;*\n99999999999999999;B;*\n100000000000000000;A;*\n",
     "[99999999999999990, 100000000000000000][1 + i % 2]::BIGINT", "not neighbours"),
    # F6: a type the check skipped: no row could be covered, the run spent for nothing
    ("2020-01-01;A;*\n", "TIMESTAMP_S '2020-01-01 00:00:00' + INTERVAL (i % 2) DAY", "no value of the file is written as"),
])
def test_what_the_file_and_the_columns_type_show_is_refused_before_spending(tmp_path, lines, column_sql, refusal):
    """The review's findings F2, F3, F5 and F6: facts of the file and of the column's type,
    both public, refused before the ledger is touched, whatever the rows hold."""
    con, spec = _one_qi(tmp_path, lines, column_sql)
    if "NOCASE" in column_sql:   # a "table" with the collation: created apart (CREATE TABLE AS drops it)
        con.execute("CREATE OR REPLACE TABLE t (x VARCHAR COLLATE NOCASE)")
        con.execute("INSERT INTO t SELECT ['a', 'b'][1 + i % 2] FROM range(3000) t(i)")
    with pytest.raises(SpecError, match=refusal):
        anonymize(spec, con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = '_anon_releases'").fetchone()[0] == 0


def test_a_collated_column_released_from_a_view_without_its_collation_publishes(tmp_path):
    """The refusal's advice works: a view that drops the collation (decode(encode(x)))."""
    con, spec = _one_qi(tmp_path, "a;X;*\nA;X;*\nb;Y;*\n", "'a'")
    con.execute("CREATE OR REPLACE TABLE t (x VARCHAR COLLATE NOCASE)")
    con.execute("INSERT INTO t SELECT ['a', 'A', 'b'][1 + i % 3] FROM range(3000) t(i)")
    con.execute("CREATE VIEW tv AS SELECT decode(encode(x)) AS x FROM t")
    anonymize({**spec, "source": {"table": "tv"}}, con)
    assert {x for x, in con.execute("SELECT DISTINCT x FROM published.adult_dp").fetchall()} <= {"a", "A", "b", "X", "Y", "*"}


def test_a_nan_the_file_names_is_left_out_never_a_reason_to_stop(tmp_path):
    """The review's F4: a file naming 'nan' covered a NaN row, and the source's profile then
    refused the NaN: a stop on a fact of one row. A NaN or an infinity is always left out."""
    con, spec = _one_qi(tmp_path, "0.0;A;*\n1.0;B;*\ninf;B;*\nnan;B;*\n", "[0.0, 1.0][1 + i % 2]::DOUBLE")
    con.execute("INSERT INTO t VALUES ('nan'::DOUBLE), ('inf'::DOUBLE)")
    assert anonymize(spec, con).version == 1
    assert con.execute("SELECT count(*) FROM published.adult_dp WHERE x IN ('nan', 'inf')").fetchone()[0] == 0
