"""Hitting sets of one equivalence class's sensitive-value sets (paper 004, Wang et al. 2018).

EIR l-diversity (Definition 3.3) holds for a class ``Q`` exactly when the minimum hitting set
(Definition 3.5) of ``Psi = {S(p_1), ..., S(p_nQ)}`` has at least ``l`` elements. Theorem 3.1
gives the "if"; the "only if" holds too: a minimum hitting set ``H`` meets every ``S(p)``, so
picking for each individual one record whose value lies in ``H`` gives a reasoning set
(Definition 3.2) with at most ``|H|`` distinct values. So every function here decides the model
exactly, not only sufficiently.

Everything works on ONE class's sets, in Python (the class's sets are small; rows never are):

* :func:`bhs` -- Algorithm 3 (BHS, after Jiang and Lin 2003), all minimal hitting sets as a
  Boolean product expansion;
* :func:`min_hitting_set_size` -- the exact minimum by branch and bound;
* :func:`sat_el` -- Algorithm 2 (SatPriIR_El), line by line;
* :class:`IncrementalEl` -- Algorithm 5 (SatPriIRInc_El), bounded but exact.

Choices where the paper is silent or its listing is loose (all of them keep decisions exact):

* An empty set in ``Psi`` (an individual without a sensitive value) has no hitting set; the
  functions raise ``ValueError`` (prepare refuses NULL sensitive values, so it cannot happen in a
  release).
* BHS, line 1: a Boolean formula has set semantics, so duplicate sets are merged.
* BHS, lines 6-7 ("if every conjunctive item contains literal s, return s"): we return every
  literal common to all items, each as a one-element set (the listing names one literal; any of
  them is a minimum hitting set). This shortcut is what makes the listing *incomplete*: for
  ``x3x5 + x5x7`` it returns ``x5`` and misses the minimal hitting set ``{x3, x7}``. The paper's
  worked example depends on it (it prints 3 sets; the complete answer has a fourth,
  ``{x1, x3, x4, x7}``), so :func:`bhs` follows the listing by default and ``bhs(psi,
  complete=True)`` skips the shortcut and returns exactly all minimal hitting sets. Both
  families contain a minimum hitting set (proof in :func:`bhs`), which is all Algorithm 2 uses.
* BHS, line 13 ("the literal whose frequency is highest"): ties go to the smallest literal by
  ``str`` (then by ``repr``), which picks ``x1`` in the paper's example as the paper does.
* BHS, line 14: ``s' . BHS(Pi_1)`` can yield non-minimal sets (``s'`` may already be implied by
  the rest); the result is simplified with the absorption law (``A + AB = A``) at every level.
* Algorithm 2, lines 10/25 and 26 ("BHS, then find a minimum"): :func:`sat_el` uses
  :func:`min_hitting_set_size` by default (same number, without the exponential family);
  ``sat_el(..., use_bhs=True)`` runs BHS literally.
* Algorithm 5 keeps the whole family ``H_Q``; :class:`IncrementalEl` bounds it in three exact ways
  (see its docstring).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Hashable, Iterable

Family = set[frozenset]


def _sets(psi: Iterable[Iterable[Hashable]]) -> list[frozenset]:
    """``Psi`` as distinct frozensets (line 1 of Algorithm 3: a formula has set semantics)."""
    out, seen = [], set()
    for x in psi:
        f = frozenset(x)
        if not f:
            raise ValueError("an empty set has no hitting set (an individual without sensitive values)")
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out


def _key(x: Hashable) -> tuple[str, str]:
    return (str(x), repr(x))


def absorb(family: Iterable[frozenset]) -> Family:
    """The absorption law ``A + AB = A``: keep the sets of ``family`` with no proper subset in it.

    Example:
        >>> sorted(map(sorted, absorb([frozenset("ab"), frozenset("a"), frozenset("bc")])))
        [['a'], ['b', 'c']]
    """
    kept: list[frozenset] = []
    for f in sorted(set(family), key=len):
        if not any(k <= f for k in kept):
            kept.append(f)
    return set(kept)


def is_hitting_set(h: Iterable[Hashable], psi: Iterable[Iterable[Hashable]]) -> bool:
    """Definition 3.5: ``h`` meets every set of ``psi``."""
    hs = set(h)
    return all(hs & set(x) for x in psi)


def bhs(psi: Iterable[Iterable[Hashable]], complete: bool = False) -> Family:
    """Algorithm 3, BHS(Psi): minimal hitting sets of ``psi`` by Boolean expansion.

    ``psi`` is read as the DNF ``Pi`` whose conjunctive items are the sets (line 1). Then, as
    listed: a single item returns its literals (lines 2-3); absorption (line 5); a literal in
    every item is returned alone (lines 6-7; skipped when ``complete``); single-literal items go
    into ``sig`` and leave ``Pi`` (lines 9-12); the most frequent literal ``s'`` splits ``Pi``
    into ``Pi_1`` (items without ``s'``: the hitting sets that take ``s'``) and ``Pi_2`` (``s'``
    deleted from every item: those that do not), and the answer is
    ``sig . (s' . BHS(Pi_1) + BHS(Pi_2))`` (lines 13-14), absorbed.

    With ``complete=True`` the result is exactly the set of all minimal hitting sets (Shannon
    expansion: a minimal ``H`` containing ``s'`` is ``s'`` plus a minimal hitting set of
    ``Pi_1``; one without ``s'`` is a minimal hitting set of ``Pi_2``). With the listing's
    lines 6-7 it is a subset of hitting sets that still contains a minimum one: by induction,
    ``tau(Pi) = |sig| + min(1 + tau(Pi_1), tau(Pi_2))`` and each branch keeps a minimum set,
    line 7's ``{s}`` has the minimum size 1, and absorption never removes a minimum set.
    The empty ``Psi`` has one minimal hitting set, the empty set.

    Example (section 4.3):
        >>> psi = [{1, 3}, {1, 3, 5}, {1, 6}, {3, 5}, {5, 7}, {4}, {4, 5}, {4, 6}]
        >>> sorted(sorted(h) for h in bhs(psi))
        [[1, 4, 5], [3, 4, 5, 6], [3, 4, 6, 7]]
        >>> len(bhs(psi, complete=True))
        4
    """
    return _bhs(_sets(psi), complete)


def _bhs(items: list[frozenset], complete: bool) -> Family:
    if not items:
        return {frozenset()}
    if len(items) == 1:                                        # lines 2-3
        return {frozenset([s]) for s in items[0]}
    items = sorted(absorb(items), key=lambda f: (len(f), sorted(map(_key, f))))   # line 5
    common = frozenset.intersection(*items)
    if common and not complete:                                 # lines 6-7
        return {frozenset([s]) for s in common}
    if len(items) == 1:                                         # line 2 after absorption
        return {frozenset([s]) for s in items[0]}
    sig = frozenset(s for f in items if len(f) == 1 for s in f)  # lines 9-12
    rest = [f for f in items if len(f) > 1]
    if not rest:
        return {sig}
    freq = Counter(s for f in rest for s in f)                  # line 13
    split = min(freq, key=lambda s: (-freq[s], _key(s)))
    pi1 = [f for f in rest if split not in f]                   # line 14
    pi2 = [f - {split} for f in rest]
    out = {sig | {split} | h for h in _bhs(pi1, complete)}
    out |= {sig | h for h in _bhs(_dedupe(pi2), complete)}
    return absorb(out)


def _dedupe(items: list[frozenset]) -> list[frozenset]:
    return list(dict.fromkeys(items))


# -- the exact minimum ----------------------------------------------------------------------

def _packing(sets: Iterable[frozenset]) -> int:
    """Size of a greedy packing of pairwise-disjoint sets, smallest first: a lower bound on the
    minimum hitting set (each packed set needs its own element)."""
    used: set = set()
    n = 0
    for f in sorted(sets, key=len):
        if not (f & used):
            used |= f
            n += 1
    return n


def _greedy(sets: list[frozenset]) -> int:
    """Size of the greedy hitting set (take the element in most un-hit sets): an upper bound."""
    left, n = list(sets), 0
    while left:
        freq = Counter(s for f in left for s in f)
        most = max(freq.values())
        pick = min((s for s, c in freq.items() if c == most), key=_key)   # the least (-freq, key)
        left = [f for f in left if pick not in f]
        n += 1
    return n


def min_hitting_set_size(psi: Iterable[Iterable[Hashable]], limit: int | None = None, decide: bool = False) -> int:
    """Exact size ``tau`` of a minimum hitting set of ``psi`` (Definition 3.5).

    Branch and bound: branch on the smallest un-hit set (its ``i``-th element is taken and the
    elements before it are excluded, so no hitting set is explored twice; elements hitting more
    sets first); the upper bound starts from the greedy hitting set; a branch is cut when the
    elements taken plus a lower bound for the un-hit sets reaches the best size found. The lower
    bounds: a greedy packing of pairwise-disjoint un-hit sets, and ``ceil(un-hit / f)`` with
    ``f`` the most un-hit sets one element meets. With ``limit``, the answer is
    ``min(tau, limit)``: the search stops as soon as ``tau >= limit`` is proven. With ``decide``
    too, only whether ``tau >= limit`` is asked: the size of the first hitting set found below
    ``limit`` is returned (``tau`` is at most that, so below ``limit`` as well).

    Example (Definition 3.5): the minimum hitting set of {{x2,x3},{x2,x4},{x1,x2}} is {x2}.
        >>> min_hitting_set_size([{"x2", "x3"}, {"x2", "x4"}, {"x1", "x2"}])
        1
    """
    sets = list(absorb(_sets(psi)))
    if not sets:
        return 0
    best = _greedy(sets)
    if limit is not None:
        if decide and best < limit:
            return best
        best = min(best, limit)
    if _packing(sets) >= best:
        return best
    goal = 0 if not decide or limit is None else limit - 1   # decide: one hitting set below limit will do

    def search(left: list[frozenset], taken: int) -> None:
        nonlocal best
        if best <= goal:
            return
        if not left:
            best = min(best, taken)
            return
        freq = Counter(s for f in left for s in f)
        need = -(-len(left) // max(freq.values()))               # a value hits at most max(freq)
        if taken + need >= best or taken + _packing(left) >= best:
            return
        pivot = min(left, key=len)
        excluded: set = set()
        for s in sorted(pivot, key=lambda v: -freq[v]):        # most hitting first: good bounds early
            if taken + 1 >= best:
                return
            nxt = []
            for f in left:
                if s in f:
                    continue
                g = f - excluded if excluded else f
                if not g:
                    break
                nxt.append(g)
            else:
                search(nxt, taken + 1)
            excluded.add(s)
            # later branches must avoid s: a set made empty by that has no way left
            if any(f <= excluded for f in left):
                return

    search(sets, 0)
    return best


def minimum_hitting_sets(psi: Iterable[Iterable[Hashable]]) -> Family:
    """Every minimum hitting set of ``psi`` (small inputs: for tests and the running example)."""
    family = bhs(psi, complete=True)
    size = min(map(len, family))
    return {h for h in family if len(h) == size}


# -- Algorithm 2 ----------------------------------------------------------------------------

def sat_el(psi: Iterable[Iterable[Hashable]], l: int, use_bhs: bool = False) -> bool:
    """Algorithm 2, SatPriIR_El(Q, l): whether the class with sets ``psi`` is EIR l-diverse.

    Lines 1-8 move the one-element sets into ``xi`` (their values are in every hitting set);
    lines 9-16: no such set, the minimum hitting set of ``Psi`` decides (Theorem 3.1);
    lines 17-18: ``|xi| >= l`` decides at once; lines 20-24 drop the sets ``xi`` already hits,
    and lines 25-31 compare ``|h'| + |xi|`` with ``l``, ``h'`` a minimum hitting set of the rest.
    Lines 10-11 and 25-26 ("BHS, then a minimum of it") use :func:`min_hitting_set_size`
    (bounded by what is still needed), or :func:`bhs` literally with ``use_bhs``.

    Example (Table 3, Q2: Mike, Tim, Jane):
        >>> sat_el([{"Hypertension", "Heart"}, {"Hypertension"}, {"Hypertension", "Diabetes"}], 3)
        False
    """
    psi = _sets(psi)                                            # line 1
    xi: set = set()                                             # line 2
    rest = []
    for s in psi:                                               # lines 3-8
        if len(s) == 1:
            xi |= s
        else:
            rest.append(s)
    if not xi:                                                  # lines 9-16
        return _minimum(rest, l, use_bhs) >= l
    if len(xi) >= l:                                            # lines 17-18
        return True
    rest = [s for s in rest if not (s & xi)]                    # lines 20-24
    return _minimum(rest, l - len(xi), use_bhs) + len(xi) >= l  # lines 25-31


def _minimum(psi: list[frozenset], need: int, use_bhs: bool) -> int:
    if use_bhs:
        return min(map(len, bhs(psi)))
    return min_hitting_set_size(psi, limit=need, decide=True)   # only compared with need


# -- Algorithm 5 ----------------------------------------------------------------------------

class IncrementalEl:
    """Algorithm 5, SatPriIRInc_El: EIR l-diversity of a class as individuals are added.

    :meth:`add` takes the new individual's value set ``S(p)`` and returns whether the class so
    far is EIR l-diverse. The family ``H_Q`` of minimal hitting sets is kept as in line 4, the
    Boolean product ``H_Q . (s_1 + ... + s_r)``, simplified by absorption (line 5): a set ``h``
    that already meets ``S(p)`` stays as it is (and absorbs its own products), every other ``h``
    becomes ``h + {s}`` for each ``s`` in ``S(p)``; such a product can only be absorbed by a set
    kept unchanged (``h' ⊆ h + {s}`` with ``h'`` meeting ``S(p)``), because the old family is an
    antichain. The empty class is the empty product ``{∅}``, so line 2 is the same step.

    Three bounds keep it small and the decision exact (equal to brute force):

    (a) Only sets of size ``< l`` are kept. Proof: every later product of a set has at least its
        size, so the sets of size ``< l`` at any later time are products of kept sets only; and a
        dropped set (size ``>= l``) can only absorb sets larger than itself, which are dropped
        too. Hence the kept family is exactly the minimal hitting sets of size ``< l``, and the
        class is EIR l-diverse (minimum ``>= l``) exactly when it is empty.
    (b) A greedy packing of pairwise-disjoint sets of ``Psi`` is kept; each packed set needs its
        own element, so a packing of ``>= l`` sets proves the minimum ``>= l`` (True) without the
        family.
    (c) If the family would exceed ``cap`` sets, the tracker switches to :func:`sat_el` (exact
        branch and bound) on the class's sets for this and later calls (the default cap,
        2,000, is measured: README, "Measurements behind the constants").

    Once True it stays True (the model is monotonic: adding an individual only adds a set).

    Example (section 4.3, l = 3: individuals 6, 7, 4):
        >>> inc = IncrementalEl(3)
        >>> inc.add({"Leukaemia", "Heart"}), inc.add({"Syphilis"})
        (False, False)
        >>> sorted(sorted(h) for h in inc.family)
        [['Heart', 'Syphilis'], ['Leukaemia', 'Syphilis']]
        >>> inc.add({"Hypertension", "Diabetes"})
        True
    """

    def __init__(self, l: int, cap: int = 2_000):
        if l < 1:
            raise ValueError(f"l must be at least 1, got {l}")
        self.l = l
        self.cap = cap
        self.family: Family = {frozenset()}   # H of the empty class: the empty product
        self.psi: list[frozenset] = []        # the class's distinct sets (for mode "exact")
        self._seen: set[frozenset] = set()
        self.packing: list[frozenset] = []
        self._packed: set = set()
        self.mode = "family"                  # "family" (Algorithm 5) or "exact" (bound c)
        self.satisfied = False
        self.individuals = 0

    def add(self, values: Iterable[Hashable]) -> bool:
        """Add individual ``p`` with ``S(p) = values``; return whether ``Q + p`` is EIR l-diverse."""
        s = frozenset(values)
        if not s:
            raise ValueError("an individual needs at least one sensitive value")
        self.individuals += 1
        if s not in self._seen:
            self._seen.add(s)
            self.psi.append(s)
        if self.satisfied:
            return True
        if not (s & self._packed):                       # bound (b)
            self.packing.append(s)
            self._packed |= s
        if len(self.packing) >= self.l:
            return self._done()
        if self.mode == "exact":                         # bound (c), later calls
            return self._done() if sat_el(self.psi, self.l) else False
        family = self._product(s)                        # lines 4-5 (line 2 when Q is empty)
        if family is None:                               # bound (c), this call
            self.mode = "exact"
            self.family = set()
            return self._done() if sat_el(self.psi, self.l) else False
        self.family = family
        return self._done() if not family else False    # lines 6-11, bound (a)

    def _product(self, s: frozenset) -> Family | None:
        kept = [h for h in self.family if h & s]
        by_value: dict = {}          # v -> the kept sets containing v
        rests: set = set()           # (v, k - {v}) for the kept sets k containing v
        for k in kept:
            for v in k & s:
                by_value.setdefault(v, []).append(k)
                rests.add((v, k - {v}))
        out: Family = set(kept)
        for h in self.family:
            if h & s or len(h) + 1 >= self.l:            # bound (a): products of size >= l dropped
                continue
            subsets = None
            for v in s:
                c = h | {v}
                if c in out:
                    continue
                # absorbed iff a kept k with v in k and k - {v} a proper subset of h exists:
                # scan the kept sets with v, or look up the subsets of h, whichever is fewer
                with_v = by_value.get(v, ())
                if len(with_v) <= 1 << len(h):
                    if any(k <= c for k in with_v):
                        continue
                else:
                    if subsets is None:
                        subsets = _proper_subsets(h)
                    if any((v, sub) in rests for sub in subsets):
                        continue
                out.add(c)
                if len(out) > self.cap:
                    return None
        return out

    def _done(self) -> bool:
        self.satisfied = True
        self.family = set()
        return True

    def minimum(self) -> int:
        """``min(tau, l)``: the exact minimum hitting set size when it is below ``l``, else ``l``
        (meaning "at least l"). 0 for the empty class."""
        if self.individuals == 0:
            return 0
        if self.satisfied:
            return self.l
        if self.mode == "exact":
            return min_hitting_set_size(self.psi, limit=self.l)
        return min(map(len, self.family))

    @property
    def tau_lower(self) -> int:
        """A proven lower bound on the minimum hitting set (the packing; ``l`` once satisfied)."""
        if self.satisfied:
            return max(self.l, len(self.packing))
        return max(len(self.packing), self.minimum())


def _proper_subsets(h: frozenset) -> list[frozenset]:
    items = list(h)
    return [frozenset(c) for n in range(len(items)) for c in combinations(items, n)]
