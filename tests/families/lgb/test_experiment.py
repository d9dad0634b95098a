"""Paper 000's experiment (anonymizer.reproduce.p000_lgb.experiment): a small run on Adult (k = 5, l = 5 and 8,
densities 20 and 40 %, 50 queries), the l caps against an independent count, verification in
evaluate, the findings against synthetic rows (each verdict follows the rows and is recomputed
from the printed checks), and the plots."""

from __future__ import annotations

import json

import duckdb
import pytest

from anonymizer.families.lgb import form as lgb_table
from anonymizer.errors import PrivacyCheckFailed, SpecError
from anonymizer.datasets.flagged import experiment_spec
from anonymizer.reproduce.p000_lgb.experiment import evaluate, findings, format_findings, run_experiment, to_json
from anonymizer.reproduce.p000_lgb.tables import format_caps, format_tables
from tests.project.test_verdicts import recomputed as shared_recomputed

pytestmark = pytest.mark.slow   # a module-wide fixture takes seconds (the fast tier leaves it out)

KS, LS, DENSITIES, QUERIES = (5,), (5, 8), (0.2, 0.4), 50
KEYS = {"sections", "algorithm", "density", "k", "l", "t", "table", "l_caps", "l_occupation", "capped", "c_dm",
        "ncp", "ncp_paper", "ncp_per_qi_cell", "groups", "smallest_group", "buckets", "rows", "suppressed",
        "query_error", "query_error_median", "query_error_unrounded", "queries", "queries_discarded", "query_seed", "query_set", "group_sizes", "spread",
        "seconds"}
VERDICTS = {"holds", "partly", "does not hold", "n/a"}


@pytest.fixture(scope="module")
def small():
    con = duckdb.connect()
    rows = run_experiment(con, ks=KS, ls=LS, densities=DENSITIES, queries=QUERIES)
    yield con, rows
    con.close()


@pytest.mark.slow
def test_rows(small):
    _, rows = small
    # the grid at 20 % for both algorithms, LGB_MDP at 40 %; LGB_MDP at 20 % ran once, in both sections;
    # Algorithm 4 as printed (balance false) at the smallest l, in no section (finding g); LGB_NCP minimizing
    # the reported NCP (objective set) at every l, in no section (finding i)
    assert [(r["density"], r["algorithm"], r["l"]) for r in rows] == [
        (0.2, "lgb-mdp", 5), (0.2, "lgb-mdp", 8), (0.2, "lgb-ncp", 5), (0.2, "lgb-ncp", 8),
        (0.4, "lgb-mdp", 5), (0.4, "lgb-mdp", 8), (0.2, "lgb-ncp-literal", 5), (0.2, "lgb-ncp-set", 5),
        (0.2, "lgb-ncp-set", 8)]
    assert [r["sections"] for r in rows] == [["4.1", "4.2", "4.3"]] * 2 + [["4.1", "4.2"]] * 2 + [["4.3"]] * 2 + \
        [[]] * 3
    for r in rows:
        assert set(r) == KEYS
        assert r["c_dm"] > 0 and r["ncp"] > 0 and r["query_error"] > 0 and r["query_error_median"] > 0
        # paper 000's NCP charges every exact categorical cell 1/|A| and a value set all |A| leaves
        assert r["ncp_paper"] > r["ncp"]
        # the per-bucket rounding only widens the bounds
        assert 0 < r["query_error_unrounded"] < r["query_error"]
        assert r["groups"] > 0 and r["smallest_group"] >= r["k"] and r["suppressed"] == 0 and r["rows"] == 30162
        assert 0 < r["queries"] <= QUERIES and r["queries"] + r["queries_discarded"] == QUERIES
        assert set(r["buckets"]) == {"sex", "age", "occupation", "fnlwgt"}
        assert r["seconds"]["query_error"] < r["seconds"]["total"]
    # local generalization does not depend on l (Corollary 3): C_DM and NCP equal across l (NCP is a
    # float sum whose order may vary)
    for density, algorithm in ((0.2, "lgb-mdp"), (0.2, "lgb-ncp"), (0.4, "lgb-mdp"), (0.2, "lgb-ncp-set")):
        same = {(r["c_dm"], round(r["ncp"], 6), round(r["ncp_paper"], 6)) for r in rows if (r["density"], r["algorithm"]) == (density, algorithm)}
        assert len(same) == 1


def test_one_query_set_for_every_table(small):
    _, rows = small
    assert {r["query_seed"] for r in rows} == {0}
    assert len({r["query_set"] for r in rows}) == 1


def test_occupation_cap(small):
    con, rows = small
    for r in rows:
        n, top = con.execute(f"SELECT sum(n), max(n) FROM (SELECT count(*) AS n FROM {r['table']} "
                             "WHERE occupation_flag GROUP BY occupation)").fetchone()
        cap = r["l_caps"]["occupation"]
        assert (cap["cells"], cap["top"], cap["cap"], cap["values"]) == (n, top, n // top, 14)
        assert r["l_occupation"] == min(r["l"], cap["cap"])
        assert ("occupation" in r["capped"]) == (r["l"] > cap["cap"])
        assert r["l_caps"]["fnlwgt"]["cells"] == 30162 and "fnlwgt" not in r["capped"]
    assert any("occupation" in r["capped"] for r in rows)         # l = 8 is above Adult's L = 7
    text = format_caps(rows)
    assert "occupation's buckets use l = min(l, L) because" in text and "binding for l > 7" in text
    text = format_tables(rows)
    assert "section 4.3 (Fig. 8)" in text and "LGB_NCP" in text and "C_DM" in text


def test_findings_and_json(small):
    _, rows = small
    found = findings(rows)
    assert [f["id"] for f in found] == list("abcdefghijk")
    assert all(f["holds"] in VERDICTS for f in found)
    by_id = {f["id"]: f["holds"] for f in found}
    assert by_id["d"] == by_id["j"] == "n/a"                        # one k: no trend in k
    text = format_findings(found)
    assert all(f"({key}) " in text for key in "abcdefghijk")
    assert recomputed(text) == {f["id"]: f["holds"] for f in found}
    out = json.loads(json.dumps(to_json(rows, found, ["x.png"])))
    assert out["experiment"] == "000" and len(out["rows"]) == len(rows) and out["plots"] == ["x.png"]
    assert out["l_caps"]["20%"]["occupation"]["cap"] == rows[0]["l_caps"]["occupation"]["cap"]


def test_why_figs_5_and_6_do_not_hold_together(small):
    """Finding (g)'s numbers at k = 5 (seeded run): balanced LGB_NCP keeps groups like LGB_MDP's
    (C_DM ratio 1.10, NCP 3.7 % lower); Algorithm 4 as printed leaves 74 % of the rows in groups of
    >= 2k rows, so LGB_MDP's C_DM is 0.23 of its (Fig. 5 holds) while its NCP is 2.14x (Fig. 6 fails)."""
    g = {f["id"]: f for f in findings(small[1])}["g"]
    assert g["holds"] == "does not hold"
    assert g["checks"] == {"k=5: LGB_NCP runs giving Figs. 5 and 6 together, of 3": {"value": 0, "rule": ">= 1",
                                                                                      "met": False}}
    at = g["context"]["k=5"]
    mdp, balanced, literal = at["LGB_MDP"], at["LGB_NCP"], at["LGB_NCP literal"]
    assert (mdp["c_dm"], balanced["c_dm"], literal["c_dm"]) == (244046, 222842, 1079970)
    assert (balanced["mdp_c_dm_ratio"], balanced["ncp_reduction"]) == (1.0952, 0.037)
    assert (literal["mdp_c_dm_ratio"], literal["fig5"], literal["fig6"]) == (0.226, True, False)
    assert literal["ncp"] / mdp["ncp"] == pytest.approx(2.1354, abs=1e-4)
    assert (mdp["rows_in_groups_of_2k"], balanced["rows_in_groups_of_2k"], literal["rows_in_groups_of_2k"]) == \
        (0.1429, 0.0783, 0.74)
    assert "74.0 % of the rows" in g["note"] and "2.14x" in g["note"]


def test_why_the_query_error_rises_with_density(small):
    """Finding (h)'s numbers (LGB_MDP, k = l = 5): a bucketized sex or occupation cell says less than
    a generalized one at 20 % and 40 % (age's buckets are the sharper), and the groups coarsen."""
    h = {f["id"]: f for f in findings(small[1])}["h"]
    assert h["holds"] == "partly"                                  # age's checks met, sex's and occupation's missed
    assert [label for label, c in h["checks"].items() if c["met"]] == ["age at 20%: bucket NCP - QI NCP",
                                                                      "age at 40%: bucket NCP - QI NCP"]
    for density in ("20%", "40%"):
        at = h["context"][density]
        assert (at["sex"]["qi_ncp"], at["sex"]["bucket_ncp"]) == (0.0, 1.0)
        assert at["occupation"]["bucket_ncp"] == 0.3573 > at["occupation"]["qi_ncp"]      # 5 of 14 values
        assert at["age"]["bucket_ncp"] < at["age"]["qi_ncp"]
    assert (h["context"]["20%"]["c_dm"], h["context"]["40%"]["c_dm"]) == (244046, 348616)
    assert h["context"]["20%"]["query_error"] < h["context"]["40%"]["query_error"]
    assert "blurrier on sex, occupation" in h["note"] and "Adult's 14 occupations" in h["note"]


def test_evaluate_verifies(small, monkeypatch):
    con, rows = small
    spec = experiment_spec(rows[0]["table"], "lgb-mdp", 5, 5)
    judge = lgb_table.judge

    def altered(engine, candidate):
        return dict(judge(engine, candidate), altered=1)
    monkeypatch.setattr(lgb_table, "judge", altered)
    with pytest.raises(PrivacyCheckFailed, match="altered"):
        evaluate(con, spec, queries=5)
    # nothing is published, and the work schema is gone
    assert con.execute("SELECT count(*) FROM information_schema.schemata WHERE catalog_name LIKE '_anon_work_%' "
                       "OR schema_name = 'published'").fetchone()[0] == 0


@pytest.mark.parametrize("kw, field", [({"ks": (1,)}, "ks/ls"), ({"ls": ()}, "ks/ls"),
                                       ({"densities": (0.2, 1.5)}, "densities"),
                                       ({"algorithms": ("lgb-mdp", "mondrian")}, "algorithms"),
                                       ({"queries": 0}, "queries")])
def test_bad_arguments(kw, field):
    with pytest.raises(SpecError, match=field):
        run_experiment(duckdb.connect(), **kw)


def test_plots(small, tmp_path):
    pytest.importorskip("matplotlib")
    from anonymizer.reproduce.p000_lgb.plots import plot_experiment
    written = plot_experiment(small[1], tmp_path / "plots")
    assert sorted(p.name for p in written) == ["cdm.png", "density.png", "ncp.png", "query_error.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


# -- findings follow the rows ----------------------------------------------------------------
def recomputed(text: str) -> dict[str, str]:
    """Every verdict again from the printed text alone (:func:`tests.project.test_verdicts.recomputed`),
    checked to be the printed one."""
    both = shared_recomputed(text)
    assert all(printed == again for printed, again in both.values()), both
    return {key: again.lower() for key, (_, again) in both.items()}


def synthetic(cdm_ratio=0.5, ncp_cut=0.15, k_up=True, density_down=True, bucket_ncp=0.1):
    """Rows shaped like the paper's figures: k = 5, 8, 10, l = 5 .. 20, densities 10 .. 40 %, LGB_NCP
    minimizing the reported NCP (lgb-ncp-set) as LGB_NCP; age's bucketized cells cost ``bucket_ncp``,
    its generalized cells 0.2; the unrounded query error is the error."""
    rows = []
    for algorithm in ("lgb-mdp", "lgb-ncp", "lgb-ncp-set"):
        for density in (0.1, 0.2, 0.3, 0.4) if algorithm == "lgb-mdp" else (0.2,):
            for k in (5, 8, 10):
                for l in (5, 10, 15, 20):
                    mdp = algorithm == "lgb-mdp"
                    error = (k if k_up else 20 - k) * 0.02 + l * 0.003 + (0 if mdp else 0.1 / l)
                    error *= (1 - (density - 0.2) * k * l / 400) if density_down else (1 + density)
                    sections = (["4.1", "4.2"] if density == 0.2 and algorithm != "lgb-ncp-set" else []) + \
                        (["4.3"] if mdp else [])
                    ncp = 100.0 * k * (1 if mdp else 1 - ncp_cut)
                    rows.append({"sections": sections, "algorithm": algorithm, "density": density, "k": k,
                                 "l": l, "c_dm": 1000 * k * (cdm_ratio if mdp else 1), "ncp": ncp,
                                 "ncp_paper": ncp, "query_error": error, "query_error_unrounded": error,
                                 "group_sizes": {"share_2k": 0.05 if mdp else 0.1, "largest": 2 * k + (0 if mdp else 3)},
                                 "t": 0.2,
                                 "spread": {"age": {"qi_cells": 10, "qi_ncp": 0.2, "bucket_cells": 5,
                                                    "bucket_ncp": bucket_ncp}}})
    return rows


def verdicts(rows):
    found = findings(rows)
    assert recomputed(format_findings(found)) == {f["id"]: f["holds"] for f in found}
    return {f["id"]: f["holds"] for f in found}


def test_paper_like_rows_hold_everything():
    assert set(verdicts(synthetic()).values()) == {"holds"}
    assert set(verdicts([]).values()) == {"n/a"}


def test_k_misses_where_mdp_leaves_more_rows_in_large_groups():
    rows = synthetic()
    for r in rows:
        if r["algorithm"] == "lgb-mdp" and r["k"] == 8:
            r["group_sizes"] = {"share_2k": 0.2, "largest": 2 * r["k"]}
    found = {f["id"]: f for f in findings(rows)}["k"]
    assert found["holds"] == "partly" and [c["met"] for c in found["checks"].values()] == [False, True]


def _scaled(rows, when, key, factor):
    for r in rows:
        if when(r):
            r[key] *= factor
    return rows


def test_verdicts_flip():
    assert verdicts(synthetic(cdm_ratio=1.2))["a"] == "does not hold"
    assert verdicts(synthetic(cdm_ratio=0.9))["a"] == "does not hold"     # lower, but not by 25 %
    # k=5 and 8 much lower, k=10 not
    assert verdicts(_scaled(synthetic(), lambda r: r["algorithm"] == "lgb-mdp" and r["k"] == 10, "c_dm", 2))["a"] \
        == "partly"
    assert verdicts(synthetic(ncp_cut=-0.05))["c"] == "does not hold"
    assert verdicts(synthetic(ncp_cut=0.04))["c"] == "does not hold"      # lower, but outside 14-17 %
    # in the band under our NCP, outside it under the paper's
    assert verdicts(_scaled(synthetic(), lambda r: r["algorithm"] == "lgb-ncp", "ncp_paper", 0.5))["c"] == "partly"
    assert verdicts(synthetic(k_up=False))["d"] == "partly"               # grows with l, not with k
    assert verdicts(synthetic(density_down=False))["f"] == "does not hold"
    assert verdicts(synthetic(cdm_ratio=1.2))["g"] == "does not hold"          # Fig. 5 fails: not both
    assert verdicts(synthetic(ncp_cut=0.3))["g"] == "does not hold"            # Fig. 6 out of its band
    assert verdicts(synthetic(bucket_ncp=0.3))["h"] == "does not hold"
    # LGB_NCP minimizing the reported NCP at half LGB_MDP's error at every l: never above, never closer
    half = {(r["k"], r["l"]): r["query_error"] / 2 for r in synthetic() if r["algorithm"] == "lgb-mdp"}
    rows = synthetic()
    for r in rows:
        if r["algorithm"] == "lgb-ncp-set":
            r["query_error"] = half[r["k"], r["l"]]
    assert verdicts(rows)["i"] == "does not hold"
    rows = synthetic()
    for r in rows:
        r["query_error_unrounded"] = 1 / (r["k"] ** 3 * r["l"])         # falls with l and k, more with k
    assert verdicts(rows)["j"] == "does not hold"
    rows = _scaled(synthetic(), lambda r: r["algorithm"] == "lgb-mdp" and r["l"] == 10, "c_dm", 1.5)
    assert verdicts(rows)["b"] == "partly"
    _scaled(rows, lambda r: r["algorithm"] == "lgb-mdp" and r["l"] == 5, "query_error", 3)
    assert verdicts(rows)["e"] == "partly"                         # higher at small l, closer at large l
    _scaled(rows, lambda r: r["algorithm"] == "lgb-mdp" and r["l"] != 5, "query_error", 3)
    assert verdicts(rows)["e"] == "does not hold"


@pytest.mark.slow
def test_cli_lgb_experiment():
    from click.testing import CliRunner
    from anonymizer.cli import main
    res = CliRunner().invoke(main, ["reproduce", "p000", "--ks", "5", "--ls", "5", "--densities", "0.2",
                                    "--queries", "10", "--json", "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [(r["algorithm"], r["k"], r["l"]) for r in out["rows"]] == [("lgb-mdp", 5, 5), ("lgb-ncp", 5, 5),
                                                                       ("lgb-ncp-literal", 5, 5), ("lgb-ncp-set", 5, 5)]
    assert out["l_caps"]["20%"]["occupation"]["cap"] == 7 and len(out["findings"]) == 11
