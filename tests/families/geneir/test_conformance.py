"""GeneIR (paper 004's baseline, identity-reserved) passes the release conformance suite."""

from tests.families.conformance import IDENTITY_RESERVED, BaseFamilyTests, ir_spec


class TestGeneIR(BaseFamilyTests):
    form = IDENTITY_RESERVED
    spec = staticmethod(lambda: ir_spec({"name": "geneir"},
                                        {"type": "ir-kl-anonymity", "k": 4, "l": 3, "sensitive": "disease"}))
