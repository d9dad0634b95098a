"""The randomness a release's privacy relies on: one key per release, never stored.

Every random choice that the privacy argument needs (the permutation of values inside an LGB
bucket, paper 000 Lemma 2; Id_num, paper 004 Algorithm 1 line 1; the draws "select randomly"
of DAnonyIR and GeneIR; which record of a bucket joins which anatomy group, paper 002; which
duplicate rows fill which piece of a relaxed Mondrian cell; published row ids and the row
order inside a class) draws from a :class:`ReleaseKey`:

- an **unseeded** release (no ``algorithm.seed``, the default) takes 128 bits from Python's
  :mod:`secrets`. The key is a bound parameter (``$key``) of the statements that draw, and is
  never written to the audit, a log, an error message or a published table, so nothing an
  adversary holds (published views, the audit table, this code) re-derives a draw;
- a **keyed** release (``algorithm.seed: {env: NAME}`` or ``{file: PATH}``,
  :mod:`anonymizer.spec.seed`) derives its key from a secret key text of at least 32
  characters, read at run time and never from the spec: the same key gives the same release,
  and only its holder can replay it. The audit marks it ``keyed``;
- a **seeded** release (``algorithm.seed: <int>`` in the spec) derives its key from the seed, so
  the same seed gives the same release: for tests and experiments. Anyone who reads the spec
  can replay every draw, so a seeded release is no stronger than its seed's secrecy (the spec
  parser warns). The audit marks the release ``seeded`` (never the seed itself).

The bound key is a :class:`Secret`: an engine that would print a bound value in what it shows
of a statement (Spark puts it, as a literal, in every plan its UI, event log and history
server keep) reads it from a work table instead (:mod:`anonymizer.engine.spark_secret`).

In SQL a draw is ``md5_number($key || purpose || value)`` (macro ``draw`` of
``templates/_random.sql.j2``): MD5 keyed with 128 secret bits, used as a pseudorandom
function of the row or value it orders. Only the *order* it induces is ever used; the
numbers themselves are never stored. In Python a draw uses :meth:`ReleaseKey.rng`, a
``random.Random`` seeded from the key and a purpose.

Example:
    >>> a, b = ReleaseKey.from_seed(7), ReleaseKey.from_seed(7)
    >>> a.params() == b.params() and a.seeded and ReleaseKey.fresh().params() != a.params()
    True
    >>> key = ReleaseKey.fresh()
    >>> key.secret in repr(key), key.kind
    (False, 'secret')
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass, field

#: Seeds are whole numbers in [0, 2**63): what a DuckDB BIGINT and a YAML integer both hold.
SEED_LIMIT = 2 ** 63


class Secret(str):
    """A bound value that no engine may show: its text stays out of every statement, plan and log."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Secret(...)"


@dataclass(frozen=True)
class ReleaseKey:
    """The key of one release's random draws (see the module docstring)."""

    secret: str = field(repr=False)   # 32 hex digits; never logged, audited or published (Spark: in a work table of the run)
    seeded: bool = False
    keyed: bool = False               # from a secret key text, not a public seed

    @classmethod
    def fresh(cls) -> "ReleaseKey":
        """A new secret key: 128 bits from the operating system's CSPRNG."""
        return cls(secrets.token_hex(16), False)

    @classmethod
    def from_seed(cls, seed: int) -> "ReleaseKey":
        """The reproducible key of ``seed`` (tests, experiments, paper reproductions)."""
        return cls(hashlib.sha256(f"anonymizer-seed:{int(seed)}".encode()).hexdigest()[:32], True)

    @classmethod
    def from_text(cls, text: str) -> "ReleaseKey":
        """The key of a secret key text (``algorithm.seed: {env: ...}`` or ``{file: ...}``): 128
        bits of its SHA-256, reproducible by whoever holds the text."""
        return cls(hashlib.sha256(f"anonymizer-key:{text}".encode()).hexdigest()[:32], True, True)

    @classmethod
    def for_seed(cls, seed: int | None, secret: str | None = None) -> "ReleaseKey":
        """The key of ``secret`` when given, else a fresh secret key when ``seed`` is ``None``,
        else the seed's key."""
        if secret is not None:
            return cls.from_text(secret)
        return cls.fresh() if seed is None else cls.from_seed(seed)

    @classmethod
    def of(cls, value: "ReleaseKey | int") -> "ReleaseKey":
        """``value`` if it is a key, else the key of the seed ``value`` (tests call the
        algorithms with plain seeds)."""
        return value if isinstance(value, ReleaseKey) else cls.from_seed(value)

    def params(self, **more) -> dict:
        """Bound parameters of a statement that draws: ``$key`` plus ``more``."""
        return {"key": Secret(self.secret), **more}

    def rng(self, purpose: str) -> random.Random:
        """A Python generator for ``purpose``'s draws, seeded from the key (small loops only:
        which QI GeneIR raises next, never rows)."""
        return random.Random(hashlib.sha256(f"{self.secret}:{purpose}".encode()).digest())

    @property
    def kind(self) -> str:
        """What the audit records: ``"keyed"``, ``"seeded"`` or ``"secret"``."""
        return "keyed" if self.keyed else "seeded" if self.seeded else "secret"


def key_seed(text: str) -> int:
    """The whole number in [0, 2**63) a secret key text stands for where an option asks for a
    seed (MSB's tie order): derived from the text, never stored."""
    return int.from_bytes(hashlib.sha256(f"anonymizer-seed-of:{text}".encode()).digest()[:8], "big") % SEED_LIMIT
