"""Mondrian (strict and relaxed), full-domain, the optimal search and PrivacyFrost2 pass the release
conformance suite."""

from tests.families.conformance import GENERALIZED, BaseFamilyTests, generalized_spec

#: full-domain's level vector
LEVELS = {"age": 2, "sex": 1, "race": 1, "marital-status": 2, "education": 2}


class TestMondrianStrict(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "mondrian"}))


class TestMondrianRelaxed(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "mondrian", "relaxed": True}))


class TestFullDomain(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "full-domain", "levels": dict(LEVELS)},
                                                 suppression_limit=0.1))


class TestOptimal(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "optimal"}, suppression_limit=0.05))


class TestPrivacyFrost2(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "privacyfrost2", "priorities": {"age": 5}, "partial": True},
                                                 suppression_limit=0.05))
