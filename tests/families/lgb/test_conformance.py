"""Paper 000's LGB algorithms (per-cell sensitivity, the LGB table) pass the release conformance suite."""

from tests.families.conformance import LGB, BaseFamilyTests, lgb_spec


class TestLGB(BaseFamilyTests):
    form = LGB
    spec = staticmethod(lambda: lgb_spec({"name": "lgb-mdp"}))
