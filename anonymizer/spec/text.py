"""The spec as written, without its seed: what the audit records of a release's spec
(:mod:`anonymizer.release.history` reads it back)."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from anonymizer.spec.types import ReleaseSpec
from anonymizer.spec.yaml_text import read_yaml

_SEED = (re.compile(r"^[ \t]*['\"]?seed['\"]?[ \t]*:[^\n]*(\n|$)", re.MULTILINE),   # a line of its own
         re.compile(r",\s*['\"]?seed['\"]?\s*:\s*[^,}\n]*"),                          # in a {...}, not first
         re.compile(r"(?<=[{,])\s*['\"]?seed['\"]?\s*:\s*[^,}\n]*,?"))                # in a {...}, first


def spec_text(spec: ReleaseSpec) -> str:
    """The spec as the user wrote it (the YAML text; a spec given as a dict, as JSON) without
    ``algorithm.seed``: a seed would let anyone replay every random draw of the release
    (:mod:`anonymizer.randomness`), so the audit never holds it. The seed's entry is cut
    from the text; when the cut text would not read back as the spec without its seed
    (an unusual layout), the spec is recorded as JSON instead."""
    raw = _without_seed(spec.raw)
    if spec.text is not None:
        cut = spec.text
        for pattern in _SEED:
            cut = pattern.sub("", cut)
        try:
            if read_yaml(cut) == raw:
                return cut
        except yaml.YAMLError:
            pass
    return json.dumps(raw, indent=2, default=str)


def _without_seed(raw: Any) -> dict:
    data = dict(raw)
    if isinstance(data.get("algorithm"), dict):
        data["algorithm"] = {k: v for k, v in data["algorithm"].items() if k != "seed"}
    return data


def without_comments(text: str) -> str:
    """The spec's text as YAML without its ``#`` comments, for a page a recipient reads (a
    comment may say what the recipient should not learn: the source, who asked, why); the
    keys keep their order. Text that does not parse (no spec) is returned as it is."""
    try:
        data = read_yaml(text)
    except yaml.YAMLError:
        return text
    if not isinstance(data, dict):
        return text
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
