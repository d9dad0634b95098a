"""Every spec under examples/ is a valid release spec (the README points users at them), and
its source and hierarchy files exist relative to the spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonymizer import load_spec

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_specs_validate(path):
    spec = load_spec(path)
    assert spec.release and (spec.models or spec.budget is not None)   # a DP release: its budget, no model
    source = getattr(spec.source, "path", None)
    assert source is None or Path(source).exists(), source


def test_there_are_examples():
    assert len(EXAMPLES) >= 10
