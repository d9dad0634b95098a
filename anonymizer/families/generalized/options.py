"""The generalizing algorithms' ``algorithm:`` options (:class:`Options`, :func:`parse`),
Mondrian's inputs (:class:`Inputs`) and pairing rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from anonymizer.errors import SpecError
from anonymizer.families.base import options_of
from anonymizer.families.generalized.lattice.safepub_scores import SCORES
from anonymizer.fields import choice, flag, mapping_field, name_field, per_qi
from anonymizer.numbers import number

if TYPE_CHECKING:
    from anonymizer.models import PrivacyModel
    from anonymizer.plan import Plan
    from anonymizer.spec.types import Column

SPLITS = ("median", "loss")
LABELS = ("hierarchy", "values")
SCORINGS = ("basic", "eta", "log")
#: PrivacyFrost2's tie-break of equal scores (paper 003; :mod:`.lattice.scoring`)
TIE_BREAKS = ("none", "basic")
#: how SafePub picks the published node among its walk's pivots (:mod:`.lattice.safepub`)
SELECTIONS = ("private", "best")
#: the range of SafePub's epsilon less its search's, for which beta and k are derived (in a few seconds
#: at most, at delta 1e-6 and epsilon 3: :func:`anonymizer.dp.safepub_parameters.derive` sums binomial tails)
ANONYMIZATION_EPSILON = (0.02, 3.0)


def _per_qi(kind: str, minimum: dict, what: str) -> dict:
    """The JSON Schema of a mapping from quasi-identifiers to numbers."""
    return {"type": "object", "additionalProperties": {"type": kind, **minimum}, "description": what}


#: the JSON Schema of each option (:mod:`anonymizer.spec.schema`); :func:`parse` checks the same and more
SCHEMA: Mapping[str, dict] = {
    "relaxed": {"type": "boolean", "default": False, "description": "Mondrian: relaxed partitioning"},
    "labels": {"enum": list(LABELS), "default": "hierarchy",
               "description": "Mondrian: label a class by the hierarchy's node covering it, or by its own values"},
    "split": {"enum": list(SPLITS), "default": "median", "description": "Mondrian: how a partition is cut"},
    "levels": _per_qi("integer", {"minimum": 0}, "full-domain: the level of every quasi-identifier"),
    "priorities": _per_qi("number", {"exclusiveMinimum": 0}, "PrivacyFrost2: v per quasi-identifier (default 1)"),
    "min_level": _per_qi("integer", {"minimum": 0}, "the least level per quasi-identifier, from the root '*' = 0"),
    "scoring": {"enum": list(SCORINGS), "default": "basic", "description": "PrivacyFrost2's scoring function"},
    "d": {"type": "number", "exclusiveMinimum": 0, "description": "eta scoring's constant d"},
    "p": {"type": "integer", "minimum": 0, "default": 0, "description": "PrivacyFrost2's pre-computation parameter"},
    "presample": {"type": "object", "required": ["k"], "additionalProperties": False,
                  "description": "PrivacyFrost2's pre-sampling: threshold levels u and k'",
                  "properties": {"k": {"type": "integer", "minimum": 1, "description": "k' of pre-sampling"},
                                 "levels": {"anyOf": [{"type": "integer", "minimum": 0},
                                                      _per_qi("integer", {"minimum": 0}, "u per quasi-identifier")],
                                            "description": "u: one level for all, or per quasi-identifier"}}},
    "partial": {"type": "boolean", "default": False, "description": "PrivacyFrost2: partial-domain de-generalization"},
    "tie_break": {"enum": list(TIE_BREAKS), "default": "none",
                  "description": "PrivacyFrost2: how equal eta or log scores are told apart"},
    # epsilon and delta: SafePub's and dp-aggregates' (anonymizer.families.aggregates.options), one schema
    "epsilon": {"type": "number", "exclusiveMinimum": 0,
                "description": "safepub, dp-aggregates: epsilon of (epsilon, delta)-differential privacy (SafePub's "
                               "search included)"},
    "delta": {"type": "number", "minimum": 0, "exclusiveMaximum": 1,
              "description": "safepub, dp-aggregates: delta of (epsilon, delta)-differential privacy (below 1 / rows; "
                             "SafePub's above 0)"},
    "search_epsilon": {"type": "number", "exclusiveMinimum": 0,
                       "description": "SafePub: the part of epsilon the search spends (ARX's DP search budget; default "
                                      "a twentieth of epsilon)"},
    "steps": {"type": "integer", "minimum": 1, "default": 300, "description": "SafePub: the search's steps"},
    "score": {"enum": list(SCORES), "default": "smooth_loss",
              "description": "SafePub: the score function of the search (selection private: smooth_loss, loss, "
                             "precision, aecs or classification)"},
    "target": {"type": "string",
               "description": "SafePub, score classification: the quasi-identifier a classifier would predict (ARX's "
                              "response variable; its input values are counted)"},
    "selection": {"enum": list(SELECTIONS), "default": "private",
                  "description": "SafePub: private (a uniform walk, the published pivot drawn by permute-and-flip "
                                 "at search_epsilon) or best (ARX's: the best pivot, a choice epsilon does not cover)"},
}


@dataclass(frozen=True)
class Options:
    """The options of the generalizing algorithms (each reads its own; the family declares
    which: :data:`anonymizer.families.generalized.FAMILY`).

    Mondrian: ``relaxed`` partitioning; ``labels``: ``hierarchy`` (the default) labels a
    class on a QI with a declared hierarchy by the lowest node covering it, and cuts along
    the hierarchy's nodes; ``values`` publishes the class's own range or value set on every
    QI (finer, but no node of the user's hierarchy; the hierarchy then only orders the
    values); ``split``: ``median`` or ``loss`` (:mod:`.loss_split`). Full-domain: ``levels``,
    its level vector. PrivacyFrost2 (paper 003): ``priorities`` (v per QI, default 1),
    ``min_level`` (w^M per QI, counted from the root '*' = 0 as the paper does), ``scoring``
    (basic, eta, log), ``d`` (eta's constant), ``p`` (the system parameter of
    pre-computation), ``presample`` (``{levels: {qi: u}, k: k'}``, thresholds counted from
    the root), ``partial`` (partial-domain de-generalization) and ``tie_break`` (``none``, the
    paper: a search step needs a strictly higher score, so eta and log scoring can stop on a
    flat step at the fully generalized table; ``basic``: equal scores are compared by the
    basic score). Pre-sampled rows are left out and counted as suppressed, but not against
    ``suppression_limit``, which bounds the search's own suppression (0: none, as in the
    paper). The optimal search reads ``min_level``.
    """

    relaxed: bool = False
    labels: str = "hierarchy"
    split: str = "median"
    levels: Mapping[str, int] = field(default_factory=dict)
    priorities: Mapping[str, float] = field(default_factory=dict)
    min_level: Mapping[str, int] = field(default_factory=dict)
    scoring: str = "basic"
    d: float = 0.0
    p: int = 0
    presample: Mapping[str, Any] | None = None
    partial: bool = False
    tie_break: str = "none"
    epsilon: float = 0.0
    delta: float = 0.0
    search_epsilon: float = 0.1
    steps: int = 300
    score: str = "smooth_loss"
    selection: str = "private"
    target: str | None = None


def parse(name: str, v: dict, quasi: set[str], seed: int | None) -> Options:
    """The ``algorithm:`` block ``v`` (its keys are the ones ``name`` reads) as options."""
    relaxed = flag(v.get("relaxed", False), "algorithm.relaxed")
    labels = choice(v.get("labels", "hierarchy"), "algorithm.labels", LABELS,
                    "how Mondrian labels a class on a QI with a hierarchy")
    split = choice(v.get("split", "median"), "algorithm.split", SPLITS, "how Mondrian cuts a partition")
    if split == "loss" and (relaxed or labels != "values"):
        raise SpecError("algorithm.split", "loss chooses strict cuts by the loss of value labels: it needs "
                                           "labels: values and no relaxed partitioning", split)
    priorities = per_qi(v.get("priorities", {}), "algorithm.priorities", quasi, (int, float), "a positive number")
    if any(x <= 0 for x in priorities.values()):
        raise SpecError("algorithm.priorities", "must be positive numbers (v of paper 003, section 3)", priorities)
    scoring = choice(v.get("scoring", "basic"), "algorithm.scoring", SCORINGS)
    d = v.get("d")
    if scoring == "eta":
        number(d, "algorithm.d", 0, low_open=True,
               what="a positive finite number (eta scoring's d, paper 003, section 6.2)")
    if scoring != "eta" and d is not None:
        raise SpecError("algorithm.d", "only applies to eta scoring")
    tie_break = choice(v.get("tie_break", "none"), "algorithm.tie_break", TIE_BREAKS)
    if tie_break != "none" and scoring == "basic":
        raise SpecError("algorithm.tie_break", "only applies to eta and log scoring (basic scores tie only "
                                               "between tables its own key cannot tell apart)", tie_break)
    p = v.get("p", 0)
    number(p, "algorithm.p", 0, whole=True, what="a whole number >= 0")
    return Options(relaxed, labels, split,
                   per_qi(v.get("levels", {}), "algorithm.levels", quasi, int, "a whole number >= 0"), priorities,
                   per_qi(v.get("min_level", {}), "algorithm.min_level", quasi, int, "a whole number >= 0"),
                   scoring, float(d or 0.0), p, _presample(v.get("presample"), quasi),
                   flag(v.get("partial", False), "algorithm.partial"), tie_break,
                   **(_safepub(v) if name == "safepub" else {}))


def _safepub(v: dict) -> dict:
    """SafePub's options (:mod:`.lattice.safepub`): ε and δ required, the search's part of ε
    below ε."""
    for name in ("epsilon", "delta"):
        if name not in v:
            raise SpecError(f"algorithm.{name}", "is required for safepub ((epsilon, delta)-differential privacy)")
    epsilon = number(v["epsilon"], "algorithm.epsilon", 0, low_open=True, what="a positive number (epsilon of DP)")
    delta = number(v["delta"], "algorithm.delta", 0, 1, low_open=True, high_open=True,
                   what="a number between 0 and 1 (delta of DP; below 1 / rows)")
    search = number(v.get("search_epsilon", epsilon / 20), "algorithm.search_epsilon", 0, low_open=True,
                    what="a positive number below epsilon")
    if search >= epsilon:
        raise SpecError("algorithm.search_epsilon", f"must be below epsilon ({epsilon}): the rest of epsilon "
                                                    "is the sampling's and k-anonymity's", search)
    if not ANONYMIZATION_EPSILON[0] <= epsilon - search <= ANONYMIZATION_EPSILON[1]:
        raise SpecError("algorithm.epsilon", f"less search_epsilon ({search:g}) must lie between "
                                             f"{ANONYMIZATION_EPSILON[0]:g} and {ANONYMIZATION_EPSILON[1]:g}: SafePub's "
                                             "beta and k are derived for that range (below it the derivation takes "
                                             "seconds and k passes the rows of most tables; above it k passes 300)",
                        epsilon)
    steps = v.get("steps", 300)
    number(steps, "algorithm.steps", 1, whole=True, what="a whole number >= 1")
    return {"epsilon": float(epsilon), "delta": float(delta), "search_epsilon": float(search), "steps": int(steps),
            "score": choice(v.get("score", "smooth_loss"), "algorithm.score", SCORES, "SafePub's score function"),
            "selection": choice(v.get("selection", "private"), "algorithm.selection", SELECTIONS,
                                "how SafePub picks the published node among its pivots"),
            "target": None if v.get("target") is None else name_field(v["target"], "algorithm.target")}


def _presample(value: Any, quasi: set[str]) -> dict | None:
    """PrivacyFrost2's pre-sampling (paper 003, section 5.1): threshold levels u and k'."""
    if value is None:
        return None
    v = mapping_field(value, "algorithm.presample", {"levels", "k"})
    k = v.get("k")
    number(k, "algorithm.presample.k", 1, whole=True, what="a whole number >= 1 (k' of paper 003, section 5.1)")
    levels = v.get("levels", {})
    if isinstance(levels, int) and not isinstance(levels, bool):
        levels = {q: levels for q in quasi}
    return {"levels": per_qi(levels, "algorithm.presample.levels", quasi, int, "a whole number >= 0"), "k": k}


@dataclass(frozen=True)
class Inputs:
    """What Mondrian reads besides the plan's coded rows (Alg. 3 takes T and k): the smallest
    class ``k``, the ``models`` every cut is checked against, and its options: ``relaxed``
    partitioning, ``split`` (``median`` or ``loss``, :mod:`.loss_split`) and ``labels``
    (``hierarchy``: strict cuts snap to a declared hierarchy's nodes, :mod:`.mondrian_snap`)."""

    k: int
    models: tuple[PrivacyModel, ...]
    relaxed: bool = False
    split: str = "median"
    labels: str = "hierarchy"


def of(plan: Plan) -> Options:
    """The release's options (every plan of this family holds an :class:`Options`)."""
    return options_of(plan, Options)


def pair(name: str, options: Options, models: tuple[PrivacyModel, ...], columns: tuple[Column, ...]) -> None:
    """Full-domain generalization needs a level for every quasi-identifier; a population model
    (k-map, delta-presence) compares the population's classes at one level vector, which
    partial-domain de-generalization leaves."""
    if name == "full-domain":
        for c in columns:
            if c.role == "quasi" and c.name not in options.levels:
                raise SpecError(f"algorithm.levels.{c.name}", "is required for full-domain generalization")
    if name == "safepub":
        _safepub_pairs(options, columns)
    if options.partial:
        for i, m in enumerate(models):
            if m.needs_population:
                raise SpecError(f"models[{i}]", f"{m.spec_type} compares the population at one level vector; "
                                                "partial-domain de-generalization (algorithm.partial) gives classes "
                                                "their own levels", m.spec_type)


def mondrian_inputs(plan: Plan) -> Inputs:
    """Mondrian's inputs for a release: the largest k of its models, every model, and the
    ``algorithm:`` options Mondrian reads."""
    a = of(plan)
    return Inputs(plan.k, plan.models, a.relaxed, a.split, a.labels)


#: SafePub's score functions whose value depends only on the node, the hierarchies' heights and the
#: counts of rows kept and suppressed: their sensitivities hold whatever the data (see _safepub_pairs)
PRIVATE_SCORES = ("smooth_loss", "loss", "precision", "aecs", "classification")
#: what ``algorithm.target`` must be (checked on the spec, and on the plan before the run spends)
TARGET_ROLE = ("must name a quasi-identifier (SafePub publishes no other column); the score counts its values as "
               "they are in the input")


def _safepub_pairs(options: Options, columns: tuple[Column, ...]) -> None:
    """SafePub's own rules: every QI's hierarchy a file (its nodes, levels and heights fixed
    before the data is read; one built from the data, by its range, counts or clusters, would
    publish intervals that move with one person); and, with the private selection, a score whose
    sensitivity holds: ``entropy`` reads the counts of each QI's values in the data and
    ``discernibility`` squares the row count, so one person moves every node's score by more
    than the bound the mechanism is scaled to (they are ARX's, offered with ``selection: best``
    only); ``loss`` and ``smooth_loss`` read their cells' shares from the hierarchy files."""
    for c in columns:
        if c.role == "quasi" and (c.hierarchy is None or c.hierarchy.kind != "csv"):
            raise SpecError(f"columns.{c.name}.hierarchy", "SafePub needs a hierarchy file (csv: ARX's form) on "
                                                           "every quasi-identifier: a hierarchy built from the data "
                                                           "would move with one person, outside epsilon",
                            None if c.hierarchy is None else c.hierarchy.kind)
    if (options.score == "classification") != (options.target is not None):
        raise SpecError("algorithm.target", "names the column the classification score predicts: give it with "
                                            "score: classification, and only then", options.target)
    if options.target is not None and options.target not in {c.name for c in columns if c.role == "quasi"}:
        raise SpecError("algorithm.target", TARGET_ROLE, options.target)
    if options.selection == "private" and options.score not in PRIVATE_SCORES:
        raise SpecError("algorithm.score", f"with selection: private, one of {', '.join(PRIVATE_SCORES)}: {options.score} "
                                           "reads the data's value counts or size, so its sensitivity does not hold "
                                           "(ARX's score; it runs with selection: best, which epsilon does not cover)",
                        options.score)

