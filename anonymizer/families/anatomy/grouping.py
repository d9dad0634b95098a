"""MSB's grouping phase (paper 002, section 4; steps 1 to 5 and "Batching" of
:mod:`anonymizer.families.anatomy.greedy`'s docstring), compiled with numba.

The loop runs on the bucket counts (Definition 13), never on rows, but one iteration forms
one group (or ``m`` equal ones), and the exact greedy's groups cannot be batched where keys
tie: MBF drives the largest buckets to equal sizes and then goes round them one group at a
time, so the loop runs about ``n / l`` times. Each group depends on the counts the previous
one left, so the groups cannot be formed set-wise in SQL either, and a ``WITH RECURSIVE ...
USING KEY`` statement over the bucket state pays a fixed cost per iteration that grows into
hours at 10M rows (README, "Measurements behind the constants"). Compiled, an iteration's work is ``O(l_G * B)`` for ``B`` buckets,
whatever the number of rows.

Arrays (``B`` buckets, ``d`` dimensions, ``V`` = the sum of the domains; each value of each
dimension is one *column* ``0 .. V-1``):

- ``cols (B, d)``: each bucket's values as columns; ``l_of (V,)``: the ``l`` each value demands;
- ``size (B,)``, ``capa (V,)``, ``taken (B,)``: updated in place as groups are committed;
- ``level_part``, ``tie_part``: the MSLF level and the tie order as parts of one integer score.

No score is kept per bucket. A bucket's score at any moment is computed from the committed
counts less the records the group being formed has taken (:func:`score`), and the scans
visit the buckets in the order of an *upper bound* of their scores: the scores as they were
at the last sort. Sizes and capacities only fall in this phase, so no score
ever rises above its bound, and a scan stops at the first bucket whose bound cannot beat
what it has found. Shielded, empty and barred buckets are skipped by bit sets over that
order (:func:`index`), and the order is re-sorted when the scans' work since the last sort exceeds
:data:`RESORT` times the number of buckets. The picks are exactly the argmaxes the module
docstring describes, at a cost that follows the buckets near the top, not ``B``.

Outputs: the takes as rows ``(bid, lo, per, gid, m)`` and the formed batches as rows
``(gid, m, size)`` with their value counts ``(V,)``, for the residual phase.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, uint64

MBF, MSDCF, MMDCF = 0, 1, 2
#: the scans re-sort the buckets when their work since the last sort exceeds this many times B
#: (any value gives the same groups; why 8: README, "Measurements behind the constants")
RESORT = 8


# -- the buckets in score order, with bit sets over that order ------------------------------
# Bit p stands for the bucket at position p of `order` (sorted by their scores at the last
# sort, highest first). holders[col]: the buckets holding value col; above[L]: those whose
# values demand more than l = L; alive: the non-empty ones; starts: those not barred. A
# shielded set is a few word-wise ORs, and a scan visits only the set bits of what is left,
# in score order (first_set). `alive` and `starts` may be stale in one direction only (a bucket
# in them may since have emptied or been barred; the scans check each bucket), never the reverse.
ONE = uint64(1)
ZERO = uint64(0)
#: de Bruijn multiplier and table: the index of a word's lowest set bit without a loop
DEBRUIJN = uint64(0x03F79D71B4CB0A89)
LOWEST = np.array([0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45,
                   39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46,
                   26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], np.int64)


@njit(cache=True)
def bit(p):
    return ONE << uint64(p & 63)


@njit(cache=True)
def lowest(x):
    """The index of the lowest set bit of the non-zero word ``x``."""
    return LOWEST[((x & (~x + ONE)) * DEBRUIJN) >> uint64(58)]


@njit(cache=True)
def index(order, n, cols, lvmax, barred, pos, holders, above, alive, starts):
    """Rebuild the bit sets for the first ``n`` buckets of ``order``; ``pos[b]`` = position."""
    words = (n + 63) >> 6
    holders[:, :words] = ZERO
    above[:, :words] = ZERO
    alive[:words] = ZERO
    starts[:words] = ZERO
    for p in range(n):
        b = order[p]
        pos[b] = p
        w, x = p >> 6, bit(p)
        for j in range(cols.shape[1]):
            holders[cols[b, j], w] |= x
        for lv in range(lvmax[b]):
            above[lv, w] |= x
        alive[w] |= x
        if not barred[b]:
            starts[w] |= x
    return words


@njit(cache=True)
def drop(bits, p):
    """Clear position ``p`` (a bucket emptied or barred)."""
    bits[p >> 6] &= ~bit(p)


@njit(cache=True)
def first_set(bits, words, p):
    """The first set position at or after ``p``, or -1."""
    w = p >> 6
    if w >= words:
        return -1
    x = bits[w] & ~((bit(p) - ONE))
    while x == ZERO:
        w += 1
        if w >= words:
            return -1
        x = bits[w]
    return (w << 6) + lowest(x)


@njit(cache=True)
def room(a, n):
    """``a`` (2-d) with at least ``n + 1`` rows: doubled and copied when full."""
    if n < a.shape[0]:
        return a
    b = np.zeros((2 * a.shape[0], a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def take(takes, n_takes, bid, lo, per, gid, m):
    """Append the take "records ``lo ..`` of ``bid``, ``per`` to each of groups ``gid .. gid + m - 1``"."""
    takes = room(takes, n_takes)
    takes[n_takes, 0], takes[n_takes, 1], takes[n_takes, 2], takes[n_takes, 3], takes[n_takes, 4] = bid, lo, per, gid, m
    return takes, n_takes + 1


@njit(cache=True)
def score(policy, b, fx, size, capa, run, pb):
    """Bucket ``b``'s score (level, key, tie order: the greedy picks the highest) when the group
    being formed holds ``run`` (value counts) and ``pb`` records of ``b``. The key is step 1's:
    size (MBF), Eq. 1's ``max_j Capa + size`` (MSDCF) or Eq. 2's ``sum_j Capa + size`` (MMDCF)."""
    cols, _, _, level_part, tie_part = fx
    k = size[b] - pb
    if policy != MBF:
        agg = capa[cols[b, 0]] - run[cols[b, 0]]
        for j in range(1, cols.shape[1]):
            c = capa[cols[b, j]] - run[cols[b, j]]
            agg = max(agg, c) if policy == MSDCF else agg + c
        k += agg
    return (level_part[b] + k) * size.shape[0] + tie_part[b]


@njit(cache=True)
def eligible(b, t, fx, size, barred, run, pb, lg):
    """May ``b`` be pick ``t`` of a group of ``l_G = lg`` holding ``run``? Step 1 (``t = 0``): a
    start (non-empty, not barred). Steps 3 and 4: a record left, and no value shielded: a value
    of ``l_s`` may appear ``floor(l_G / l_s)`` times, so it may join while ``(count + 1) * l_s
    <= l_G`` (a value with ``l_s > l_G`` never)."""
    cols, l_of, lvmax, _, _ = fx
    if t == 0:
        return size[b] > 0 and not barred[b]
    if size[b] - pb <= 0 or lvmax[b] > lg:
        return False
    for j in range(cols.shape[1]):
        if (run[cols[b, j]] + 1) * l_of[cols[b, j]] > lg:
            return False
    return True


@njit(cache=True)
def taken_of(b, picks, t):
    """Records of ``b`` among the first ``t`` picks."""
    n = 0
    for i in range(t):
        n += picks[i] == b
    return n


@njit(cache=True)
def sort(policy, fx, size, capa, barred, run, ix, n_ord):
    """Sort the non-empty buckets among the first ``n_ord`` of ``order`` by their scores now
    (``ub``, the bounds) and index them (:func:`index`); returns ``(buckets, words)``. The
    order is nearly sorted already (only the buckets picked since the last sort have moved),
    so an insertion sort does it in about ``B`` steps plus the moves."""
    order, ub, pos, holders, above, alive, starts = ix
    n = 0
    for p in range(n_ord):
        b = order[p]
        if size[b] > 0:
            ub[b] = score(policy, b, fx, size, capa, run, 0)
            order[n] = b
            n += 1
    for i in range(1, n):
        b = order[i]
        j = i - 1
        while j >= 0 and ub[order[j]] < ub[b]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = b
    return n, index(order, n, fx[0], fx[2], barred, pos, holders, above, alive, starts)


@njit(cache=True)
def grouping(policy, fraction, resort, cols, lval, l_of, level_part, tie_part, size, capa, taken):
    """The grouping phase: form groups until no bucket can start one (steps 1 to 5), re-sorting
    the buckets when the scans' work since the last sort exceeds ``resort`` times their number.

    Returns ``(takes, n_takes, batches, counts, n_batches, groups, grouped, iterations,
    failures, scanned, sorts, order)`` (``scanned``: buckets the scans visited; ``order``: the
    buckets by priority on the counts left, for the residual phase); ``size``, ``capa``
    and ``taken`` are left as the residual phase finds them."""
    n_b, d = cols.shape
    n_v = l_of.shape[0]
    lvmax = np.empty(n_b, np.int64)
    for b in range(n_b):
        lvmax[b] = lval[b].max()
    lmax = max(1, lvmax.max())
    fx = (cols, l_of, lvmax, level_part, tie_part)
    words = (n_b + 63) >> 6
    ix = (np.zeros(n_b, np.int64), np.zeros(n_b, np.int64), np.zeros(n_b, np.int64),
          np.zeros((n_v, words), np.uint64), np.zeros((lmax + 1, words), np.uint64), np.zeros(words, np.uint64),
          np.zeros(words, np.uint64))
    masks = np.zeros((lmax, words), np.uint64)     # who may be pick t of the group being formed
    picks = np.zeros(lmax, np.int64)
    counts = np.zeros(n_v, np.int64)
    run = np.zeros(n_v, np.int64)
    barred = np.zeros(n_b, np.bool_)
    mult = np.zeros(n_b, np.int64)
    takes = np.zeros((1024, 5), np.int64)
    batches = np.zeros((1024, 3), np.int64)
    bcounts = np.zeros((1024, n_v), np.int32)
    n_takes = n_batches = groups = grouped = iterations = failures = 0
    for b in range(n_b):
        ix[0][b] = b
    n_ord, words = sort(policy, fx, size, capa, barred, run, ix, n_b)
    work = scanned = 0
    sorts = 1
    while True:
        if work > resort * n_ord:
            n_ord, words = sort(policy, fx, size, capa, barred, run, ix, n_ord)
            scanned += work
            work = 0
            sorts += 1
        n_steps, work = form(policy, fx, size, capa, barred, ix, words, masks, counts, picks, work)
        if n_steps < 0:
            break
        iterations += 1
        if n_steps == 0:
            barred[picks[0]] = True
            drop(ix[6], ix[2][picks[0]])
            failures += 1
            continue
        m, work = repeats(policy, fraction, fx, size, capa, barred, ix, words, masks, counts, run, picks, n_steps,
                          mult, work)
        # commit (step 4 done m times): a take per bucket picked, then the batch
        batches = room(batches, n_batches)
        bcounts = room(bcounts, n_batches)
        for t in range(n_steps):
            c = picks[t]
            per = mult[c]
            if per == 0:     # a bucket picked more than once: committed at its first pick
                continue
            takes, n_takes = take(takes, n_takes, c, taken[c], per, groups, m)
            taken[c] += per * m
            size[c] -= per * m
            for j in range(d):
                capa[cols[c, j]] -= per * m
                bcounts[n_batches, cols[c, j]] += per
            mult[c] = 0
            if size[c] == 0:
                drop(ix[5], ix[2][c])
                drop(ix[6], ix[2][c])
        batches[n_batches, 0], batches[n_batches, 1], batches[n_batches, 2] = groups, m, n_steps
        n_batches += 1
        groups += m
        grouped += n_steps * m
    final = np.empty(n_b, np.int64)     # the residual phase's bucket order: the same priority
    for b in range(n_b):
        final[b] = -score(policy, b, fx, size, capa, run, 0)
    return (takes, n_takes, batches, bcounts, n_batches, groups, grouped, iterations, failures, scanned + work, sorts,
            np.argsort(final))


@njit(cache=True)
def best(policy, t, fx, size, capa, barred, ix, mask, words, run, picks, lg, work):
    """Step 1 (``t = 0``) or step 4: the eligible bucket with the highest score, or -1."""
    order, ub = ix[0], ix[1]
    pick, top = -1, -1
    p = first_set(mask, words, 0)
    while p >= 0:
        b = order[p]
        if ub[b] <= top:
            break
        work += 1
        pb = taken_of(b, picks, t)
        if eligible(b, t, fx, size, barred, run, pb, lg):
            s = score(policy, b, fx, size, capa, run, pb)
            if s > top:
                pick, top = b, s
        p = first_set(mask, words, p + 1)
    return pick, work


@njit(cache=True)
def form(policy, fx, size, capa, barred, ix, words, masks, counts, picks, work):
    """Build one group by steps 1 to 4. Returns ``(l_G, work)`` with the picks in ``picks``,
    the group's value counts in ``counts`` and who could be pick ``t >= 1`` in ``masks[t]``;
    ``l_G = 0`` when the group cannot be completed (its start is ``picks[0]``), -1 when no
    bucket can start one."""
    cols, l_of, lvmax, _, _ = fx
    holders, above, alive, starts = ix[3], ix[4], ix[5], ix[6]
    counts[:] = 0
    pick, work = best(policy, 0, fx, size, capa, barred, ix, starts, words, counts, picks, 0, work)
    if pick < 0:
        return -1, work
    picks[0] = pick
    lg = lvmax[pick]
    shield = masks[0]     # scratch until the group is formed: step 1's candidates are `starts`
    for w in range(words):
        shield[w] = above[lg, w]
    n = 0
    while True:
        picks[n] = pick
        n += 1
        for j in range(cols.shape[1]):
            col = cols[pick, j]
            counts[col] += 1
            # shield (step 3): a value of level s may appear floor(l_G / l_s) times in the group
            if (counts[col] + 1) * l_of[col] > lg:
                for w in range(words):
                    shield[w] |= holders[col, w]
        if n == lg:
            return n, work
        for w in range(words):
            masks[n, w] = alive[w] & ~shield[w]
        pick, work = best(policy, n, fx, size, capa, barred, ix, masks[n], words, counts, picks, lg, work)
        if pick < 0:
            return 0, work


@njit(cache=True)
def fall(policy, b, cols, counts, mult):
    """How much bucket ``b``'s key falls per repetition of the group (``counts``, ``mult``): its
    multiplicity, plus for MMDCF the group's counts of its values (exact) and for MSDCF their
    least (a lower bound)."""
    if policy == MBF:
        return mult[b]
    lo = hi = counts[cols[b, 0]]
    for j in range(1, cols.shape[1]):
        c = counts[cols[b, j]]
        lo, hi = min(lo, c), hi + c
    return mult[b] + (lo if policy == MSDCF else hi)


@njit(cache=True)
def repeats(policy, fraction, fx, size, capa, barred, ix, words, masks, counts, run, picks, n_steps, mult, work):
    """How many times to take the group (see "Batching" in :mod:`.greedy`): the largest ``m``
    for which every pick's lead over each rival eligible at its step, falling linearly with the
    repetitions, stays positive; at least ``fraction`` of the smallest chosen bucket when
    ``fraction > 0``. Leaves each pick's multiplicity in ``mult``. Returns ``(m, work)``."""
    cols = fx[0]
    order, ub = ix[0], ix[1]
    n_b, d = cols.shape
    for t in range(n_steps):
        mult[picks[t]] += 1
    cap = size[picks[0]]
    least = np.inf
    for t in range(n_steps):
        c = picks[t]
        cap = min(cap, size[c] // mult[c])     # buckets must not run dry
        least = min(least, size[c] / mult[c])
    floor = 1
    if fraction > 0:
        floor = min(cap, math.ceil(fraction * least))
        if floor >= cap:
            return max(1, cap), work
    m = cap
    low = max(1, floor)
    run[:] = 0                # the group's counts before step t
    for t in range(n_steps):
        pick = picks[t]
        if policy == MSDCF:   # the pick's key falls at most as fast as its largest capacity
            jstar, top = 0, -1
            for j in range(d):
                if capa[cols[pick, j]] - run[cols[pick, j]] > top:
                    jstar, top = j, capa[cols[pick, j]] - run[cols[pick, j]]
            fall_c = counts[cols[pick, jstar]] + mult[pick]
        else:
            fall_c = fall(policy, pick, cols, counts, mult)
        s_p = score(policy, pick, fx, size, capa, run, taken_of(pick, picks, t))
        mask = ix[6] if t == 0 else masks[t]
        p = first_set(mask, words, 0)
        while p >= 0 and m > low:
            b = order[p]
            # no rival from here on can bring m lower: their leads are at least s_p - ub[b]
            if s_p - ub[b] >= m * fall_c * n_b:
                break
            work += 1
            lo = fall(policy, b, cols, counts, mult)
            pb = taken_of(b, picks, t)
            if b != pick and fall_c > lo and eligible(b, t, fx, size, barred, run, pb, n_steps):
                gap = s_p - score(policy, b, fx, size, capa, run, pb)
                m = min(m, -(-gap // ((fall_c - lo) * n_b)))
            p = first_set(mask, words, p + 1)
        for j in range(d):
            run[cols[pick, j]] += 1
    run[:] = 0
    return max(1, floor, m), work
