"""The greedy phases of MSB on bucket counts (paper 002, section 4; Yang et al. 2008's MSB).

Everything here works on the multi-dimensional buckets (Definition 13): one entry per
distinct composite sensitive vector with its size, never on rows. The outcome is a list
of *takes*: "records ``lo .. lo + per*m - 1`` of bucket ``bid`` go to groups ``gid ..
gid + m - 1``, ``per`` each", which one SQL statement turns into a row -> group table.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

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


@dataclass(frozen=True)
class Take:
    """Records ``lo .. lo + per*m - 1`` of bucket ``bid`` go to groups ``gid .. gid+m-1``, ``per`` each."""

    bid: int
    lo: int
    per: int
    gid: int
    m: int


@dataclass
class Outcome:
    """What the greedy did: the takes, the groups, and how much work it took."""

    takes: list[Take] = field(default_factory=list)
    groups: int = 0
    grouped: int = 0          # records placed by the grouping phase
    residual_added: int = 0   # records the residual phase added to formed groups
    suppressed: int = 0
    iterations: int = 0       # groups built by the loop (each taken m times)
    failures: int = 0         # starts that could not complete a group
    residual_steps: int = 0


class Greedy:
    """One run of MBF / MSDCF / MMDCF, with or without MSLF, over ``buckets``.

    Args:
        policy: ``mbf``, ``msdcf`` or ``mmdcf`` (the key of step 1).
        mslf: maximal security-level first (paper 002's variants).
        batch: ``"exact"`` or a fraction in (0, 1] (see the module docstring).
    """

    def __init__(self, buckets: Buckets, policy: str, mslf: bool, batch: str | float = 0.2):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}")
        self.b = buckets
        self.policy, self.mslf = policy, mslf
        self.fraction = 0.0 if batch == "exact" else float(batch)
        self.size = buckets.size.astype(np.int64).copy()
        self.capa = buckets.capacities()
        self.taken = np.zeros_like(self.size)        # records of each bucket already handed out
        n_b = len(self.size)
        self.n_b = n_b
        #: keys never exceed this, so the level dominates the key and the key the tie order
        self.key_span = int(self.size.sum()) * (buckets.d + 1) + 1
        self.tie_part = (n_b - 1 - buckets.tie).astype(np.int64)
        self.level_part = buckets.level.astype(np.int64) * self.key_span if mslf else np.zeros(n_b, np.int64)
        self.out = Outcome()
        # formed batches: first gid, groups, size of each group, value counts of each group
        self.batch_gid: list[int] = []
        self.batch_m: list[int] = []
        self.batch_size: list[int] = []
        self.batch_counts: list[np.ndarray] = []    # each: concatenated per-dimension counts
        self.offsets = np.concatenate([[0], np.cumsum(buckets.domain)]).astype(np.int64)
        # per dimension: the l of each value, and the buckets holding each value (for shielding)
        self.l_of = []
        self.holding = []
        for j in range(buckets.d):
            l_of = np.zeros(buckets.domain[j], np.int64)
            l_of[buckets.vals[:, j]] = buckets.lval[:, j]
            self.l_of.append(l_of)
            order = np.argsort(buckets.vals[:, j], kind="stable")
            bounds = np.searchsorted(buckets.vals[order, j], np.arange(buckets.domain[j] + 1))
            self.holding.append([order[bounds[v]:bounds[v + 1]] for v in range(buckets.domain[j])])

    # -- keys -----------------------------------------------------------------------
    def key(self, size: np.ndarray, capa: list[np.ndarray]) -> np.ndarray:
        """Step 1's key: size (MBF), Eq. 1's selectivity (MSDCF) or Eq. 2's (MMDCF)."""
        if self.policy == "mbf":
            return size
        per_dim = np.stack([capa[j][self.b.vals[:, j]] for j in range(self.b.d)], axis=1)
        return (per_dim.max(axis=1) if self.policy == "msdcf" else per_dim.sum(axis=1)) + size

    def score(self, size: np.ndarray, capa: list[np.ndarray]) -> np.ndarray:
        """One integer ordering (level, key, tie order): the argmax is the greedy's pick."""
        return (self.level_part + self.key(size, capa)) * self.n_b + self.tie_part

    # -- grouping phase -------------------------------------------------------------
    def grouping(self) -> None:
        barred = np.zeros(self.n_b, bool)
        while True:
            first_ok = (self.size > 0) & ~barred
            if not first_ok.any():
                return
            formed = self._form(first_ok)
            self.out.iterations += 1
            if formed is None:
                barred[self._last_first] = True
                self.out.failures += 1
                continue
            picks, m = formed
            self._commit(picks, m)

    def _form(self, first_ok: np.ndarray):
        """Build one group by steps 1 to 4; return (picks, repeat count) or ``None``."""
        b = self.b
        size = self.size.copy()
        capa = self.capa if self.policy == "mbf" else [c.copy() for c in self.capa]
        counts = [np.zeros(n, np.int64) for n in b.domain]
        steps = []          # (pick, score vector, eligible mask) per step
        eligible = first_ok
        score = self.score(size, capa)
        pick = int(np.argmax(np.where(eligible, score, -1)))
        self._last_first = pick
        lg = int(b.lval[pick].max())
        # a value whose l exceeds l_G may not appear even once ((0 + 1) * l > l_G): shielded from the start
        shield = (b.lval > lg).any(axis=1)
        while True:
            steps.append((pick, score, eligible))
            size[pick] -= 1
            for j in range(b.d):
                v = b.vals[pick, j]
                counts[j][v] += 1
                if self.policy != "mbf":
                    capa[j][v] -= 1
                # shield (step 3): a value of level s may appear floor(l_G / l_s) times in the group
                if (counts[j][v] + 1) * self.l_of[j][v] > lg:
                    shield[self.holding[j][v]] = True
            if len(steps) == lg:
                break
            eligible = (size > 0) & ~shield
            if not eligible.any():
                return None
            score = self._rescore(score, pick, size, capa)
            pick = int(np.argmax(np.where(eligible, score, -1)))
        picks = [s[0] for s in steps]
        return picks, self._repeats(steps, picks, counts)

    def _rescore(self, score: np.ndarray, pick: int, size: np.ndarray, capa: list[np.ndarray]) -> np.ndarray:
        """The scores after one record of ``pick`` was taken: only buckets sharing one of its
        values move (MBF: ``pick`` alone, by 1; MMDCF: by the number of shared values)."""
        score = score.copy()
        if self.policy == "mbf":
            score[pick] -= self.n_b
        elif self.policy == "mmdcf":
            score[pick] -= self.n_b
            for j in range(self.b.d):
                score[self.holding[j][self.b.vals[pick, j]]] -= self.n_b
        else:
            moved = np.unique(np.concatenate([self.holding[j][self.b.vals[pick, j]] for j in range(self.b.d)]))
            per_dim = np.stack([capa[j][self.b.vals[moved, j]] for j in range(self.b.d)], axis=1)
            key = per_dim.max(axis=1) + size[moved]
            score[moved] = (self.level_part[moved] + key) * self.n_b + self.tie_part[moved]
        return score

    def _repeats(self, steps, picks, counts) -> int:
        """How many times to take this group (see "Batching" in the module docstring)."""
        b = self.b
        per = {}
        for c in picks:
            per[c] = per.get(c, 0) + 1
        cap = min(int(self.size[c]) // k for c, k in per.items())       # buckets must not run dry
        floor = 1
        if self.fraction > 0:
            floor = min(cap, math.ceil(self.fraction * min(int(self.size[c]) / k for c, k in per.items())))
            if floor >= cap:
                return max(1, cap)
        mult = np.zeros(self.n_b, np.int64)
        for c, k in per.items():
            mult[c] = k
        m = cap
        # per-repetition fall of every bucket's key: lower and upper bounds
        if self.policy == "mbf":
            fall_lo = fall_hi = mult
        else:
            per_dim = np.stack([counts[j][b.vals[:, j]] for j in range(b.d)], axis=1)
            if self.policy == "mmdcf":
                fall_lo = fall_hi = per_dim.sum(axis=1) + mult
            else:
                fall_lo = per_dim.min(axis=1) + mult
                fall_hi = None     # depends on the step: the dimension holding the max
        earlier = [dict() for _ in range(b.d)]    # values taken by the group's earlier picks
        for pick, score, eligible in steps:
            if fall_hi is None:   # MSDCF: the pick's key falls at most as fast as its largest capacity
                cap_now = [self.capa[j][b.vals[pick, j]] - earlier[j].get(b.vals[pick, j], 0) for j in range(b.d)]
                jstar = int(np.argmax(cap_now))
                fall_c = counts[jstar][b.vals[pick, jstar]] + mult[pick]
                for j in range(b.d):
                    earlier[j][b.vals[pick, j]] = earlier[j].get(b.vals[pick, j], 0) + 1
            else:
                fall_c = fall_hi[pick]
            others = eligible.copy()
            others[pick] = False
            faster = others & (fall_c > fall_lo)
            if faster.any():
                gap = score[pick] - score[faster]
                rate = (fall_c - fall_lo[faster]) * self.n_b
                m = min(m, int((-(-gap // rate)).min()))
        return max(1, floor, m)

    def _commit(self, picks: list[int], m: int) -> None:
        b = self.b
        gid = self.out.groups
        mult = np.bincount(picks, minlength=self.n_b).astype(np.int64)
        counts = np.zeros(self.offsets[-1], np.int64)
        for c in np.nonzero(mult)[0]:
            per = int(mult[c])
            self.out.takes.append(Take(int(c), int(self.taken[c]), per, gid, m))
            self.taken[c] += per * m
            self.size[c] -= per * m
            for j in range(b.d):
                self.capa[j][b.vals[c, j]] -= per * m
                counts[self.offsets[j] + b.vals[c, j]] += per
        self.batch_gid.append(gid)
        self.batch_m.append(m)
        self.batch_size.append(len(picks))
        self.batch_counts.append(counts)
        self.out.groups += m
        self.out.grouped += len(picks) * m

    # -- residual phase -------------------------------------------------------------
    def residual(self) -> None:
        """Add what is left to formed groups without breaking diversity; suppress the rest."""
        b = self.b
        if not self.batch_gid:
            self.out.suppressed = int(self.size.sum())
            return
        gid = np.array(self.batch_gid, np.int64)
        bm = np.array(self.batch_m, np.int64)
        bsize = np.array(self.batch_size, np.int64)
        bcount = np.stack(self.batch_counts)
        score = self.score(self.size, self.capa)
        for c in np.argsort(-score, kind="stable"):
            r = int(self.size[c])
            if r == 0:
                continue
            cols = self.offsets[:-1] + b.vals[c]
            lv = b.lval[c]
            # batches whose groups can take a record of c, in formation order; a batch that
            # takes records never takes another of c (q below is the most it can), and pieces
            # split off a batch come after it, so one pass over this list is the whole walk
            accept = ((bcount[:, cols] + 1) * lv <= (bsize + 1)[:, None]).all(axis=1)
            idx = np.nonzero(accept)[0]
            new_rows = []
            for i in idx[np.argsort(gid[idx], kind="stable")]:
                if r == 0:
                    break
                self.out.residual_steps += 1
                q = self._absorb(int(bsize[i]), bcount[i, cols], lv, r)
                m = int(bm[i])
                whole = min(m, r // q)
                part = r - q * whole if whole < m else 0     # then < q: the next group takes it all
                start = int(gid[i])
                if whole:
                    self.out.takes.append(Take(int(c), int(self.taken[c]), q, start, whole))
                    self.taken[c] += q * whole
                if part:
                    self.out.takes.append(Take(int(c), int(self.taken[c]), part, start + whole, 1))
                    self.taken[c] += part
                r -= q * whole + part
                # batch i becomes up to three, in gid order: `whole` groups that took q, one
                # group that took `part`, and the untouched rest
                pieces = [(n, add) for n, add in ((whole, q), (int(part > 0), part), (m - whole - int(part > 0), 0))
                          if n > 0]
                old = bcount[i].copy()
                for k, (n, add) in enumerate(pieces):
                    row = old.copy()
                    row[cols] += add
                    if k == 0:
                        gid[i], bm[i], bsize[i], bcount[i] = start, n, bsize[i] + add, row
                    else:
                        new_rows.append((start, n, int(bsize[i]) - pieces[0][1] + add, row))
                    start += n
            if new_rows:
                gid = np.concatenate([gid, [x[0] for x in new_rows]])
                bm = np.concatenate([bm, [x[1] for x in new_rows]])
                bsize = np.concatenate([bsize, [x[2] for x in new_rows]])
                bcount = np.vstack([bcount, np.stack([x[3] for x in new_rows])])
            self.out.residual_added += int(self.size[c]) - r
            self.size[c] = r
        self.out.suppressed = int(self.size.sum())

    @staticmethod
    def _absorb(size: int, have: np.ndarray, lv: np.ndarray, r: int) -> int:
        """How many records of one bucket a group takes in a row: the largest ``q`` with
        ``(have_j + q) * l_j <= size + q`` on every dimension (Definition 10 after adding)."""
        q = r
        for h, l in zip(have.tolist(), lv.tolist()):
            if l > 1:
                q = min(q, (size - h * l) // (l - 1))
        return max(q, 1)


def run_greedy(buckets: Buckets, policy: str, mslf: bool, batch: str | float = 0.2) -> Outcome:
    """Both phases of one MSB variant over ``buckets`` (see the module docstring)."""
    g = Greedy(buckets, policy, mslf, batch)
    g.grouping()
    g.residual()
    return g.out
