"""How a spec's YAML is read, everywhere it is read (a spec file, the text the audit kept):
PyYAML's safe loader, refusing a key given twice, and reading YAML 1.2's floats too."""

from __future__ import annotations

import re
from typing import Any

import yaml

from anonymizer.errors import SpecError


class SpecLoader(yaml.SafeLoader):
    """A safe YAML loader that rejects a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise SpecError(f"line {key_node.start_mark.line + 1}", f"key {key!r} is given twice")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# YAML 1.2's floats too: PyYAML reads YAML 1.1, where 1e-5 (no dot) is a string, and a delta of
# differential privacy is written so (and a spec given as a dict is recorded as JSON, which
# writes 1e-05 so: anonymizer.spec.text)
SpecLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def read_yaml(text: str) -> Any:
    """``text`` as YAML (:class:`SpecLoader`)."""
    return yaml.load(text, Loader=SpecLoader)  # noqa: S506 - a SafeLoader
