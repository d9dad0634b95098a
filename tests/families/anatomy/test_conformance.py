"""Paper 002's MSB algorithms (anatomy output) pass the release conformance suite."""

from tests.families.conformance import ANATOMY, BaseFamilyTests, anatomy_spec


class TestMSB(BaseFamilyTests):
    form = ANATOMY
    spec = staticmethod(lambda: anatomy_spec({"name": "mmdcf-mslf"}))
