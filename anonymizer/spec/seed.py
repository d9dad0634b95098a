"""``algorithm.seed``: where the key of a release's random draws comes from
(:mod:`anonymizer.randomness`).

- left out (the default): a fresh secret key, never stored; the release cannot be replayed;
- ``{env: NAME}`` or ``{file: PATH}``: a secret key text, read from an environment variable
  or a key file (relative to the spec's folder) at run time, never from the spec itself, so
  the spec can live in git: whoever holds the key can replay the release, nobody else. The
  text must be at least 32 characters with 8 distinct ones (``python -c "import secrets;
  print(secrets.token_hex(16))"`` gives 128 bits); a shorter one is refused as guessable;
- a whole number: a *public* seed, for tests, experiments and the papers' worked examples.
  Anyone who reads the spec can replay every draw (a seed of 0 recovers every LGB
  permutation and every IR person), so it is allowed with a warning on the ``anonymizer``
  logger, and the audit marks the release ``seeded``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from anonymizer.errors import SpecError
from anonymizer.randomness import SEED_LIMIT, key_seed

#: the least length and number of distinct characters of a key text
KEY_LENGTH, KEY_DISTINCT = 32, 8

log = logging.getLogger("anonymizer")


def parse_seed(value: Any, base: Path) -> tuple[int | None, str | None]:
    """``(seed, secret)``: the seed the algorithms' options read (``None``: none) and the
    key text of a secret source (``None`` for no seed or a public one); see the module's text."""
    if value is None:
        return None, None
    if isinstance(value, dict):
        if set(value) not in ({"env"}, {"file"}):
            raise SpecError("algorithm.seed", "must be {env: NAME} or {file: PATH} (a secret key), or a whole number "
                                              "(a public seed, for tests)", value)
        if "env" in value:
            name = str(value["env"])
            text = os.environ.get(name)
            if text is None:
                raise SpecError("algorithm.seed.env", f"the environment variable {name} is not set")
            where = f"the environment variable {name}"
        else:
            path = base / str(value["file"])
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise SpecError("algorithm.seed.file", f"cannot read the key file {path}: {exc.strerror or exc}") from None
            where = f"the key file {path}"
        text = text.strip()
        if len(text) < KEY_LENGTH or len(set(text)) < KEY_DISTINCT:
            raise SpecError("algorithm.seed", f"{where} holds a guessable key ({len(text)} characters, "
                                              f"{len(set(text))} distinct): give at least {KEY_LENGTH} characters, "
                                              f"e.g. python -c \"import secrets; print(secrets.token_hex(16))\"")
        return key_seed(text), text
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEED_LIMIT:
        raise SpecError("algorithm.seed", "must be {env: NAME} or {file: PATH} (a secret key), or a whole number in "
                                          "[0, 2**63) (a public seed, for tests)", value)
    log.warning("algorithm.seed %d is written in the spec: anyone who reads the spec can replay every random draw of "
                "the release; for a release to share, leave the seed out, or take a secret key with seed: {env: NAME} "
                "or seed: {file: PATH}", value)
    return value, None
