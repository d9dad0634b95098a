"""MSB's residual phase (paper 002, section 4; see :mod:`anonymizer.families.anatomy.greedy`),
compiled with numba like :mod:`.grouping`, on the same arrays.

Every record left after the grouping phase, bucket by bucket in the greedy's priority order,
joins the first formed group (in formation order, gid) that can take it without breaking
Definition 10 (Definition 7 for the baselines) at the group's new size; records no group can
take are suppressed (Definition 15). Groups are held as *batches* of ``m`` equal groups with
consecutive gids, linked in gid order; when a bucket's records fill only part of a batch, the
batch splits in place into up to three (the groups that took ``q`` records each, one group that
took the rest, the untouched groups), so one walk along the links visits the groups in gid
order. Each batch keeps one bit per value, set while a group of it can take one more record
holding that value (``(count + 1) * l <= size + 1``), so the walk tests a batch with a few
bit operations, and a bucket holding a value no batch can take skips the walk.

numba caches each module's compiled code by that module's source alone: after editing
:func:`.grouping.room` or :func:`.grouping.take`, delete this package's ``__pycache__``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from anonymizer.families.anatomy.grouping import room, take

ONE = uint64(1)


@njit(cache=True)
def absorb(size, have, lv, r):
    """How many records of one bucket a group takes in a row: the largest ``q <= r`` with
    ``(have_j + q) * l_j <= size + q`` on every dimension (Definition 10 after adding)."""
    q = r
    for j in range(lv.shape[0]):
        if lv[j] > 1:
            q = min(q, (size - have[j] * lv[j]) // (lv[j] - 1))
    return max(q, 1)


@njit(cache=True)
def fits(ok, okn, bcounts, batches, l_of, k):
    """Set batch ``k``'s bits: value ``col`` may be added to its groups once more; ``okn[col]``
    counts the batches whose bit ``col`` is set."""
    for col in range(l_of.shape[0]):
        x = ONE << uint64(col & 63)
        was = ok[k, col >> 6] & x != 0
        now = (bcounts[k, col] + 1) * l_of[col] <= batches[k, 2] + 1
        if was != now:
            ok[k, col >> 6] ^= x
            okn[col] += 1 if now else -1


@njit(cache=True)
def residual(order, cols, lval, l_of, size, taken, takes, n_takes, batches, bcounts, n_batches):
    """Add what is left to formed groups, buckets in ``order``; returns ``(takes, n_takes,
    added, steps)`` and leaves the suppressed records in ``size``."""
    d = cols.shape[1]
    added = steps = 0
    if n_batches == 0:
        return takes, n_takes, added, steps
    nxt = np.full(batches.shape[0], -1, np.int64)   # the batches in gid order: a linked list
    for i in range(n_batches - 1):
        nxt[i] = i + 1
    ok = np.zeros((batches.shape[0], (l_of.shape[0] + 63) >> 6), np.uint64)
    okn = np.zeros(l_of.shape[0], np.int64)
    for i in range(n_batches):
        fits(ok, okn, bcounts, batches, l_of, i)
    have = np.empty(d, np.int64)
    for c in order:
        r = size[c]
        lv = lval[c]
        at = cols[c]
        i = 0
        for j in range(d):
            if okn[at[j]] == 0:     # no group can take this value once more: no walk
                i = -1
        while r > 0 and i >= 0:
            can = True
            for j in range(d):
                can = can and (ok[i, at[j] >> 6] >> uint64(at[j] & 63)) & ONE != 0
            if can:
                steps += 1
                for j in range(d):
                    have[j] = bcounts[i, at[j]]
                q = absorb(batches[i, 2], have, lv, r)
                start, m, bsize = batches[i, 0], batches[i, 1], batches[i, 2]
                whole = min(m, r // q)
                part = r - q * whole if whole < m else 0     # then < q: the next group takes it all
                if whole > 0:
                    takes, n_takes = take(takes, n_takes, c, taken[c], q, start, whole)
                    taken[c] += q * whole
                if part > 0:
                    takes, n_takes = take(takes, n_takes, c, taken[c], part, start + whole, 1)
                    taken[c] += part
                r -= q * whole + part
                # the batch becomes up to three, in gid order: `whole` groups that took q, one
                # group that took `part`, and the untouched rest (then r is 0: the walk ends)
                prev = -1
                for n, add in ((whole, q), (1 if part > 0 else 0, part), (m - whole - (1 if part > 0 else 0), 0)):
                    if n == 0:
                        continue
                    k = i
                    if prev >= 0:       # a new batch right after the previous piece
                        batches = room(batches, n_batches)
                        bcounts = room(bcounts, n_batches)
                        ok = room(ok, n_batches)
                        nxt = _grow(nxt, n_batches)
                        k = n_batches
                        n_batches += 1
                        bcounts[k] = bcounts[i]
                        nxt[k], nxt[prev] = nxt[prev], k
                    batches[k, 0], batches[k, 1], batches[k, 2] = start, n, bsize + add
                    for j in range(d):
                        bcounts[k, at[j]] = have[j] + add
                    fits(ok, okn, bcounts, batches, l_of, k)
                    start += n
                    prev = k
            i = nxt[i]
        added += size[c] - r
        size[c] = r
    return takes, n_takes, added, steps


@njit(cache=True)
def _grow(a, n):
    """The 1-d link array with room for index ``n`` (new entries -1)."""
    if n < a.shape[0]:
        return a
    b = np.full(2 * a.shape[0], -1, np.int64)
    b[:a.shape[0]] = a
    return b
