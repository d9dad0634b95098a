"""Mondrian, strict and relaxed partitioning, passes the release conformance suite."""

from tests.families.conformance import GENERALIZED, BaseFamilyTests, generalized_spec


class TestMondrianStrict(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "mondrian"}))


class TestMondrianRelaxed(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "mondrian", "relaxed": True}))
