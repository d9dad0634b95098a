"""PrivacyFrost2 against paper 003's own settings (issue 20): eta's flat steps and the
``tie_break`` option, pre-sampling at Table 1's settings (u = 2 for every QI) counted apart
from the suppression limit, and the log score's ``e^b`` read before pre-sampling. Figures
are re-measured with pandas on ARX's Adult."""

from __future__ import annotations

import math

import pytest
from pycanon import anonymity

from anonymizer import anonymize
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.plan import prepare
from anonymizer.cli.summary import format_release
from anonymizer.spec.parse import load_spec
from tests.release.test_oracle import ARX_QIS, adult_spec

PRIORITIES = {"age": 10, "education": 5, "sex": 2}    # Table 2's grid (reproduce p003)
TOP = [4, 1, 1, 2, 3, 2, 2, 1]                         # every ARX QI at '*'


def frost(con, release, models, limit=0.0, **algorithm):
    spec = adult_spec(release, models, algorithm={"name": "privacyfrost2", "priorities": PRIORITIES, **algorithm})
    return anonymize(dict(spec, suppression_limit=limit), con)


# (k, second model): the two cells of Table 2 where eta (d = 10) stops at the root while
# basic scoring reaches a finer table (loss 0.8819 and 0.7569)
FLAT = [(10, {"type": "distinct-l-diversity", "l": 10, "sensitive": "occupation"}, 0.8819, [1, 1, 1, 2, 3, 2, 2, 1]),
        (10, {"type": "t-closeness", "t": 0.9, "sensitive": "occupation"}, 0.7569, [1, 0, 1, 2, 3, 2, 2, 1])]


@pytest.mark.parametrize("k,model,basic_loss,levels", FLAT, ids=["k10-l10", "k10-t0.9"])
def test_eta_stops_at_the_root_as_the_paper_does_and_tie_break_crosses_the_flat_step(arx_adult, k, model,
                                                                                       basic_loss, levels):
    con = arx_adult
    models = [{"type": "k-anonymity", "k": k}, model]
    paper = frost(con, "eta_paper", models, scoring="eta", d=10)
    assert list(paper.algorithm["levels"].values()) == TOP and paper.algorithm["score"] == 0
    assert paper.algorithm["loss"] == pytest.approx(1.0)
    basic = frost(con, "eta_basic", models, scoring="basic")
    assert basic.algorithm["loss"] == pytest.approx(basic_loss, abs=1e-4)
    fixed = frost(con, "eta_fixed", models, scoring="eta", d=10, tie_break="basic")
    assert list(fixed.algorithm["levels"].values()) == levels
    assert fixed.algorithm["loss"] == pytest.approx(basic_loss, abs=1e-4) and fixed.algorithm["tie_break"] == "basic"
    # its eta score, recomputed from the published labels: eta(e) = 2 if e > 10, 1 if e > 5, else 0
    df = con.execute(f"SELECT * FROM {fixed.view}").df().reset_index(drop=True)
    e = {q: df[q].nunique() for q in ARX_QIS}
    eta = sum(PRIORITIES.get(q, 1) * (2 if n > 10 else 1 if n > 5 else 0) for q, n in e.items())
    assert fixed.algorithm["score"] == eta > paper.algorithm["score"]
    assert anonymity.k_anonymity(df, ARX_QIS) >= k


def test_tie_break_leaves_a_cell_without_flat_steps_alone(arx_adult):
    models = [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}]
    paper = frost(arx_adult, "tb_none", models, scoring="log")
    fixed = frost(arx_adult, "tb_basic", models, scoring="log", tie_break="basic")
    assert fixed.algorithm["levels"] == paper.algorithm["levels"]
    assert fixed.algorithm["score"] == paper.algorithm["score"]


def test_tie_break_is_validated():
    base = {"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi"},
            "models": [{"type": "k-anonymity", "k": 2}]}
    for algorithm in ({"name": "privacyfrost2", "tie_break": "basic"},              # basic scoring: no effect
                      {"name": "privacyfrost2", "scoring": "log", "tie_break": "loss"},
                      {"name": "optimal", "tie_break": "basic"}):
        with pytest.raises(SpecError) as info:
            load_spec(dict(base, algorithm=algorithm))
        assert info.value.field == "algorithm.tie_break", (algorithm, info.value)
    assert load_spec(dict(base, algorithm={"name": "privacyfrost2"})).algorithm.options.tie_break == "none"


def isolated_by_hand(con, depth: int, k_prime: int) -> tuple[int, dict[str, int]]:
    """Section 5.1 with pandas: every QI at ``depth`` from the root, the records of groups
    under ``k'``; and each QI's value types in the rows kept."""
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, load_spec(adult_spec("p", [{"type": "k-anonymity", "k": 2}]), base_dir="."))
        cols = ", ".join(f"h{q.index}.label AS c{q.index}, a.{q.code} AS v{q.index}" for q in plan.qis)
        joins = " ".join(f"JOIN {q.hier} AS h{q.index} ON h{q.index}.code = a.{q.code} "
                         f"AND h{q.index}.level = {max(q.height - depth, 0)}" for q in plan.qis)
        frame = con.execute(f"SELECT {cols} FROM {plan.base} AS a {joins}").df()
    groups = [f"c{i}" for i in range(len(ARX_QIS))]
    size = frame.groupby(groups)[groups[0]].transform("size")
    kept = frame[size >= k_prime]
    return int((size < k_prime).sum()), {q: kept[f"v{i}"].nunique() for i, q in enumerate(ARX_QIS)}


@pytest.mark.parametrize("k_prime,removed", [(2, 2583), (10, 7168)])
def test_presampling_at_the_papers_settings_runs_at_the_default_limit(arx_adult, k_prime, removed):
    """Table 1's setting (u = 2 for every QI) removes thousands of rows; they are not
    counted against suppression_limit (0 here, the default), and the search suppresses no
    class, as the paper's never does."""
    con = arx_adult
    by_hand, _ = isolated_by_hand(con, 2, k_prime)
    assert by_hand == removed
    models = [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}]
    r = frost(con, f"ps{k_prime}", models, presample={"levels": 2, "k": k_prime})
    assert r.algorithm["presampled"] == removed
    assert r.suppressed == removed and r.rows_out == 30162 - removed       # nothing else suppressed
    df = con.execute(f"SELECT * FROM {r.view}").df().reset_index(drop=True)
    assert len(df) == 30162 - removed and anonymity.k_anonymity(df, ARX_QIS) >= 2
    assert f"pre-sampling  {removed} isolated rows removed" in format_release(r)


def test_the_suppression_limit_bounds_the_search_beside_presampling(arx_adult):
    """With a limit, the search may suppress classes up to the limit, on top of pre-sampling."""
    models = [{"type": "k-anonymity", "k": 2}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}]
    r = frost(arx_adult, "ps_limit", models, limit=0.05, presample={"levels": 2, "k": 2})
    searched = r.suppressed - r.algorithm["presampled"]
    assert r.algorithm["presampled"] == 2583 and 0 < searched <= int(0.05 * 30162)


def test_presampling_everything_away_is_a_clear_error(arx_adult):
    with pytest.raises(DataError) as info:
        frost(arx_adult, "ps_all", [{"type": "k-anonymity", "k": 2}], presample={"levels": 8, "k": 40000})
    text = str(info.value)
    assert "pre-sampling" in text and "removed all 30162 rows" in text and "equivalence class" not in text


def test_log_score_reads_the_value_types_before_presampling(arx_adult):
    """e^b of section 6.3 is the value count before anonymization: native-country has 41
    values in the source and 36 left after pre-sampling at u = 2, k' = 2."""
    con = arx_adult
    _, after = isolated_by_hand(con, 2, 2)
    before = {q: con.execute(f'SELECT count(DISTINCT "{q}") FROM adult').fetchone()[0] for q in ARX_QIS}
    assert (before["native-country"], after["native-country"]) == (41, 36)
    v = {q: 1 for q in ARX_QIS} | {"native-country": 10}
    spec = adult_spec("logb", [{"type": "k-anonymity", "k": 2}],
                      algorithm={"name": "privacyfrost2", "scoring": "log", "priorities": v,
                                 "presample": {"levels": 2, "k": 2}})
    r = anonymize(spec, con)
    df = con.execute(f"SELECT * FROM {r.view}").df()
    e = {q: df[q].nunique() for q in ARX_QIS}
    assert e["native-country"] == 36                        # kept at its values
    score = max(v[q] * (math.log(e[q]) / math.log(before[q]) if before[q] > 1 else 1.0) for q in ARX_QIS)
    assert r.algorithm["score"] == pytest.approx(score) == pytest.approx(10 * math.log(36) / math.log(41))
