"""The release spec: read and validated completely before the first query.

- :mod:`.parse`: the spec's fields (its docstring shows a whole spec), YAML, sources, outputs,
  engine settings;
- :mod:`.columns`: roles, types, hierarchies, flags, domains, security levels, models;
- :mod:`.algorithm`: the algorithm, its options and its pairing with the models;
- :mod:`.types`: the frozen dataclasses a release reads;
- :mod:`.schema`: the spec's JSON Schema (``anonymizer schema``), built from the same
  declarations; :mod:`.validate` checks a spec against it first, every error at once.
"""

from anonymizer.spec.parse import load_spec, parse_spec
from anonymizer.spec.types import ReleaseSpec

__all__ = ["ReleaseSpec", "load_spec", "parse_spec"]
