"""SQL-in-database anonymizer: privacy algorithms compiled to DuckDB SQL, published as views."""

from .errors import AnonymizerError, DataError, PrivacyCheckFailed, SpecError, TemplateError
from .spec import ReleaseSpec, load_spec
from .api import anonymize
from . import macros

__all__ = ["AnonymizerError", "DataError", "PrivacyCheckFailed", "SpecError", "TemplateError",
           "ReleaseSpec", "load_spec", "anonymize", "macros"]
