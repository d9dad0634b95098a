"""DAnonyIR and GeneIR pass the release conformance suite."""

from tests.families.conformance import IDENTITY_RESERVED, BaseFamilyTests, ir_spec


class TestDAnonyIR(BaseFamilyTests):
    form = IDENTITY_RESERVED
    spec = staticmethod(lambda: ir_spec({"name": "danonyir"}, {"type": "eir-l-diversity", "l": 3, "sensitive": "disease"}))


class TestGeneIR(BaseFamilyTests):
    form = IDENTITY_RESERVED
    spec = staticmethod(lambda: ir_spec({"name": "geneir"},
                                        {"type": "ir-kl-anonymity", "k": 4, "l": 3, "sensitive": "disease"}))
