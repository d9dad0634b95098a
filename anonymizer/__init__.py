"""SQL-in-database anonymizer: privacy algorithms compiled to DuckDB SQL, published as views.

The public names below are resolved on first use (PEP 562), so ``import anonymizer`` (and
``anonymizer --help``) does not load pandas or the engine until a release needs them.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module defining it
_HOME = {"AnonymizerError": "errors", "DataError": "errors", "PrivacyCheckFailed": "errors",
         "SpecError": "errors", "TemplateError": "errors", "ReleaseSpec": "spec", "load_spec": "spec",
         "anonymize": "api", "dp_count": "dp.queries", "dp_sum": "dp.queries", "dp_mean": "dp.queries"}

__all__ = [*_HOME, "macros"]


def __getattr__(name: str) -> Any:
    if name == "macros":
        return importlib.import_module(".macros", __name__)
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
