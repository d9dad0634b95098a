"""The figures behind paper 000's findings (g) and (h) (anonymizer.reproduce.p000_lgb.explain)
and both NCPs of Fig. 6, measured on the worked example (Fig. 1, LGB_MDP, k = l = 2) and
compared with a hand computation from Fig. 3(b)'s groups and Algorithm 2's buckets
(tests/families/lgb/test_paper.py)."""

from __future__ import annotations

import pytest

from anonymizer.engine.session import Engine
from anonymizer.families.lgb.form import ncp_qis, real_rows
from anonymizer.metrics.ncp import ncp
from anonymizer.reproduce.p000_lgb.examples import SEED
from anonymizer.reproduce.p000_lgb.experiment import _candidate
from anonymizer.reproduce.p000_lgb.explain import measure
from anonymizer.reproduce.p000_lgb.worked_example import fig1_spec
from anonymizer.spec.parse import load_spec


def test_measure_fig1_by_hand(fig1):
    engine = Engine(fig1)
    with engine.workspace():
        spec = fig1_spec()
        spec["algorithm"]["seed"] = SEED                     # the draw that gives the paper's Fig. 4
        candidate, _, _ = _candidate(engine, load_spec(spec))
        found = measure(engine, candidate, 2)
    # four groups of two rows (Fig. 3(b)); no group of >= 2k = 4 rows
    assert found["group_sizes"] == {"groups": 4, "largest": 2, "rows_2k": 0, "share_2k": 0.0}
    spread = found["spread"]
    # age, range 16..34 = 18: QI cells [25, 28] x2 and [16, 22] x2 -> (3 + 3 + 6 + 6) / 18 / 4;
    # one leaf (Algorithm 2's upper median), paired as Fig. 4 pairs it with this seed:
    # buckets {24, 31} and {29, 34}, two cells each -> (7 + 7 + 5 + 5) / 18 / 4
    assert spread["age"] == {"qi_cells": 4, "qi_ncp": pytest.approx(0.25, abs=1e-4), "bucket_cells": 4,
                             "bucket_ncp": pytest.approx(round(24 / 72, 4), abs=1e-4)}
    # gender (2 values): '*' for 1001/1002 (2 / 2), exact elsewhere (0) -> 2 / 8
    assert spread["gender"] == {"qi_cells": 8, "qi_ncp": 0.25, "bucket_cells": 0, "bucket_ncp": None}
    # zip, range 21328..21358 = 30: QI cells [21352, 21358] x2, [21336, 21340] x2, 21328 x2 -> 20 / 30 / 6;
    # one bucket {21344, 21357} -> 13 / 30
    assert spread["zip"] == {"qi_cells": 6, "qi_ncp": round(20 / 180, 4), "bucket_cells": 2,
                             "bucket_ncp": round(13 / 30, 4)}
    # disease (6 values): four buckets of two distinct values -> 2 / 6
    assert spread["disease"] == {"qi_cells": 0, "qi_ncp": None, "bucket_cells": 8, "bucket_ncp": round(2 / 6, 4)}


def test_both_ncps_of_fig1_by_hand(fig1):
    """NCP(T) of the worked example's release (Fig. 3(b)'s groups) under both conventions
    (paper 000 Sec. 3.2.2: NCP_Anum, NCP_Acat, NCP(T); the paper numbers no equation). Age
    (range 18): [25, 28] x2, [16, 22] x2 -> 18 / 18 = 1 under both; zip (range 30): 20 / 30
    under both; gender (|A| = 2, flat hierarchy): '*' x2 and six exact cells -> ours 2 * 2/2 + 0
    = 2, the paper's 2 * 2/2 + 6 * 1/2 = 5 (a leaf costs 1/|A|)."""
    engine = Engine(fig1)
    with engine.workspace():
        candidate, _, _ = _candidate(engine, load_spec(fig1_spec()))
        rows, qis = real_rows(candidate), ncp_qis(candidate)
        ours, paper = (ncp(engine, rows, qis, 8, convention=c)[0] for c in ("ours", "paper"))
    assert ours == pytest.approx(1 + 20 / 30 + 2)
    assert paper == pytest.approx(1 + 20 / 30 + 5)
