"""A deliberately naive MSB greedy, one record at a time (paper 002, sections 3 and 4).

Written from the paper's prose ("select an unshielded non-empty d dimensional bucket with
the maximal sensitive attribute security level and the largest bucket size (or
selectivity), and extract a record from the bucket ...") and the rules stated in
:mod:`anonymizer.families.anatomy.greedy`'s docstring, not from its code. Nothing is batched
and nothing is kept between steps: the buckets, their sizes and the capacities are
recounted from the list of remaining records before every single pick.

Records are plain tuples (composite sensitive vectors). The inputs are

* ``records``: the table's vectors, one per record (order irrelevant);
* ``l``: either an int (the baselines' uniform ``l``, Definitions 7 and 8) or one dict per
  dimension mapping each value to the ``l`` its security level demands (Definition 10);
* ``level``: dict vector -> security level of the vector (highest level of its values);
  only consulted by the MSLF variants;
* ``tie``: the distinct vectors in tie order, earlier wins a tie;
* ``policy``: ``"mbf"``, ``"msdcf"`` or ``"mmdcf"``; ``mslf``: level first or not.

It returns ``(groups, suppressed)``: the groups in formation order, each a list of vectors
(grouping-phase picks in pick order, then residual additions), and the suppressed vectors.
"""

from __future__ import annotations

from collections import Counter


def _l_of(l, j: int, value) -> int:
    return l if isinstance(l, int) else l[j][value]


def _keys(policy: str, remaining: list[tuple]) -> dict[tuple, int]:
    """Every non-empty bucket's key, counted afresh from the remaining records: its size (MBF)
    or its selectivity, ``max_j Capa(s_j) + size`` (MSDCF, Eq. 1) or ``sum_j Capa(s_j) + size``
    (MMDCF, Eq. 2), with ``Capa`` the summed size of the buckets sharing the value."""
    size = Counter(remaining)                      # Definition 13's buckets
    if policy == "mbf":
        return dict(size)
    keys = {}
    for v, n in size.items():
        capas = [sum(m for w, m in size.items() if w[j] == v[j]) for j in range(len(v))]
        if policy == "msdcf":
            keys[v] = max(capas) + n
        elif policy == "mmdcf":
            keys[v] = sum(capas) + n
        else:
            raise ValueError(policy)
    return keys


def _best(allowed, policy, remaining, level, tie_rank, mslf):
    """Among the non-empty buckets passing ``allowed``, the one with the highest (level if MSLF,
    key, earliest tie rank); ``None`` if there is none."""
    keys = _keys(policy, remaining)
    candidates = [v for v in keys if allowed(v)]
    if not candidates:
        return None
    return max(candidates, key=lambda v: (level[v] if mslf else 0, keys[v], -tie_rank[v]))


def reference_msb(records, l, level, tie, policy: str, mslf: bool):
    tie_rank = {v: i for i, v in enumerate(tie)}
    remaining = list(records)
    groups: list[list[tuple]] = []
    barred: set[tuple] = set()

    # -- grouping phase: build groups one record at a time -------------------------------
    while True:
        first = _best(lambda v: v not in barred, policy, remaining, level, tie_rank, mslf)
        if first is None:
            break
        # target size: the l of the first record's highest demand (uniform l for baselines)
        l_g = max(_l_of(l, j, first[j]) for j in range(len(first)))
        group = [first]
        remaining.remove(first)
        failed = False
        while len(group) < l_g:
            # shield: a vector may join only if every one of its values, counted once more,
            # still fits Definition 10 (Definition 7) at the target size l_G
            def unshielded(v, group=group, l_g=l_g):
                return all((sum(1 for g in group if g[j] == v[j]) + 1) * _l_of(l, j, v[j]) <= l_g
                           for j in range(len(v)))
            pick = _best(unshielded, policy, remaining, level, tie_rank, mslf)
            if pick is None:
                failed = True
                break
            group.append(pick)
            remaining.remove(pick)
        if failed:
            remaining.extend(group)     # the records go back
            barred.add(first)           # this bucket may no longer start a group
            continue
        groups.append(group)

    # -- residual phase ------------------------------------------------------------------
    # bucket order: the same (level, key, tie) priority, on the counts left after grouping
    left = list(remaining)
    keys = _keys(policy, left)
    order = sorted(set(left), key=lambda v: (-(level[v] if mslf else 0), -keys[v], tie_rank[v]))
    suppressed: list[tuple] = []
    for v in order:
        count = left.count(v)
        for k in range(count):
            home = None
            for g in groups:                      # formation order
                fits = all((sum(1 for r in g if r[j] == v[j]) + 1) * _l_of(l, j, v[j]) <= len(g) + 1
                           for j in range(len(v)))
                if fits:
                    home = g
                    break
            if home is None:
                # no group changed since, so no later record of v fits either
                suppressed.extend([v] * (count - k))
                break
            home.append(v)
    return groups, suppressed
