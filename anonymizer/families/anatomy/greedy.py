"""The greedy phases of MSB on bucket counts (paper 002, section 4; Yang et al. 2008's MSB).

Everything here works on the multi-dimensional buckets (Definition 13): one entry per
distinct composite sensitive vector with its size, never on rows. The outcome is a list
of *takes*: "records ``lo .. lo + per*m - 1`` of bucket ``bid`` go to groups ``gid ..
gid + m - 1``, ``per`` each"; :mod:`.runs` merges a bucket's takes into runs, which one
SQL statement turns into a row -> group table.

Paper 002's listings (Algorithms 1 to 3) are images that did not survive; the steps below
are rebuilt from its sections 3 and 4 and its account of Yang et al.'s MSB. Each choice
the text leaves open is marked *choice*.

Grouping phase (section 4, "The basic idea of ..."):

1. Pick the first record of a group: among non-empty buckets, the one with the highest
   security level (MSLF variants only; a bucket's level is the highest level of its
   values), then the largest key: its size (MBF), ``max_j Capa(s_j) + size`` (MSDCF,
   Eq. 1) or ``sum_j Capa(s_j) + size`` (MMDCF, Eq. 2). Ties go to the bucket first in
   the tie order (*choice*: a keyed hash of the sensitive vector when the release is
   seeded, else the vector's own sort order; see :mod:`.buckets`).
2. The group's target size is ``l_G``: the ``l`` of the first record's highest security
   level (MSLF: the first pick has the highest level of all remaining records, so no later
   pick raises it), or the uniform ``l`` (baselines, Definitions 7 and 8).
3. Take one record from that bucket (its size and the capacities of its values drop by
   one), then *shield* every bucket that cannot join: a value ``v`` of level ``s`` may
   appear at most ``floor(l_G / l_s)`` times in a group of ``l_G`` records, which is
   Definition 10 at the final size (for the baselines: once, so that the ``l`` records
   carry ``l`` different values on every dimension, as MSB requires).
4. Pick the next record the same way among unshielded non-empty buckets, with keys
   recomputed on the updated counts, until the group has ``l_G`` records.
5. If no bucket is left before the group is complete, the group cannot be formed: its
   records go back. *Choice*: the issue's wording is "repeat until no complete group can
   be formed", so the failed first bucket is barred from *starting* a group (it may still
   join one) and the phase goes on with the next start; it ends when no start is left.

Residual phase: every remaining record, bucket by bucket in the same priority order, joins
the first formed group (in formation order, *choice*) it can join without breaking
Definition 10 (or Definition 7 for the baselines) at the group's new size. Records no group
can take are suppressed (Definition 15).

Batching. A group formed from the same picks as the previous one is taken ``m`` times in
one step. ``batch="exact"`` takes the largest ``m`` for which the one-at-a-time greedy
provably makes the same picks again: every key falls linearly with the repetitions
(the chosen buckets by their multiplicity, capacities by the group's value counts), so
the gap between each pick and its best competitor bounds ``m`` (for MSDCF's ``max``, by a
linear bound on either side). The result is exactly the one-at-a-time greedy's. Its work
grows with the number of groups where keys tie: MBF drives the largest buckets to equal
sizes and then cycles through them one group at a time, so the loop can run about ``n/l``
times. ``batch=f`` (a fraction, the default 0.2) also takes at least ``f`` of the smallest
chosen bucket in one step: every group is still built by the greedy's rule and is diverse,
only the order of later picks may differ. A bucket then empties in ``O(log(size)/f)``
steps, so the loop's work grows with the number of buckets times ``log n``, not with ``n``.

Where it runs. The loop is sequential (each group depends on the counts the previous one
left) and, in exact mode, runs about ``n / l`` times; :mod:`.grouping` and :mod:`.residual`
run both phases compiled (numba) on the bucket arrays, never on rows, and visit only the
buckets near the top of the priority order, so a group costs microseconds. Python only
prepares the arrays (:func:`run_greedy`) and reads the takes back as one record array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonymizer.families.anatomy import grouping as phase
from anonymizer.families.anatomy.residual import residual

POLICIES = ("mbf", "msdcf", "mmdcf")


@dataclass
class Buckets:
    """The multi-dimensional buckets of a table (Definition 13), as arrays over buckets.

    Attributes:
        vals: ``(B, d)`` value code of each bucket on each dimension (``0..|D(S_j)|-1``).
        lval: ``(B, d)`` the ``l`` each value demands (``l`` of its security level).
        level: ``(B,)`` the bucket's security level (highest of its values).
        size: ``(B,)`` records in the bucket.
        tie: ``(B,)`` the tie order, ``0`` first.
        domain: ``|D(S_j)|`` per dimension.
    """

    vals: np.ndarray
    lval: np.ndarray
    level: np.ndarray
    size: np.ndarray
    tie: np.ndarray
    domain: list[int]

    @property
    def d(self) -> int:
        return self.vals.shape[1]

    def capacities(self, size: np.ndarray | None = None) -> list[np.ndarray]:
        """``Capa`` of every value on every dimension (Definition 13) for bucket sizes ``size``."""
        size = self.size if size is None else size
        return [np.bincount(self.vals[:, j], weights=size, minlength=self.domain[j]).astype(np.int64)
                for j in range(self.d)]


@dataclass
class Outcome:
    """What the greedy did: the takes, the groups, and how much work it took.

    ``takes`` is a record array with fields ``bid, lo, per, gid, m``: records ``lo .. lo +
    per*m - 1`` of bucket ``bid`` go to groups ``gid .. gid + m - 1``, ``per`` each."""

    takes: np.recarray
    groups: int = 0
    grouped: int = 0          # records placed by the grouping phase
    residual_added: int = 0   # records the residual phase added to formed groups
    suppressed: int = 0
    iterations: int = 0       # groups built by the loop (each taken m times)
    failures: int = 0         # starts that could not complete a group
    residual_steps: int = 0
    scanned: int = 0          # buckets the grouping phase's scans visited
    sorts: int = 0            # times it sorted the buckets by their scores


def run_greedy(buckets: Buckets, policy: str, mslf: bool, batch: str | float = 0.2, *,
               resort: int = phase.RESORT) -> Outcome:
    """Both phases of one MSB variant over ``buckets`` (see the module docstring).

    Args:
        policy: ``mbf``, ``msdcf`` or ``mmdcf`` (the key of step 1).
        mslf: maximal security-level first (paper 002's variants).
        batch: ``"exact"`` or a fraction in (0, 1] (see "Batching" above).
        resort: when the scans re-sort the buckets (:data:`.grouping.RESORT`); the groups
            are the same for any value.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}")
    b = buckets
    code = POLICIES.index(policy)
    fraction = 0.0 if batch == "exact" else float(batch)
    n_b = len(b.size)
    size = b.size.astype(np.int64).copy()
    offsets = np.concatenate([[0], np.cumsum(b.domain)]).astype(np.int64)
    cols = (b.vals + offsets[:-1]).astype(np.int64)                # (B, d) value columns
    capa = np.concatenate(b.capacities()).astype(np.int64)
    l_of = np.zeros(offsets[-1], np.int64)
    l_of[cols] = b.lval
    #: keys never exceed this, so the level dominates the key and the key the tie order
    key_span = int(size.sum()) * (b.d + 1) + 1
    tie_part = (n_b - 1 - b.tie).astype(np.int64)
    level_part = b.level.astype(np.int64) * key_span if mslf else np.zeros(n_b, np.int64)
    lval = b.lval.astype(np.int64)
    taken = np.zeros(n_b, np.int64)
    (takes, n_takes, batches, counts, n_batches, groups, grouped, iterations, failures, scanned, sorts,
     order) = phase.grouping(
        code, fraction, resort, cols, lval, l_of, level_part, tie_part, size, capa, taken)
    takes, n_takes, added, steps = residual(order, cols, lval, l_of, size, taken, takes, n_takes, batches, counts,
                                            n_batches)
    t = takes[:n_takes]
    # formats=None is the default (each array's own dtype); numpy's stub takes names= only beside formats=
    table = np.rec.fromarrays([t[:, i] for i in range(5)], formats=None, names="bid,lo,per,gid,m")
    return Outcome(table, int(groups),
                   int(grouped), int(added), int(size.sum()), int(iterations), int(failures), int(steps),
                   int(scanned), int(sorts))


def warm() -> None:
    """Compile (or load from numba's cache) both phases before anything is timed: the first
    run on a machine compiles them, about 20 s; later runs load them in well under a second."""
    one = np.ones((2, 1), np.int64)
    run_greedy(Buckets(np.array([[0], [1]], np.int64), one, np.zeros(2, np.int64), np.ones(2, np.int64),
                       np.arange(2, dtype=np.int64), [2]), "mbf", False, "exact")
