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
  sets (the share SQL decides: README, "Measurements behind the constants").
* ``vulnerable``: the share is over all classes, ``v = Num_vec / Num_ec`` as section 5 writes
  (not over the classes satisfying the IR model).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

from anonymizer.engine.rendering import render
from anonymizer.models.base import PrivacyModel
from anonymizer.models.catalog import ModelType, number_of, open_unit, sensitive_of
from anonymizer.families.identity_reserved.hitting_sets import IncrementalEl, sat_el

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

    #: the case of ``templates/models/ir_verdict.sql.j2`` rendering this model's verdict.
    kind: ClassVar[str] = ""
    #: whether the SQL verdict can be NULL (then Python decides the class).
    needs_python: ClassVar[bool] = False
    #: the model's figures (verify.py): figure name -> its column of ``models/ir_verify.sql.j2``;
    #: none for EIR l-diversity, whose figure is the smallest hitting set
    figure_columns: ClassVar[Mapping[str, str]] = {}

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


#: IncrementalEl's cap in DAnonyIR: a product of 9-value sets passes 2,000 sets before the
#: class is decided, and the branch and bound on the class's sets is cheaper than that family
#: (measured: README, "Measurements behind the constants").
EL_CAP = 50


class ElTracker:
    """Algorithm 5, SatPriIRInc_El, through :class:`.hitting_sets.IncrementalEl`, whose family
    is capped at :data:`EL_CAP` sets (bound (c): the decision is the same at any cap)."""

    def __init__(self, l: int, cap: int | None = None):
        cap = EL_CAP if cap is None else cap
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
    spec_type: ClassVar[str] = "ir-k-anonymity"

    k: int
    kind: ClassVar[str] = "ir_k"
    monotonic: ClassVar[bool] = True
    figure_columns: ClassVar[Mapping[str, str]] = {"min_individuals": "min_individuals"}

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
    spec_type: ClassVar[str] = "ir-kl-anonymity"

    k: int
    l: int
    attribute: str
    kind: ClassVar[str] = "ir_kl"
    monotonic: ClassVar[bool] = True
    figure_columns: ClassVar[Mapping[str, str]] = {"min_individuals": "min_individuals", "min_values": "min_values"}

    def values(self) -> dict[str, Any]:
        return {"k": self.k, "l": self.l}

    def __str__(self) -> str:
        return f"IR ({self.k},{self.l})-anonymity on {self.attribute!r}"

    def tracker(self) -> KLTracker:
        return KLTracker(self.k, self.l)

    def holds(self, individuals: Sequence[Individual]) -> bool:
        seen: set[str] = set()                       # one scan: n_Q and m_Q (SatPriIR_kl)
        for records, values in individuals:
            _check(records, values)
            seen.update(values)
        return len(individuals) >= self.k and len(seen) >= self.l

    def enhanced(self) -> "EIRLDiversity":
        """Section 5 compares IR (k, l) with EIR l-diversity at the same ``l`` (and ``k = l``)."""
        return EIRLDiversity(self.l, self.attribute)


@dataclass(frozen=True)
class _AlphaBeta(_IRModel):
    """What the two (alpha, beta) models share: the bounds, their figures and the tracker;
    ``enhanced_form`` tells which count ``MaxSenNum`` takes (individuals, or records)."""
    alpha: float
    beta: float
    attribute: str
    monotonic: ClassVar[bool] = False
    figure_agg: ClassVar[str] = "max"
    enhanced_form: ClassVar[bool] = False
    label: ClassVar[str] = ""

    def values(self) -> dict[str, Any]:
        return {"alpha": float(self.alpha), "beta": float(self.beta)}

    def __str__(self) -> str:
        return f"{self.label} ({self.alpha:g},{self.beta:g})-anonymity on {self.attribute!r}"

    def tracker(self) -> AlphaBetaTracker:
        return AlphaBetaTracker(self.alpha, self.beta, enhanced=self.enhanced_form)


@dataclass(frozen=True)
class IRAlphaBetaAnonymity(_AlphaBeta):
    """IR (alpha, beta)-anonymity (Definition 2.3(3); SatPriIR_ab): ``|R(p)|/|Q| <= alpha`` for
    every individual and ``|R(s)|/|Q| <= beta`` for every value (records per value)."""
    spec_type: ClassVar[str] = "ir-alpha-beta-anonymity"
    kind: ClassVar[str] = "ir_alpha_beta"
    label: ClassVar[str] = "IR"
    figure_columns: ClassVar[Mapping[str, str]] = {"max_record_share": "max_rec_share",
                                                   "max_value_share": "max_sen_rec_share"}

    def holds(self, individuals: Sequence[Individual]) -> bool:
        """Algorithm 4 with line 12 as SatPriIR_ab: ``MaxSenNum`` counts records, over ``|Q|``."""
        rows, max_rec = 0, 0
        num: Counter[str] = Counter()
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
    spec_type: ClassVar[str] = "eir-l-diversity"

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
class EIRAlphaBetaAnonymity(_AlphaBeta):
    """EIR (alpha, beta)-anonymity (Definition 3.4; Theorem 3.2, Algorithm 4):
    ``MaxRecNum/|Q| <= alpha`` and ``MaxSenNum/n_Q <= beta``, ``MaxSenNum = max_s |P(s)|``."""
    spec_type: ClassVar[str] = "eir-alpha-beta-anonymity"
    kind: ClassVar[str] = "eir_alpha_beta"
    label: ClassVar[str] = "EIR"
    figure_columns: ClassVar[Mapping[str, str]] = {"max_record_share": "max_rec_share",
                                                   "max_value_share": "max_sen_ind_share"}
    enhanced_form: ClassVar[bool] = True

    def holds(self, individuals: Sequence[Individual]) -> bool:
        """Algorithm 4, SatPriIR_Eab, line by line."""
        max_rec, rows = 0, 0                                      # line 1
        num: Counter[str] = Counter()
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


def _ir_k(e, w):
    return IRKAnonymity(number_of(e, "k", w, int, 1))


def _ir_kl(e, w):
    return IRKLAnonymity(number_of(e, "k", w, int, 1), number_of(e, "l", w, int, 1), sensitive_of(e, w))


def _ir_ab(e, w):
    return IRAlphaBetaAnonymity(open_unit(e, "alpha", w), open_unit(e, "beta", w), sensitive_of(e, w))


def _eir_l(e, w):
    return EIRLDiversity(number_of(e, "l", w, int, 1), sensitive_of(e, w))


def _eir_ab(e, w):
    return EIRAlphaBetaAnonymity(open_unit(e, "alpha", w), open_unit(e, "beta", w), sensitive_of(e, w))


#: spec ``type`` -> how an entry of it becomes a model (Definitions 2.3, 3.3, 3.4)
MODEL_TYPES: Mapping[str, ModelType] = {
    "ir-k-anonymity": ModelType(_ir_k, frozenset({"k"}), model=IRKAnonymity),
    "ir-kl-anonymity": ModelType(_ir_kl, frozenset({"k", "l", "sensitive"}), model=IRKLAnonymity),
    "ir-alpha-beta-anonymity": ModelType(_ir_ab, frozenset({"alpha", "beta", "sensitive"}), model=IRAlphaBetaAnonymity),
    "eir-l-diversity": ModelType(_eir_l, frozenset({"l", "sensitive"}), model=EIRLDiversity),
    "eir-alpha-beta-anonymity": ModelType(_eir_ab, frozenset({"alpha", "beta", "sensitive"}), model=EIRAlphaBetaAnonymity),
}
