"""Fixtures of the LGB tests: paper 000's Fig. 1 table, and its release read back."""

from __future__ import annotations

import pandas as pd
import pytest

from anonymizer import anonymize
from anonymizer.reproduce.p000_lgb.worked_example import fig1_spec, load_fig1


@pytest.fixture
def fig1(con):
    load_fig1(con)
    return con


def release_fig1(con, **kw) -> pd.DataFrame:
    """Run the worked example's release and return the published LGB table with each row's
    source ID (published for the test only: ``id`` passes through; row_id is a pseudonym)."""
    spec = fig1_spec(**kw)
    spec["columns"]["id"] = "insensitive"
    result = anonymize(spec, con)
    return con.execute(f"SELECT * FROM {result.view} ORDER BY id").df()
