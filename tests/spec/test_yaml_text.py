"""A spec's YAML reads YAML 1.2's floats (``1e-5``, how a delta is written), refuses a key given
twice, and reads back the JSON text the audit keeps of a spec given as a dict."""

import json

import pytest

from anonymizer.errors import SpecError
from anonymizer.spec.yaml_text import read_yaml


def test_exponent_floats_are_numbers_and_quoted_ones_stay_text():
    assert read_yaml("a: 1e-5\nb: 1.0e-5\nc: 1E+2\nd: '1e-3'\ne: 10") == {"a": 1e-5, "b": 1e-5, "c": 100.0,
                                                                       "d": "1e-3", "e": 10}


def test_the_json_of_a_dict_spec_reads_back():
    spec = {"algorithm": {"name": "safepub", "epsilon": 1.0, "delta": 1e-05}}
    assert read_yaml(json.dumps(spec)) == spec


def test_a_key_given_twice_is_refused():
    with pytest.raises(SpecError, match="given twice"):
        read_yaml("a: 1\na: 2")
