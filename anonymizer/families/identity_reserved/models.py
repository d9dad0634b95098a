"""Identity-reserved privacy models (paper 004, Wang et al. 2018): individuals with several records.

A class ``Q`` holds records of individuals ``p`` (all records of one individual in one class);
``R(p)`` are ``p``'s records, ``S(p)`` its sensitive values, ``P(s)`` the individuals having value
``s``, ``R(s)`` the records with value ``s``; ``|Q|`` records, ``n_Q`` individuals (Eq. 2), ``m_Q``
values (Eq. 1). The five models:

======================================  ================================================  ==========
spec type (class)                       a class satisfies it when                         paper
======================================  ================================================  ==========
``ir-k-anonymity`` (IRKAnonymity)       ``n_Q >= k``                                      Def. 2.3(1)
``ir-kl-anonymity`` (IRKLAnonymity)     ``n_Q >= k`` and ``m_Q >= l``                      Def. 2.3(2)
``ir-alpha-beta-anonymity``             ``|R(p)|/|Q| <= alpha`` for every ``p`` and        Def. 2.3(3)
(IRAlphaBetaAnonymity)                  ``|R(s)|/|Q| <= beta`` for every ``s``
``eir-l-diversity`` (EIRLDiversity)     every reasoning set has ``>= l`` values, i.e. the  Def. 3.3,
                                        minimum hitting set of ``{S(p)}`` has ``>= l``     Thm. 3.1
``eir-alpha-beta-anonymity``            ``MaxRecNum/|Q| <= alpha`` and                     Def. 3.4,
(EIRAlphaBetaAnonymity)                 ``MaxSenNum/n_Q <= beta`` (``MaxSenNum = max|P(s)|``) Thm. 3.2
======================================  ================================================  ==========

Each model checks a class three ways that agree: :meth:`holds` (SatPriIR_kl, Algorithm 2,
SatPriIR_ab, Algorithm 4, non-incremental), :meth:`tracker` (SatPriIRInc_kl, Algorithm 5,
SatPriIRInc_ab, Algorithm 6: individuals added one by one; a formed class is added individual by
individual, as the paper says before Algorithm 5) and :meth:`verdict_sql` over the per-class counts
of ``templates/models/ir_class_counts.sql.j2`` (:func:`decide_classes` runs it on a whole table).

Choices where the paper is silent:

* Theorems 3.1 and 3.2 state sufficient conditions; both are also necessary (a minimum hitting set
  ``H`` gives a reasoning set with ``|H|`` values, see :mod:`.hitting_sets`; the individuals
  having ``s`` can all show ``s`` in one reasoning set, so the largest count of ``s`` over reasoning
  sets is ``|P(s)|``). So the checks decide Definitions 3.3 and 3.4 exactly.
* A reasoning set holds one record per individual, so ``n_{Q_rea^i}`` of Definition 3.4(2) is
  ``n_Q``.
* Duplicated values of one individual (two records with the same value) count once in ``S(p)`` and
  in ``|P(s)|`` but twice in ``|R(p)|``, ``|Q|`` and ``|R(s)|`` (the IR (alpha, beta) condition
  counts records per value, as Definition 2.3(3) writes; the paper assumes no duplicates, where
  ``|R(s)| = |P(s)|``).
* Fractions are compared as ``count / total <= alpha`` in double precision on both sides (Python
  and SQL), so a share equal to the bound (3/5 against 0.6) passes in both.
* ``alpha`` and ``beta`` lie in ``(0, 1)`` for both (alpha, beta) models (Definition 2.3(3); the
  paper gives no range for Definition 3.4, we use the same).
* The empty class satisfies no model (there is nothing to publish).
* EIR l-diversity in SQL decides more than the sure cases ``|xi| >= l`` / ``m_Q < l`` /
  ``n_Q < l``. With ``rest`` the individuals no value of ``xi`` hits (Algorithm 2 lines 20-24) and
  ``tau = |xi| + tau(rest)`` (line 27): TRUE when a lower bound on the minimum hitting set,
  ``max(|xi| + ceil(rest / max_rest), ceil(n_Q / MaxSenNum))``, reaches ``l`` (a value hits at
  most ``max_rest`` rest individuals, ``MaxSenNum`` of all); FALSE when an upper bound,
  ``min(m_Q, |xi| + rest)``, or 1 when one value is shared by all individuals, is below ``l``.
  The rest is NULL and :func:`decide_classes` runs Algorithm 2 in Python on just those classes'
  sets. Measured on 49,384 individuals (246,393 records, up to 9 values of 619 each) in classes
  of 10: SQL decides 95 % of the classes for l = 4, 47 % for l = 6, 8 to 18 % for l = 8 to 10,
  and a whole table takes 0.2 to 3.2 s.
* ``vulnerable``: the share is over all classes, ``v = Num_vec / Num_ec`` as section 5 writes
  (not over the classes satisfying the IR model).
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from anonymizer.engine.session import Engine, render
from anonymizer.models.base import PrivacyModel
from anonymizer.families.identity_reserved.hitting_sets import IncrementalEl, min_hitting_set_size, sat_el

Individual = tuple[int, Mapping[str, int]]

#: parameter prefix of the statements this module runs itself.
_P = "ir"


def _check(records: int, values: Mapping[str, int]) -> None:
    if not values:
        raise ValueError("an individual needs at least one sensitive value")
    if records < 1 or any(c < 1 for c in values.values()) or sum(values.values()) != records:
        raise ValueError(f"the record counts of the values must add up to the records ({records}): {dict(values)}")


def _prefix(prefix: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix or ""):
        raise ValueError(f"parameter prefix must be a plain name, got {prefix!r}")
    return prefix


@dataclass(frozen=True)
class _IRModel(PrivacyModel):
    """What the five identity-reserved models share."""

    identity_reserved: ClassVar[bool] = True
    #: the case of ``templates/models/ir_verdict.sql.j2`` rendering this model's verdict.
    kind: ClassVar[str] = ""
    #: whether the SQL verdict can be NULL (then Python decides the class).
    needs_python: ClassVar[bool] = False

    def verdict_sql(self, prefix: str) -> str:
        """A SQL boolean over the columns of ``ir_class_counts`` (``"rows"``, ``individuals``,
        ``"values"``, ``max_rec``, ``max_sen_rec``, ``max_sen_ind``, ``xi``, ``multi``, ``tau_lb``,
        ``tau_ub``), with bound parameters ``$<prefix>_<name>`` (see :meth:`params`): TRUE or
        FALSE, or NULL where SQL cannot decide (EIR l-diversity only).

        Example:
            >>> IRKLAnonymity(3, 2, "disease").verdict_sql("m0")
            '(individuals >= $m0_k AND "values" >= $m0_l)'
        """
        return render("models/ir_verdict.sql.j2", kind=self.kind, p=_prefix(prefix)).strip()

    def tracker(self):
        raise NotImplementedError

    def holds(self, individuals: Sequence[Individual]) -> bool:
        raise NotImplementedError

    def enhanced(self) -> "_IRModel | None":
        """The EIR model used to count vulnerable classes (section 5); ``None`` if there is none."""
        return None


# -- incremental checkers ---------------------------------------------------------------------

class KLTracker:
    """SatPriIRInc_kl (section 4.3, before Algorithm 5): update ``n_Q`` and the values seen."""

    def __init__(self, k: int, l: int = 0):
        self.k, self.l = k, l
        self.individuals = 0
        self.seen: set = set()

    def add(self, records: int, values: Mapping[str, int]) -> bool:
        _check(records, values)
        self.individuals += 1
        self.seen.update(values)
        return self.individuals >= self.k and len(self.seen) >= self.l


class AlphaBetaTracker:
    """Algorithm 6, SatPriIRInc_Eab (``enhanced``), and SatPriIRInc_ab: keep ``|Q|``, ``n_Q``,
    ``MaxRecNum`` (lines 1-3) and the count of every value with its maximum (lines 4-10):
    individuals per value (EIR, ``MaxSenNum``) or records per value (IR, ``max |R(s)|``); line 11
    compares with ``alpha`` and ``beta`` (``MaxSenNum / n_Q`` for EIR, ``/ |Q|`` for IR)."""

    def __init__(self, alpha: float, beta: float, enhanced: bool):
        self.alpha, self.beta, self.enhanced = alpha, beta, enhanced
        self.rows = 0
        self.individuals = 0
        self.max_rec = 0
        self.sen_num: Counter = Counter()
        self.max_sen = 0

    def add(self, records: int, values: Mapping[str, int]) -> bool:
        _check(records, values)
        self.rows += records
        self.individuals += 1
        if records > self.max_rec:                              # lines 1-3
            self.max_rec = records
        for s, n in values.items():                             # lines 4-10
            self.sen_num[s] += 1 if self.enhanced else n
            if self.sen_num[s] > self.max_sen:
                self.max_sen = self.sen_num[s]
        return _ab(self.max_rec, self.max_sen, self.rows,        # line 11
                   self.individuals if self.enhanced else self.rows, self.alpha, self.beta)


class ElTracker:
    """Algorithm 5, SatPriIRInc_El, through :class:`.hitting_sets.IncrementalEl`."""

    def __init__(self, l: int, cap: int = 2_000):
        self.inc = IncrementalEl(l, cap)

    def add(self, records: int, values: Mapping[str, int]) -> bool:
        _check(records, values)
        return self.inc.add(values.keys())


def _ab(max_rec: int, max_sen: int, rows: int, sen_total: int, alpha: float, beta: float) -> bool:
    if rows == 0:
        return False
    return max_rec / rows <= alpha and max_sen / sen_total <= beta


# -- the five models --------------------------------------------------------------------------

@dataclass(frozen=True)
class IRKAnonymity(_IRModel):
    """IR k-anonymity (Definition 2.3(1)): every class holds at least ``k`` individuals."""

    k: int
    kind: ClassVar[str] = "ir_k"
    monotonic: ClassVar[bool] = True

    def values(self) -> dict[str, Any]:
        return {"k": self.k}

    def __str__(self) -> str:
        return f"IR {self.k}-anonymity"

    def tracker(self) -> KLTracker:
        return KLTracker(self.k)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        return len(individuals) >= self.k


@dataclass(frozen=True)
class IRKLAnonymity(_IRModel):
    """IR (k, l)-anonymity (Definition 2.3(2); SatPriIR_kl): ``n_Q >= k`` and ``m_Q >= l``."""

    k: int
    l: int
    attribute: str
    kind: ClassVar[str] = "ir_kl"
    monotonic: ClassVar[bool] = True

    def values(self) -> dict[str, Any]:
        return {"k": self.k, "l": self.l}

    def __str__(self) -> str:
        return f"IR ({self.k},{self.l})-anonymity on {self.attribute!r}"

    def tracker(self) -> KLTracker:
        return KLTracker(self.k, self.l)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        seen = set()                                 # one scan: n_Q and m_Q (SatPriIR_kl)
        for records, values in individuals:
            _check(records, values)
            seen.update(values)
        return len(individuals) >= self.k and len(seen) >= self.l

    def enhanced(self) -> "EIRLDiversity":
        """Section 5 compares IR (k, l) with EIR l-diversity at the same ``l`` (and ``k = l``)."""
        return EIRLDiversity(self.l, self.attribute)


@dataclass(frozen=True)
class IRAlphaBetaAnonymity(_IRModel):
    """IR (alpha, beta)-anonymity (Definition 2.3(3); SatPriIR_ab): ``|R(p)|/|Q| <= alpha`` for
    every individual and ``|R(s)|/|Q| <= beta`` for every value (records per value)."""

    alpha: float
    beta: float
    attribute: str
    kind: ClassVar[str] = "ir_alpha_beta"
    monotonic: ClassVar[bool] = False
    figure_agg: ClassVar[str] = "max"

    def values(self) -> dict[str, Any]:
        return {"alpha": float(self.alpha), "beta": float(self.beta)}

    def __str__(self) -> str:
        return f"IR ({self.alpha:g},{self.beta:g})-anonymity on {self.attribute!r}"

    def tracker(self) -> AlphaBetaTracker:
        return AlphaBetaTracker(self.alpha, self.beta, enhanced=False)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        """Algorithm 4 with line 12 as SatPriIR_ab: ``MaxSenNum`` counts records, over ``|Q|``."""
        rows, max_rec, num = 0, 0, Counter()
        for records, values in individuals:
            _check(records, values)
            rows += records
            max_rec = max(max_rec, records)
            num.update(values)
        return _ab(max_rec, max(num.values(), default=0), rows, rows, self.alpha, self.beta)

    def enhanced(self) -> "EIRAlphaBetaAnonymity":
        return EIRAlphaBetaAnonymity(self.alpha, self.beta, self.attribute)


@dataclass(frozen=True)
class EIRLDiversity(_IRModel):
    """EIR l-diversity (Definition 3.3): every reasoning set of a class shows at least ``l``
    distinct values; decided by the minimum hitting set of ``{S(p)}`` (Theorem 3.1)."""

    l: int
    attribute: str
    kind: ClassVar[str] = "eir_l"
    monotonic: ClassVar[bool] = True
    needs_python: ClassVar[bool] = True

    def values(self) -> dict[str, Any]:
        return {"l": self.l}

    def __str__(self) -> str:
        return f"EIR {self.l}-diversity on {self.attribute!r}"

    def tracker(self) -> ElTracker:
        return ElTracker(self.l)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        """Algorithm 2, SatPriIR_El."""
        for records, values in individuals:
            _check(records, values)
        if not individuals:
            return False
        return sat_el([set(values) for _, values in individuals], self.l)


@dataclass(frozen=True)
class EIRAlphaBetaAnonymity(_IRModel):
    """EIR (alpha, beta)-anonymity (Definition 3.4; Theorem 3.2, Algorithm 4):
    ``MaxRecNum/|Q| <= alpha`` and ``MaxSenNum/n_Q <= beta``, ``MaxSenNum = max_s |P(s)|``."""

    alpha: float
    beta: float
    attribute: str
    kind: ClassVar[str] = "eir_alpha_beta"
    monotonic: ClassVar[bool] = False
    figure_agg: ClassVar[str] = "max"

    def values(self) -> dict[str, Any]:
        return {"alpha": float(self.alpha), "beta": float(self.beta)}

    def __str__(self) -> str:
        return f"EIR ({self.alpha:g},{self.beta:g})-anonymity on {self.attribute!r}"

    def tracker(self) -> AlphaBetaTracker:
        return AlphaBetaTracker(self.alpha, self.beta, enhanced=True)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        """Algorithm 4, SatPriIR_Eab, line by line."""
        max_rec, num, rows = 0, Counter(), 0                      # line 1
        for records, values in individuals:                       # line 2
            _check(records, values)
            rows += records
            if records > max_rec:                                 # lines 3-6
                max_rec = records
            for s in values:                                      # lines 7-9
                num[s] += 1
        max_sen = max(num.values(), default=0)                    # line 11
        return _ab(max_rec, max_sen, rows, len(individuals), self.alpha, self.beta)   # lines 12-16


IR_MODELS = (IRKAnonymity, IRKLAnonymity, IRAlphaBetaAnonymity, EIRLDiversity, EIRAlphaBetaAnonymity)


# -- whole tables in SQL ----------------------------------------------------------------------

def class_counts_sql(records: str, cid: str, pid: str, s: str) -> str:
    """SQL text of the per-class counts (``templates/models/ir_class_counts.sql.j2``) of a records
    relation, as a parenthesised subquery; ``cid``, ``pid``, ``s`` are quoted expressions."""
    return "(" + render("models/ir_class_counts.sql.j2", records=records, cid=cid, pid=pid, s=s) + ")"


def decide_classes(engine: Engine, model: _IRModel, records: str, cid: str, pid: str, s: str,
                   target: str) -> dict[str, int]:
    """Write ``target (cid, ok BOOLEAN)``: whether every class of ``records`` satisfies ``model``.

    ``records`` is any relation (quoted table or view, or a parenthesised subquery) and ``cid``,
    ``pid``, ``s`` are quoted expressions over it giving the class, the individual and the
    sensitive value (text, never NULL). The SQL verdict (:meth:`verdict_sql` over
    ``ir_class_counts``) decides every class; for the classes it leaves NULL (EIR l-diversity
    only) the sets ``{S(p)}`` of just those classes are read, one row per class, and Algorithm 2
    (:func:`.hitting_sets.sat_el`) decides each.

    Returns ``classes``, ``failing``, ``decided_in_sql``, ``decided_in_python``.
    """
    return _decide(engine, model, class_counts_sql(records, cid, pid, s), records, cid, pid, s, target)


def _decide(engine: Engine, model: _IRModel, counts: str, records: str, cid: str, pid: str, s: str,
            target: str) -> dict[str, int]:
    engine.run("models/ir_decide.sql.j2", model.params(_P), target=target, counts=counts,
               verdict=model.verdict_sql(_P))
    classes, failing, undecided = engine.one("models/ir_decided_summary.sql.j2", target=target)
    if undecided:
        passing = []
        cur = engine.run("models/ir_class_sets.sql.j2", records=records, cid=cid, pid=pid, s=s,
                         decided=target, which="undecided")
        while batch := cur.fetchmany(256):           # one class's sets at a time
            for c, _, sets in batch:
                if sat_el(sets, model.l):            # type: ignore[attr-defined]
                    passing.append(c)
        engine.run("models/ir_set_verdicts.sql.j2", {"passing": passing}, target=target)
        failing += undecided - len(passing)
    return {"classes": classes, "failing": failing, "decided_in_sql": classes - undecided,
            "decided_in_python": undecided}


class _Scratch:
    """Work tables of one verify/vulnerable call, dropped at the end."""

    def __init__(self, engine: Engine):
        self.engine, self.tag, self.names = engine, uuid.uuid4().hex[:8], []

    def __call__(self, name: str) -> str:
        table = self.engine.work(f"ir_{name}_{self.tag}")
        self.names.append(table)
        return table

    def drop(self) -> None:
        for table in self.names:
            self.engine.execute(f"DROP TABLE IF EXISTS {table}")


def _counts(engine: Engine, scratch: _Scratch, records: str, cid: str, pid: str, s: str) -> str:
    counts = scratch("counts")
    engine.run("models/ir_class_counts.sql.j2", into=counts, records=records, cid=cid, pid=pid, s=s)
    return counts


def verify(engine: Engine, models: Iterable[PrivacyModel], records: str, cid: str, pid: str,
           s: str) -> list[dict[str, Any]]:
    """Check every identity-reserved model of ``models`` (others are skipped) on ``records``.

    Arguments as :func:`decide_classes`. One dict per model: ``model`` (text), ``holds``,
    ``failing``, ``classes``, ``decided_in_sql``, ``decided_in_python``, ``figures`` (numbers)
    and ``figure`` (the same as text):

    * IR k: ``min_individuals`` (smallest ``n_Q``); IR (k, l): also ``min_values`` (smallest
      ``m_Q``);
    * IR / EIR (alpha, beta): ``max_record_share`` (largest ``|R(p)|/|Q|``) and
      ``max_value_share`` (largest ``|R(s)|/|Q|`` for IR, ``|P(s)|/n_Q`` for EIR);
    * EIR l-diversity: ``min_hitting_set``, the smallest minimum hitting set over the classes,
      exact when some class fails (it is below ``l``: found by branch and bound over the failing
      classes in order of their lower bound, stopping when no class can go lower); when every
      class holds it is reported as ``l`` with ``at_least: True`` (each class's minimum is
      ``>= l``; larger minima are not computed).

    ``figures`` is empty when there is no class.
    """
    scratch = _Scratch(engine)
    out = []
    try:
        counts = _counts(engine, scratch, records, cid, pid, s)
        for i, model in enumerate(models):
            if not getattr(model, "identity_reserved", False):
                continue
            decided = scratch(f"ok{i}")
            stats = _decide(engine, model, counts, records, cid, pid, s, decided)
            cur = engine.run("models/ir_verify.sql.j2", counts=counts, decided=decided)
            row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
            figures = _figures(engine, model, row, counts, decided, records, cid, pid, s) if row["classes"] else {}
            out.append({"model": str(model), "holds": stats["failing"] == 0, **stats,
                        "figures": figures, "figure": _figure_text(figures)})
    finally:
        scratch.drop()
    return out


def _figures(engine: Engine, model: _IRModel, row: dict, counts: str, decided: str, records: str,
             cid: str, pid: str, s: str) -> dict[str, Any]:
    if isinstance(model, IRKAnonymity):
        return {"min_individuals": row["min_individuals"]}
    if isinstance(model, IRKLAnonymity):
        return {"min_individuals": row["min_individuals"], "min_values": row["min_values"]}
    if isinstance(model, IRAlphaBetaAnonymity):
        return {"max_record_share": row["max_rec_share"], "max_value_share": row["max_sen_rec_share"]}
    if isinstance(model, EIRAlphaBetaAnonymity):
        return {"max_record_share": row["max_rec_share"], "max_value_share": row["max_sen_ind_share"]}
    assert isinstance(model, EIRLDiversity)
    if not row["failing"]:
        return {"min_hitting_set": model.l, "at_least": True}
    best = int(row["failing_tau_ub"])
    cur = engine.run("models/ir_class_sets.sql.j2", {"below": best}, records=records, cid=cid, pid=pid,
                     s=s, decided=decided, counts=counts, which="failing")
    while best > 1 and (batch := cur.fetchmany(64)):
        for _, lower, sets in batch:
            if lower >= best:
                break
            best = min(best, min_hitting_set_size(sets, limit=best))
        else:
            continue
        break
    return {"min_hitting_set": best, "at_least": False}


def _figure_text(figures: dict[str, Any]) -> str:
    if not figures:
        return "no class"
    if "min_hitting_set" in figures:
        return f"smallest minimum hitting set {'>= ' if figures['at_least'] else ''}{figures['min_hitting_set']}"
    return ", ".join(f"{k.replace('_', ' ')} {v:.4g}" if isinstance(v, float) else f"{k.replace('_', ' ')} {v}"
                     for k, v in figures.items())


def vulnerable(engine: Engine, ir_model: _IRModel, records: str, cid: str, pid: str, s: str) -> dict[str, Any]:
    """Vulnerable equivalence classes (section 5): classes satisfying ``ir_model`` but not its
    :meth:`enhanced` version. Returns ``vulnerable`` (Num_vec), ``satisfying`` (classes satisfying
    the IR model), ``classes`` (Num_ec: all classes, the denominator the paper writes) and
    ``percent`` ``= 100 * Num_vec / Num_ec``. Raises ``ValueError`` for a model without an
    enhanced version (IR k-anonymity)."""
    eir = ir_model.enhanced() if hasattr(ir_model, "enhanced") else None
    if eir is None:
        raise ValueError(f"{ir_model} has no enhanced (EIR) version to count vulnerable classes against")
    scratch = _Scratch(engine)
    try:
        counts = _counts(engine, scratch, records, cid, pid, s)
        a, b = scratch("ok_ir"), scratch("ok_eir")
        _decide(engine, ir_model, counts, records, cid, pid, s, a)
        _decide(engine, eir, counts, records, cid, pid, s, b)
        classes, satisfying, vuln = engine.one("models/ir_vulnerable.sql.j2", ir=a, eir=b)
    finally:
        scratch.drop()
    return {"vulnerable": vuln, "satisfying": satisfying, "classes": classes,
            "percent": 100.0 * vuln / classes if classes else 0.0}
