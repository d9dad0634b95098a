"""The optimal full-domain search passes the release conformance suite."""

from tests.families.conformance import GENERALIZED, BaseFamilyTests, generalized_spec


class TestOptimal(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "optimal"}, suppression_limit=0.05))
