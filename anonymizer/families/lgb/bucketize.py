"""Local bucketization (paper 000, Algorithm 2), every bucketized attribute at once.

Each attribute's sensitive values are split at their count-weighted median while both
halves pass the attribute's check (lines 2-7), so that a bucket spans as narrow a range of
values as the principle allows; a range that cannot be split is divided into buckets (line
9). The ranges are a small table (one row per distinct value), split by one of two loops
(``loop``), which give the same ranges:

- ``"python"``: driven round by round from Python, each round one statement for the halves
  of all active ranges of all attributes, one for the checks of every attribute, and one
  replacing the ranges that split;
- ``"recursive"``: every round in one statement, a ``WITH RECURSIVE`` over the ranges whose
  iteration is those three statements (families/lgb/bucket_ranges.sql.j2).

The recursive loop is the default, the faster on Adult and as fast on a million rows
(``anonymizer bench recursive``, lines 2-10 only; the figures are in the README, "Loops
driven from Python or run as one recursive CTE").

Principles, per attribute (the paper's section 4 uses both):

- ``l-unique`` (Corollary 2). check = l-eligibility, the most frequent value of a half
  occurs at most |VP| / l times (Xiao and Tao 2007). divide_buckets = the assignment of
  m-invariance (m = l): B = floor(n / l) buckets formed in rounds, each taking one record of
  each of the l values with the most records left (ties by the release's draw), the last
  n mod l records joining the first bucket that lacks their value; so every value is at most
  once in a bucket and each bucket holds at least l values. The rounds are computed from the
  counts, not run one by one (families/lgb/bucket_largest_first.sql.j2).
- ``t-closeness`` (EMD, Li et al. 2007; the paper's t = 0.2 on sex). check = the half's
  distribution is within t of the attribute's distribution of sensitive values (a union of
  t-close buckets is t-close, EMD being convex, so a half that fails cannot be bucketized).
  divide_buckets deals round-robin (positions in order of count, r to bucket r mod B) into
  the largest number of buckets B for which
  every bucket is t-close, found by a bisection per leaf on value counts (the counts of a
  dealt bucket follow from B without reading rows); a B that passes is kept, so the
  buckets always pass, even where EMD is not monotonic in B.
- ``entropy-l-diversity`` (Machanavajjhala et al. 2007, Def. 4.1; footnote 1 of the paper:
  "other versions of l-diversity (e.g., entropy l-diversity) can also be applied"). check =
  the half's entropy -sum p ln p >= ln l (a union of entropy-l-diverse sets is entropy
  l-diverse, entropy being concave, so a half that fails cannot be bucketized either).
  divide_buckets deals round-robin as for t-closeness, into the largest B (bisection per
  leaf) whose buckets all pass; B = 1, the leaf, always does.

Choices: the median is the upper one, the smallest value whose cumulative count exceeds half
the range (the paper does not say which; the upper median is the one its Fig. 4 implies)
(values in the attribute's generalization order: numbers, hierarchy leaves, or text); a
range whose big half would be empty is a leaf. The whole attribute must pass the check,
else no bucketization exists and the release stops (PrivacyCheckFailed). Buckets are
numbered 1.. per attribute (BID). Values of a bucket are shown in a random (the release's key)
permutation of its rows (:func:`shuffle`), as Fig. 2 does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from anonymizer.engine.session import Engine
from anonymizer.errors import PrivacyCheckFailed
from anonymizer.families.lgb.subsets import Attribute, attributes, qi_partition, value_pairs
from anonymizer.models import TCloseness, check
from anonymizer.families.lgb.models import LUnique
from anonymizer.plan import Plan
from anonymizer.randomness import ReleaseKey

#: How Algorithm 2's recursion runs (:func:`local_bucketization`'s ``loop``).
LOOPS = ("python", "recursive")

@dataclass(frozen=True)
class Buckets:
    """The outcome of local bucketization: ``dealt(a, __rid, code, bid)`` and
    ``shown(a, __rid, bid, shown)``, plus round and bucket counts per attribute, the last
    value ranges ``ranges(a, code, n, part, active)`` (``part``: the leaf of each value), and
    the seconds Algorithm 2's recursion (lines 2-10) took by the ``loop`` that ran it."""

    dealt: str
    shown: str
    rounds: int
    buckets: dict[str, int]
    leaves: dict[str, int]
    ranges: str
    loop: str = "python"
    split_seconds: float = 0.0


def local_bucketization(engine: Engine, attrs: list[Attribute], pairs: str, key: ReleaseKey,
                        loop: str = "recursive", whole: str | None = None) -> Buckets:
    """Algorithm 1 lines 3-6: Algorithm 2 on every attribute holding sensitive values; the
    values of a bucket are dealt to its rows by the release's secret ``key``. ``loop``: how
    Algorithm 2's recursion (lines 2-10) runs, ``"python"`` (a statement per step of each
    round) or ``"recursive"`` (every round in one recursive CTE); both give the same ranges.
    An attribute under t-closeness with the ordered distance makes ``"recursive"`` run the
    Python loop (see :func:`~anonymizer.models.check.uses_asof_join`); :attr:`Buckets.loop`
    says which loop ran. ``whole``: the value pairs whose distribution t-closeness measures
    against, where ``pairs`` are part of a table (m-invariance's new rows); default ``pairs``."""
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {LOOPS}, got {loop!r}")
    attrs = [x for x in attrs if x.bucketized]
    vals = _values(engine, pairs, "lgb_vals_0")                                     # Alg. 2, line 1
    globs = _globals(engine, attrs, vals if whole is None else _values(engine, whole, "lgb_vals_whole"))
    _check_roots(engine, attrs, vals, globs)
    if loop == "recursive" and not engine.capabilities.one_statement(any(
            x.principle is not None and check.uses_asof_join(x.principle) for x in attrs)):
        loop = "python"
    split = _split_in_one_statement if loop == "recursive" else _split_round_by_round
    start = time.perf_counter()
    vals, rounds = split(engine, attrs, vals, globs)                       # lines 2-10
    seconds = time.perf_counter() - start
    sizes = _bucket_sizes(engine, attrs, vals, globs)                     # line 9: divide_buckets
    dealt, shown = engine.work("lgb_dealt"), engine.work("lgb_shown")
    unique = [{"a": x.index, "l": x.principle.l} for x in attrs if isinstance(x.principle, LUnique)]
    engine.run("families/lgb/bucket_deal.sql.j2", key.params(), target=dealt, pairs=pairs, vals=vals, sizes=sizes,
               unique=[x["a"] for x in unique])
    if unique:
        engine.run("families/lgb/bucket_largest_first.sql.j2", key.params(), target=dealt, pairs=pairs, vals=vals,
                   sizes=sizes, attrs=unique)
    engine.run("families/lgb/bucket_shuffle.sql.j2", key.params(), target=shown, dealt=dealt)
    names = {x.index: x.name for x in attrs}
    counts = engine.execute(f"SELECT a, count(DISTINCT bid), count(DISTINCT part) FROM {dealt} JOIN "
                            f"(SELECT a, code, part FROM {vals}) USING (a, code) GROUP BY a").fetchall()
    return Buckets(dealt, shown, rounds, {names[a]: int(b) for a, b, _ in counts},
                   {names[a]: int(p) for a, _, p in counts}, vals, loop, round(seconds, 4))


def _values(engine: Engine, pairs: str, name: str) -> str:
    """Algorithm 2 line 1, value_number: each attribute's values and counts in ``pairs``."""
    vals = engine.work(name)
    engine.run("families/lgb/bucket_values.sql.j2", target=vals, pairs=pairs)
    return vals


def release_bucketization(engine: Engine, plan: Plan, loop: str = "recursive") -> Buckets:
    """Algorithm 1 up to line 6 for a prepared release, as :func:`anonymizer.families.lgb.algorithm.lgb`
    runs it before the local generalization: the QI partition (Def. 8), the attributes'
    classes (Defs. 1-3), the value pairs (line 4) and local bucketization by ``loop`` (what
    the loops' tests and benchmark compare)."""
    subsets = qi_partition(engine, plan, plan.k)
    attrs = attributes(engine, plan, subsets)
    return local_bucketization(engine, attrs, value_pairs(engine, plan, attrs, subsets), plan.key, loop)


def _split_round_by_round(engine: Engine, attrs: list[Attribute], vals: str,
                          globs: dict[int, str]) -> tuple[str, int]:
    """Alg. 2 lines 2-10 driven from Python: per round, the halves of every active range of
    every attribute, the checks, and the split; returns the last ranges and the rounds."""
    rounds = 0
    while engine.count(vals, "active"):
        rounds += 1
        halves = engine.work("lgb_halves")
        engine.run("families/lgb/bucket_halves.sql.j2", target=halves, vals=vals)    # lines 2-4
        ok = _check_halves(engine, attrs, halves, globs)                  # line 5
        nxt = engine.work(f"lgb_vals_{rounds}")
        engine.run("families/lgb/bucket_split.sql.j2", target=nxt, vals=vals, halves=halves, ok=ok)  # lines 6-10
        engine.drop(vals)
        vals = nxt
        engine.say(f"local bucketization round {rounds}")
    return vals, rounds


def _split_in_one_statement(engine: Engine, attrs: list[Attribute], vals: str,
                            globs: dict[int, str]) -> tuple[str, int]:
    """Alg. 2 lines 2-10 as one recursive CTE (families/lgb/bucket_ranges.sql.j2), each iteration the
    three statements of a round of :func:`_split_round_by_round` over the CTE's relation
    ``ranges``. The rounds are read off the ranges: parts are numbered like a heap, and a
    range at depth d (part in [2^d, 2^(d+1))) was last checked in round d + 1."""
    out = engine.work("lgb_vals_last")
    hists = [f"({engine.sql('families/lgb/attribute_hist.sql.j2', vals='halves', a=x.index, whole=False)})" for x in attrs]
    text = engine.sql(
        "families/lgb/bucket_ranges.sql.j2", target=out, vals=vals,
        halves=engine.sql("families/lgb/bucket_halves.sql.j2", target=None, vals="ranges"),                    # lines 2-4
        checks=engine.sql("families/lgb/bucket_checks.sql.j2", target=None, per_group=True,
                          checks=_checks(engine, attrs, hists, globs)),                               # line 5
        split=engine.sql("families/lgb/bucket_split.sql.j2", target=None, vals="(SELECT * FROM ranges WHERE active)",
                         halves="halves", ok="ok"))                                                   # lines 6-10
    engine.execute(text, check.used_params(text, _params(attrs)), template="families/lgb/bucket_ranges.sql.j2")
    engine.drop(vals)
    top = engine.execute(f"SELECT max(part) FROM {out}").fetchone()[0]
    engine.say("local bucketization: every round in one statement")
    return out, int(top or 0).bit_length()


def _globals(engine: Engine, attrs: list[Attribute], vals: str) -> dict[int, str]:
    """The distribution of each t-closeness attribute's sensitive values, ``(s, p, rnk)``."""
    out = {}
    for x in attrs:
        if isinstance(x.principle, TCloseness):
            out[x.index] = engine.work(f"lgb_glob{x.index}")
            engine.execute(f"CREATE TABLE {out[x.index]} AS "
                           + check.global_sql(f"(SELECT code, n FROM {vals} WHERE a = {x.index})", "code", "n"),
                           template="models/global_distribution.sql.j2")
    return out


def _check_sql(engine: Engine, x: Attribute, hist: str, globs: dict[int, str]) -> str:
    """Algorithm 2's check(VP) for attribute ``x`` over a ``(gid, s, n)`` histogram."""
    if isinstance(x.principle, LUnique):
        return engine.sql("families/lgb/bucket_eligible.sql.j2", hist=hist, p=f"a{x.index}")
    assert x.principle is not None   # a bucketized attribute has its principle (subsets.attributes)
    return check.model_sql(x.principle, hist, f"a{x.index}", globs.get(x.index), engine=engine)


def _params(attrs: list[Attribute]) -> dict:
    out: dict = {}
    for x in attrs:
        assert x.principle is not None   # a bucketized attribute has its principle (subsets.attributes)
        out.update(x.principle.params(f"a{x.index}"))
    return out


def _check_roots(engine: Engine, attrs: list[Attribute], vals: str, globs: dict[int, str]) -> None:
    """The whole attribute must pass its check, or no local bucketization exists."""
    for x in attrs:
        hist = engine.sql("families/lgb/attribute_hist.sql.j2", vals=vals, a=x.index, whole=True)
        ok, figure, _ = _verdicts(engine, [x], [f"({hist})"], globs, None)[0]
        if not ok:
            raise PrivacyCheckFailed(f"{x.principle} (attribute {x.name!r} as a whole fails it, so no local "
                                     f"bucketization exists)", figure, 1)


def _checks(engine: Engine, attrs: list[Attribute], hists: list[str], globs: dict[int, str]) -> list[dict]:
    """Each attribute's check over its histogram, as families/lgb/bucket_checks.sql.j2 takes them."""
    return [{"a": x.index, "sql": _check_sql(engine, x, h, globs)} for x, h in zip(attrs, hists)]


def _verdicts(engine: Engine, attrs: list[Attribute], hists: list[str], globs: dict[int, str],
              target: str | None) -> list[tuple]:
    """Run each attribute's check over its histogram in one statement (families/lgb/bucket_checks):
    into ``target`` (a, gid, ok), or aggregated to one ``(all ok, worst figure)`` per call."""
    text = engine.sql("families/lgb/bucket_checks.sql.j2", target=target, per_group=target is not None,
                      checks=_checks(engine, attrs, hists, globs))
    cur = engine.execute(text, check.used_params(text, _params(attrs)), template="families/lgb/bucket_checks.sql.j2")
    return [] if target else cur.fetchall()


def _check_halves(engine: Engine, attrs: list[Attribute], halves: str, globs: dict[int, str]) -> str:
    """Algorithm 2 line 5 for every half of every active range: ``ok(a, gid, ok)``."""
    ok = engine.work("lgb_ok")
    hists = [engine.sql("families/lgb/attribute_hist.sql.j2", vals=halves, a=x.index, whole=False) for x in attrs]
    _verdicts(engine, attrs, [f"({h})" for h in hists], globs, ok)
    return ok


def _bucket_sizes(engine: Engine, attrs: list[Attribute], vals: str, globs: dict[int, str]) -> str:
    """divide_buckets' number of buckets per leaf: floor(n / l) for l-unique, a bisection for
    t-closeness and entropy l-diversity."""
    sizes = engine.work("lgb_sizes")
    ls = [{"a": x.index, "l": x.principle.l} for x in attrs if isinstance(x.principle, LUnique)]
    engine.run("families/lgb/bucket_sizes.sql.j2", target=sizes, vals=vals, attrs=ls)
    for x in attrs:
        if not isinstance(x.principle, LUnique):
            _dealt_sizes(engine, x, vals, globs, sizes)
    return sizes


def _dealt_sizes(engine: Engine, x: Attribute, vals: str, globs: dict[int, str], sizes: str) -> None:
    """The largest B per leaf (bisection) whose dealt buckets all pass ``x``'s principle
    (within t, or entropy l-diverse)."""
    leaves = engine.execute(f"SELECT part, sum(n) FROM {vals} WHERE a = $a GROUP BY part", {"a": x.index},
                            template="families/lgb/leaves").fetchall()
    good = {int(p): 1 for p, _ in leaves}            # one bucket is the leaf itself, which passed
    high = {int(p): int(n) for p, n in leaves}
    probe, hist = engine.work("lgb_probe"), engine.work("lgb_probe_hist")
    while any(good[p] < high[p] for p in good):
        mid = {p: (good[p] + high[p] + 1) // 2 for p in good if good[p] < high[p]}
        engine.run("families/lgb/bucket_probe_leaves.sql.j2", {"parts": list(mid), "buckets": list(mid.values())},
                   target=probe)
        engine.run("families/lgb/bucket_probe.sql.j2", {"a": x.index}, target=hist, vals=vals, probe=probe)
        text = engine.sql("families/lgb/bucket_probe_verdict.sql.j2", check=_check_sql(engine, x, hist, globs))
        for part, ok in engine.execute(text, check.used_params(text, _params([x])),
                                       template="families/lgb/bucket_probe_verdict.sql.j2").fetchall():
            if ok:
                good[part] = mid[part]
            else:
                high[part] = mid[part] - 1
    engine.run("families/lgb/bucket_sizes_set.sql.j2", {"a": x.index, "parts": list(good), "buckets": list(good.values())},
               target=sizes)
