"""Fixtures of the LGB tests: paper 000's Fig. 1 table, and its release read back."""

from __future__ import annotations

import pandas as pd
import pytest

from anonymizer import anonymize
from anonymizer.lgb_paper import FIG1, fig1_spec, load_fig1

IDS = [r[0] for r in FIG1]


@pytest.fixture
def fig1(con):
    load_fig1(con)
    return con


def release_fig1(con, **kw) -> pd.DataFrame:
    """Run the worked example's release and return the published LGB table with each row's
    source ID (row_id is the source table's row number, in Fig. 1's order)."""
    result = anonymize(fig1_spec(**kw), con)
    frame = con.execute(f"SELECT * FROM {result.view} ORDER BY row_id").df()
    frame["id"] = [IDS[int(r)] for r in frame["row_id"]]
    return frame
