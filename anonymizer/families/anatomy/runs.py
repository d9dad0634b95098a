"""The greedy's takes as *runs*, the rows MSB hands to the database (paper 002, section 4:
the groups of the grouping and residual phases, rows to groups).

A take of :mod:`.greedy` reads "records ``lo .. lo + per*m - 1`` of bucket ``bid`` go to
groups ``gid .. gid + m - 1``, ``per`` each". Where keys tie, the exact greedy builds one
group per step and takes one record of each of its ``l_G`` buckets (step 4 of the grouping
phase), so it emits about one take per record. A bucket's takes then cover consecutive
records and often go to groups an equal distance apart (MBF going round the buckets of equal
size). A *run* merges such takes:

    records ``lo + j`` (``0 <= j < n``) of bucket ``bid`` go to group ``gid + (j // per) * step``.

A take is the run ``(bid, lo, per*m, gid, per, 1)``; takes ``i, i+1, ..`` of one bucket merge
when their records follow on, they take ``per`` records of every group, and their groups
form one arithmetic progression. The encoding is vectorised over the takes (no loop over
them in Python) and exact: the template ``families/anatomy/assign.sql.j2`` gives every
record the group its take gave it.

How far this goes (``anonymizer bench msb``, the Adult-like tables, MBF-MSLF): with
``batch="exact"``, 30,762 takes become 11,351 runs at 32k rows, 490,082 become 133,019 at
512k, fewer than the groups (190,968). Fewer cannot be had by any encoding of the groups:
the exact greedy's groups are as irregular as its keys (5,904 distinct sets of buckets among
the 11,960 groups at 32k), so what the database must be told grows with the groups, ``n /
l``, not with the buckets. With ``batch=0.2`` (the default) the greedy's steps grow with the
buckets times ``log n`` and the runs with them: 8,111 at 32k rows, 29,703 at 512k.
"""

from __future__ import annotations

import numpy as np

#: the columns of a run
FIELDS = ("bid", "lo", "n", "gid", "per", "step")


def runs_of(takes: np.recarray) -> dict[str, np.ndarray]:
    """The runs, as columns (:data:`FIELDS`), that give every record the group ``takes`` give it.

    Links between a bucket's consecutive takes (by ``lo``) are kept so that each chain of
    kept links has one stride: first the links with a neighbour of the same stride (a
    chain of three takes or more; where two such chains meet, the later one loses its first
    link), then of the other links, none next to a kept one, every other one.

    Example:
        >>> t = np.rec.fromarrays([[0, 0, 0, 1], [0, 1, 2, 0], [1, 1, 1, 2], [4, 7, 10, 0], [1, 1, 1, 3]],
        ...                       names="bid,lo,per,gid,m")
        >>> [tuple(int(v) for v in run) for run in zip(*runs_of(t).values())]
        [(0, 0, 3, 4, 1, 3), (1, 0, 6, 0, 2, 1)]
    """
    order = np.lexsort((takes.lo, takes.bid))
    bid, lo, per, gid, m = (np.asarray(takes[f], np.int64)[order] for f in ("bid", "lo", "per", "gid", "m"))
    # link i joins take i to take i+1: same bucket, records follow on, equal `per`; a take of
    # m > 1 groups has stride 1 inside, so it links only at stride 1
    stride = gid[1:] - (gid[:-1] + m[:-1] - 1)
    valid = ((bid[1:] == bid[:-1]) & (lo[1:] == lo[:-1] + per[:-1] * m[:-1]) & (per[1:] == per[:-1])
             & (((m[:-1] == 1) & (m[1:] == 1)) | (stride == 1)))
    before = _shift(valid, 1) & (_shift(stride, 1) == stride)
    after = _shift(valid, -1) & (_shift(stride, -1) == stride)
    strong = valid & (before | after)
    kept = strong & ~(_shift(strong, 1) & (_shift(stride, 1) != stride))
    lone = valid & ~strong & ~_shift(kept, 1) & ~_shift(kept, -1)
    at = np.arange(len(lone))
    kept |= lone & ((at - np.maximum.accumulate(np.where(lone, -1, at))) % 2 == 1)   # every other one
    first = np.flatnonzero(np.concatenate([[True], ~kept]))[:len(bid)]
    n = np.add.reduceat(per * m, first) if len(first) else np.zeros(0, np.int64)
    step = np.where(np.concatenate([kept, [False]])[first], np.concatenate([stride, [1]])[first], 1)
    return dict(zip(FIELDS, (bid[first], lo[first], n, gid[first], per[first], step)))


def _shift(a: np.ndarray, by: int) -> np.ndarray:
    """``a`` moved ``by`` places along (``out[i] = a[i - by]``), zero (False) where it has none."""
    out = np.zeros_like(a)
    if by > 0:
        out[by:] = a[:-by]
    else:
        out[:by] = a[-by:]
    return out


__all__ = ["FIELDS", "runs_of"]
