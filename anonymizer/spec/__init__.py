"""The release spec: read and validated completely before the first query (see :mod:`.parse`)."""

from anonymizer.spec.parse import ReleaseSpec, load_spec, parse_spec

__all__ = ["ReleaseSpec", "load_spec", "parse_spec"]
