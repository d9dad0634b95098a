"""Full-domain generalization at a fixed level vector passes the release conformance suite."""

from tests.families.conformance import GENERALIZED, BaseFamilyTests, generalized_spec

LEVELS = {"age": 2, "sex": 1, "race": 1, "marital-status": 2, "education": 2}


class TestFullDomain(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "full-domain", "levels": dict(LEVELS)},
                                                 suppression_limit=0.1))
