"""Property tests: random small tables and specs give a published output that satisfies the
declared models (checked here by brute force in pandas), or a clean error with nothing published."""

from __future__ import annotations

import math

import duckdb
import pytest
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer import anonymize
from anonymizer.errors import AnonymizerError

rows = st.lists(
    st.tuples(st.integers(0, 30), st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 5),
              st.sampled_from(["flu", "cold", "hiv", "cancer", "none"])),
    min_size=1, max_size=60)


@st.composite
def specs(draw):
    k = draw(st.integers(1, 6))
    models = [{"type": "k-anonymity", "k": k}]
    if draw(st.booleans()):
        models.append({"type": "distinct-l-diversity", "l": draw(st.integers(1, 3)), "sensitive": "s"})
    if draw(st.booleans()):
        models.append({"type": "entropy-l-diversity", "l": draw(st.sampled_from([1.0, 1.5, 2.0])), "sensitive": "s"})
    if draw(st.booleans()):
        models.append({"type": "t-closeness", "t": draw(st.sampled_from([0.3, 0.6, 0.9])), "sensitive": "s"})
    return {"release": "prop", "source": {"table": "t"},
            "columns": {"x": {"role": "quasi", "type": "numeric"}, "c": "quasi", "y": "quasi", "s": "sensitive"},
            "models": models, "algorithm": {"name": "mondrian", "relaxed": draw(st.booleans())}}


def entropy(counts: pd.Series) -> float:
    p = counts / counts.sum()
    return float(-(p * p.apply(math.log)).sum())


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows, specs())
def test_random_release_satisfies_models_or_fails_cleanly(data, spec):
    con = duckdb.connect()
    df = pd.DataFrame(data, columns=["x", "c", "y", "s"])
    try:
        result = anonymize(spec, con, data=df)
    except AnonymizerError:
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0] == 0
        return
    out = con.execute(f"SELECT * FROM {result.view}").df()
    assert len(out) + result.suppressed == len(df)
    groups = out.groupby(["x", "c", "y"])
    for model in spec["models"]:
        if model["type"] == "k-anonymity":
            assert groups.size().min() >= model["k"]
        elif model["type"] == "distinct-l-diversity":
            assert groups["s"].nunique().min() >= model["l"]
        elif model["type"] == "entropy-l-diversity":
            assert min(entropy(g.value_counts()) for _, g in groups["s"]) >= math.log(model["l"]) - 1e-9
        elif model["type"] == "t-closeness":
            whole = df["s"].value_counts(normalize=True)
            for _, g in groups["s"]:
                local = g.value_counts(normalize=True).reindex(whole.index, fill_value=0)
                assert 0.5 * (local - whole).abs().sum() <= model["t"] + 1e-9
    con.close()
