"""DAnonyIR (paper 004, identity-reserved) passes the release conformance suite."""

from tests.families.conformance import IDENTITY_RESERVED, BaseFamilyTests, ir_spec


class TestDAnonyIR(BaseFamilyTests):
    form = IDENTITY_RESERVED
    spec = staticmethod(lambda: ir_spec({"name": "danonyir"}, {"type": "eir-l-diversity", "l": 3, "sensitive": "disease"}))
