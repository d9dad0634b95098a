"""PrivacyFrost2 (paper 003) passes the release conformance suite."""

from tests.families.conformance import GENERALIZED, BaseFamilyTests, generalized_spec


class TestPrivacyFrost2(BaseFamilyTests):
    form = GENERALIZED
    spec = staticmethod(lambda: generalized_spec({"name": "privacyfrost2", "priorities": {"age": 5}, "partial": True},
                                                 suppression_limit=0.05))
