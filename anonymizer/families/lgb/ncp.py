"""LGB_NCP: local generalization minimising NCP, run as SQL rounds inside DuckDB.

Papers: paper 000 (Li and He, LGB), Sec. 3.2.2, **Algorithm 4** (``local_generalization``
based on minimizing NCP), whose ``find_seeds`` and ``divide_table`` are "the top-down
algorithm in" Xu, Wang, Pei, Wang, Shi and Fu, "Utility-based anonymization using local
recoding", KDD 2006 (Sec. 4.2, top-down greedy search).

Input is the caller's ``base (__rid, pat, q0..q{d-1})``: ``q{i}`` a QI code, or -1 where
that cell is sensitive for its person (paper 000 Defs. 1-3); ``pat`` the subset of the QI
partition (Def. 8), every subset already holding >= k rows. Output is the ``assign`` table
``(__rid, __cid, __lo0, __hi0, ..)`` of Mondrian's strict form: one row per base row, its
local equivalence group and the group's min/max code per QI (-1/-1 on a sensitive QI).

How Algorithm 4 maps to functions and templates (``templates/families/lgb/ncp_*.sql.j2``):

- lines 1-2, 5 (T_anony = {}, T_subsets, partition_set = {T_set}): :func:`_collapse`,
  ``ncp_cells``: rows become *cells* (one per distinct ``(pat, codes)``, with a count), so
  identical records never split; each subset is one set;
- line 3 (for each T_set) and lines 6-8 (pick_set): every active set of every subset is an
  ``oper_set`` in each round, one statement per step over all of them (sets are
  independent, so the order of ``pick_set`` does not change the result);
- line 4 (QI_set): implicit, a QI that is -1 throughout a subset costs 0 in every distance;
- line 9 (|oper_set| < 2k) and line 13 (find_seeds): :func:`_find_seeds`, ``ncp_seeds``;
- line 14 (divide_table): :func:`_divide`, ``ncp_divide`` (through ``ncp_sides``);
- line 15 (|T_1|, |T_2| >= k): :func:`_divide`, ``ncp_decide`` and ``ncp_round_counts``;
- lines 10-11, 18-20 (generalize(oper_set), T_anony += gen_set): :func:`_generalize`,
  ``ncp_finish``; lines 16-17 (partition_set += T_1, T_2): :func:`_split`, ``ncp_split``;
- line 25 (return T_anony): :func:`_assign`, ``ncp_assign`` (group bounds, one row per row).

Choices where the papers are silent or where we depart from Xu et al.:

- distance of two records = NCP of generalizing both to one group, summed over the QIs
  (Xu et al.): numeric ``|num_a - num_b| / (num_max - num_min)`` (0 on a range of 0);
  categorical 0 for equal codes, else, with ``objective="range"`` (the default),
  ``(|c_a - c_b| + 1) / m``, the share of the code range covering both (codes are in
  generalization order), or with ``objective="set"`` ``2 / m``, the value set the published
  table shows and the reported NCP counts (``metrics/ncp.sql.j2``, paper 000 Sec. 3.2.2
  NCP_Acat with ``size(v*)`` the values covered). The two differ where a group's values are
  not neighbours in code order: range counts the codes between them too. Neither is the
  size of the lowest common hierarchy node (the paper's ``size(v*)``, which a flat hierarchy
  makes ``m`` for any two values);
- find_seeds: ``SWEEPS`` = 2 sweeps of Xu et al.'s heuristic: start at the set's cell with
  the smallest id (ids are ordered by the release's random draw of ``(pat, codes)``), ``u`` = the cell
  farthest from it, ``v`` = the cell farthest from ``u``; ties go to the smaller id. (Xu et
  al. may repeat the sweep a few times; each extra sweep costs two passes per round);
- divide_table, set-based: Xu et al. add records one at a time, in random order, to the
  group whose NCP grows less; that is sequential. We give every cell at once to the seed
  it is nearer to, i.e. compare the growth of the groups ``{u}`` and ``{v}`` as they are
  before any record joins (Xu et al.'s rule for the first record); equal distances go to
  ``T_1`` when the release's draw of the cell is even. There is no refinement pass: a cell always
  lies inside its own half's bounding box, so "reassign to the box that grows less" never
  moves anything without leave-one-out boxes;
- more sweeps did not pay on Adult (k = 5, 10, 50; 3 or 4 sweeps gave 0-3 % more NCP), so
  ``SWEEPS`` stays 2;
- balancing (``balance=True``, the default): paper 000 lets divide_table be "the top-down
  algorithm in (Xu et al., 2006)", whose split ends by balancing a half of fewer than k
  records (as public implementations of it do): it either borrows from the other half the
  records nearest to it or merges the two, whichever loses less. We always borrow: both
  halves' boxes lie inside the set's box, so under NCP borrowing never loses more than
  merging. The short half takes whole cells of the other half in increasing order of
  NCP(its box widened to take the cell in; with ``objective="set"``, its value sets) (ties: smaller cell id; Xu et al.'s order)
  until it holds k rows. A cell is never split, so only cells small enough to leave the
  other half k rows whatever the run stops on may move (at most ``slack - need + 1`` rows,
  ``slack`` = other half - k); a cheaper cell that is too big is skipped. Only if the
  movable cells hold too few rows does line 18 make the set one group. Without it
  (``balance=False``, the paper's lines 15-20 literally), nearest-seed splits often cut
  off an outlier seed alone and the whole set becomes one group: on ARX's Adult (age,
  education, marital-status, occupation) NCP is 4x Mondrian's instead of 7% below it at
  k=5. ``notes`` count the sets still finished at line 18 (``stuck_*``);
- a set whose rows all share one cell (one QI vector) cannot split and is one group;
- group ids (1..classes) follow the round and, within it, the set id; child set ids are
  dense per round (``2r`` for T_1, ``2r + 1`` for T_2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from anonymizer.engine.session import Engine
from anonymizer.plan import Plan
from anonymizer.randomness import ReleaseKey
from anonymizer.engine.names import ident
from anonymizer.families.generalized.result import AlgorithmResult
from anonymizer.families.lgb.options import OBJECTIVES

#: sweeps of find_seeds (>= 2): u, v are the last two cells of the farthest-from chain.
SWEEPS = 2
#: per-round counts of sets finished at line 18 (>= 2k rows, a half below k), summed in ``notes``.
STUCK = ("stuck_sets", "stuck_rows", "stuck_one_cell")


@dataclass
class _State:
    """What the rounds share: names, bound parameters, the current working set."""

    engine: Engine
    base: str
    k: int
    key: ReleaseKey
    balance: bool
    sets: bool                          # objective "set": categorical QIs cost value sets
    pat: str                            # quoted "pat"
    qis: list[str]                      # quoted q0..q{d-1}
    dims: list[dict]                    # per QI: q, pos (numeric), m / min / span parameter names
    attrs: list[str]                    # quoted pat, q.., p..: a cell's columns besides pid, cell, n
    params: dict = field(default_factory=dict)   # $m<i>, $min<i>, $span<i>
    cells: str = ""
    done_exists: bool = False

    def bound(self, *names: str, **extra) -> dict:
        """The parameters one template reads: ``names`` from ``params`` plus ``extra``."""
        return {**{n: self.params[n] for n in names}, **extra}

    @property
    def m_names(self) -> list[str]:
        return [d["m"] for d in self.dims if d["m"]]


def lgb_ncp(engine: Engine, plan: Plan, base: str, k: int, key: ReleaseKey | int | None = None, *,
            balance: bool = True, objective: str = "range") -> AlgorithmResult:
    """Run paper 000's Algorithm 4 over ``base`` and write ``engine.work("assign")``.

    ``key``: the release's random draws (the order of cells, ties between seeds); default
    the plan's, an integer is a seed.
    ``balance=False`` leaves out Xu et al.'s balancing of a short half (see the module
    docstring): the paper's lines 15-20 taken literally. ``notes`` hold per-round timings,
    the cell count, the sweeps, and the sets of >= 2k rows that became one group because a
    half had fewer than k rows (``stuck_sets``, ``stuck_rows``; ``stuck_one_cell``: of those,
    the sets of one QI vector, which nothing can split).
    ``objective``: ``range`` or ``set``, how a categorical QI's NCP is counted in the
    distances and the borrowing (see the module docstring).
    """
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    start = time.perf_counter()
    st = _setup(engine, plan, base, k, plan.key if key is None else ReleaseKey.of(key), balance, objective == "set")
    cells = _collapse(st)                          # Alg. 4, lines 1-5
    rounds, next_cid, timings = 0, 0, []
    stuck = dict.fromkeys(STUCK, 0)
    while True:                                    # Alg. 4, line 6 (line 3: all subsets at once)
        t0 = time.perf_counter()
        _find_seeds(st)                            # lines 7-9, 13
        counts = _divide(st, next_cid)             # lines 14-15
        if counts["sets"] == 0:
            break
        rounds += 1
        engine.say(f"LGB_NCP round {rounds}: {counts['rows']} rows in {counts['sets']} sets")
        stuck = {name: stuck[name] + counts[name] for name in STUCK}
        if counts["finished"]:
            _generalize(st)                        # lines 10-11, 18-20
        next_cid += counts["finished"]
        if counts["splitting"]:
            _split(st, rounds)                     # lines 16-17
        timings.append(round(time.perf_counter() - t0, 4))
        if not counts["splitting"]:
            break
    assign = _assign(st)                           # line 25
    notes = {"round_seconds": timings, "cells": cells, "sweeps": SWEEPS, "balance": balance,
             "objective": objective, **stuck}
    return AlgorithmResult(assign=assign, classes=next_cid, suppressed=0, rounds=rounds,
                           seconds=time.perf_counter() - start, notes=notes)


# -- setup ----------------------------------------------------------------------------
def _setup(engine: Engine, plan: Plan, base: str, k: int, key: ReleaseKey, balance: bool, sets: bool) -> _State:
    dims, params = [], {}
    for i, q in enumerate(plan.qis):
        dim: dict[str, Any] = {"i": i, "q": ident(f"q{q.index}"), "pos": None, "m": None, "dom": q.dom}
        if q.numeric:
            dim.update(pos=ident(f"p{i}"), min=f"min{i}", span=f"span{i}")
            lo, hi = float(q.num_min or 0.0), float(q.num_max or 0.0)
            params[f"min{i}"], params[f"span{i}"] = lo, (hi - lo) or 1.0    # a range of 0: every position 0
        else:
            dim["m"] = f"m{i}"
            params[f"m{i}"] = float(max(q.m, 1))
        dims.append(dim)
    pat = ident("pat")
    attrs = [pat] + [d["q"] for d in dims] + [d["pos"] for d in dims if d["pos"]]
    return _State(engine, base, k, key, balance, sets, pat, [d["q"] for d in dims], dims, attrs, params)


def _collapse(st: _State) -> int:
    st.cells = st.engine.work("ncp_cells_0")
    positions = [n for d in st.dims if d["pos"] for n in (d["min"], d["span"])]
    st.engine.run("families/lgb/ncp_cells.sql.j2", st.bound(*positions, **st.key.params()), target=st.cells,
                  base=st.base, pat=st.pat, dims=st.dims)
    return st.engine.count(st.cells)


# -- one round ------------------------------------------------------------------------
def _find_seeds(st: _State) -> None:
    st.engine.run("families/lgb/ncp_seeds.sql.j2", st.bound(*st.m_names, k=st.k), target=st.engine.work("ncp_seeds"),
                  cells=st.cells, dims=st.dims, sweeps=SWEEPS, sets=st.sets)


def _divide(st: _State, next_cid: int) -> dict:
    sides, decide = st.engine.work("ncp_sides"), st.engine.work("ncp_decide")
    params = st.bound(*st.m_names, **st.key.params(), **({"k": st.k} if st.balance else {}))
    st.engine.run("families/lgb/ncp_divide.sql.j2", params, target=sides, cells=st.cells,
                  seeds=st.engine.work("ncp_seeds"), attrs=st.attrs, dims=st.dims, balance=st.balance, sets=st.sets)
    st.engine.run("families/lgb/ncp_decide.sql.j2", {"k": st.k, "next_cid": next_cid}, target=decide, sides=sides)
    names = ("sets", "rows", "splitting", "finished", *STUCK)
    return dict(zip(names, st.engine.one("families/lgb/ncp_round_counts.sql.j2", decide=decide)))


def _generalize(st: _State) -> None:
    st.engine.run("families/lgb/ncp_finish.sql.j2", target=st.engine.work("ncp_done"), create=not st.done_exists,
                  cells=st.engine.work("ncp_sides"), decide=st.engine.work("ncp_decide"), pat=st.pat,
                  qis=st.qis)
    st.done_exists = True


def _split(st: _State, r: int) -> None:
    nxt = st.engine.work(f"ncp_cells_{r}")
    st.engine.run("families/lgb/ncp_split.sql.j2", target=nxt, sides=st.engine.work("ncp_sides"),
                  decide=st.engine.work("ncp_decide"), attrs=st.attrs)
    st.engine.drop(st.cells)
    st.cells = nxt


def _assign(st: _State) -> str:
    assign, done = st.engine.work("assign"), st.engine.work("ncp_done")
    if not st.done_exists:                         # an empty base: no group at all
        st.engine.run("families/lgb/ncp_finish.sql.j2", target=done, create=True, cells=st.cells,
                      decide=st.engine.work("ncp_decide"), pat=st.pat, qis=st.qis)
    st.engine.run("families/lgb/ncp_assign.sql.j2", target=assign, base=st.base, done=done, pat=st.pat, qis=st.qis)
    if not st.engine.keep_work:                    # only assign outlives the run
        for name in (st.cells, done, *(st.engine.work(f"ncp_{t}") for t in ("seeds", "sides", "decide"))):
            st.engine.drop(name)
    return assign
