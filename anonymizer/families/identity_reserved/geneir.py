"""GeneIR: bottom-up generalization along taxonomy trees for identity-reserved models.

Paper 004 (Wang et al. 2018) benchmarks DAnonyIR against GeneIR, the algorithm of Tong et
al. 2010 ("Identity-reserved anonymity in privacy preserving data publishing", J. Softw.
21(4), in Chinese), which it describes in section 6.1.3 and section 5.1:

    "They first recode the ID of database D with numbers and group the records with the
    same QI values. If an equivalence class satisfies the given privacy model pi, the group
    is removed from D to D*. Then repeatedly execute the step: select an attribute in QI to
    generalize up a level in its taxonomy tree and check D to obtain the equivalence
    classes which satisfy pi, until D does not satisfy pi or no further generalization
    could to be made. If there are residual individuals in D, every residual individual is
    added to the closest equivalence class." (sec. 6.1.3)

    "GeneIR continually repeats the process: randomly selects an attribute in QI to
    generalize according to the predefined taxonomy tree, then checks D to gain equivalence
    classes, which satisfy IR (k, l)-anonymity or IR (alpha, beta)-anonymity, and moves
    them to D*." (sec. 5.1)

How it maps to SQL (work tables in the run's schema; ``ind``/``rec`` are the contract's
``ir_ind(pid, nrec, draw, q0..)`` and ``ir_rec(__rid, pid, s)``, Id_num already recoded):

1. ``families/identity_reserved/geneir/nodes``: every node of every QI's taxonomy tree (``hier{i}``) with its loss.
2. Rounds, driven from Python over a level vector ``v`` (all 0 at first): ``families/identity_reserved/geneir/group``
   groups the individuals still in D (``rest``) by their nodes at ``v``;
   :func:`anonymizer.families.identity_reserved.verify.decide_classes` judges every group on its
   records (``families/identity_reserved/geneir/group_records``); ``families/identity_reserved/geneir/move`` + ``families/identity_reserved/geneir/keep`` move the satisfying
   groups to D* (``assign(pid, cid)`` and ``classes``, levels ``v``) and out of D. Then a QI
   below its top level is drawn at random (the release's key, :meth:`ReleaseKey.rng`) and raised one level.
   The rounds stop when D is empty or every QI is at its top; at most
   ``1 + sum(heights)`` rounds, each a few statements over the individuals still in D.
3. Residuals (the individuals still in D), in the random order of ``ir_ind.draw``
   (Algorithm 1 line 22's "select randomly"): ``families/identity_reserved/geneir/residual_candidates`` ranks every
   class of D* by Eq. (17)'s distance and the model's verdict on the class with the
   individual, one vectorised query per residual over the classes' nodes in long form
   (``families/identity_reserved/geneir/residual_setup``); the nearest class that still satisfies the model with the
   individual takes it (``families/identity_reserved/geneir/class_grow``, ``families/identity_reserved/geneir/long_grow``: its counts grow and its
   levels rise to cover the individual); an individual no class can take is suppressed.
   Measured on 50,000 generated patients (8,660 classes): about 30 ms a residual.

Choices where the paper is silent (or where we read it):

- Loss of a node (Eqs. 11, 12 from an original value, as GLM): numeric
  ``(u - l) / (U - L)`` with ``[l, u]`` the node's interval, as section 2.3 (Eq. 3) and Fig. 1
  read it: ``[30, 39]`` costs 9/9 on Table 3 (its label's bounds within the domain; the root
  ``*`` is the whole domain; a label that is no interval keeps the smallest and largest value
  present below the node: ``templates/families/identity_reserved/geneir/bounds.sql.j2``), and
  ``[L, U]`` the QI's domain (``QI.num_min``/``num_max``: the declared ``domain`` or the
  values' range). The published ``<qi>_low``/``_high`` and NLoss read the same interval; categorical ``(|node| - 1) / (|X| - 1)``, |node|
  the values of the domain below it, |X| = m. A one-value domain loses nothing.
- "The closest equivalence class": the class whose records and the individual's lose least
  when the class's levels rise just enough to cover the individual, ``Dist(p, Q) = |R(p)|
  Loss(r_p, r_pq) + |Q| Loss(r_q, r_pq)`` (Eq. 17, losses summed over the QIs as Eq. 13,
  a node-to-node loss the difference of the node losses as Eqs. 11-12 state it). A class
  is one level vector: raising it generalizes all of its records (a class never holds
  records at different levels). Ties go to the smallest class id.
- Which classes may take a residual: the paper (Algorithm 7 line 4, DAnonyIR's *Handle*)
  checks SatPriIR(Q u R(p'')) for the alpha-beta models only, since classes satisfying IR
  k-anonymity, IR (k, l) or EIR l-diversity still do with one more individual. We do the
  same, using ``model.monotonic``: for a monotone model the nearest class takes the residual.
  For the alpha-beta models the check is part of the same query: each class keeps the counts
  of ``templates/models/ir_class_counts.sql.j2`` (computed by that template once the rounds end),
  the query grows them by the residual's records (|Q| + |R(p)|, n_Q + 1, MaxRecNum, and per
  value of S(p) its records and individuals in the class plus the residual's) and applies the
  model's own SQL verdict (``verdict_sql``), so the nearest passing class comes out of one
  statement. (A non-monotone model whose SQL verdict could be undecided, needing Python as
  EIR l-diversity does, would need another path; none of the five models is one, and
  :func:`geneir` refuses such a model.) Tong et al.
  add every residual to its closest class, so unlike Algorithm 7 line 11 there is no
  suppression threshold: a residual is suppressed only when no class can take it (or D*
  is empty).
- Stopping: the rounds run until D is empty or every QI is at its top level (section 6.1.3
  also stops when "D does not satisfy pi": for the monotone models no group of D can
  satisfy pi then, so the later rounds move nothing and the result is the same; for the
  alpha-beta models a subset of D may satisfy pi where D does not, so we keep going).
- Random choice of the QI to raise: uniform among the QIs below their top level, from
  the release's key (``plan.key.rng("geneir-raise")``); the raised sequence is in ``notes["raised"]``.
- GeneIR needs nested taxonomy trees (every node inside one node of the next level, so that
  raising a level merges whole groups): a non-nested hierarchy (``QI.nested`` False, e.g.
  intervals of widths 5 and 7) is a :class:`~anonymizer.errors.SpecError`.
- Class ids are 1..e in the order classes were formed (by round, then by node codes).
"""

from __future__ import annotations

import time
from typing import Sequence

from anonymizer.families.identity_reserved import IR_MODEL_TYPES
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import Plan
from anonymizer.randomness import ReleaseKey
from anonymizer.engine.names import ident
from anonymizer.families.identity_reserved.result import IRResult

#: bound parameters' prefix of the model's SQL verdict in the residual query.
_P = "gm"


def domain_params(q) -> dict[str, float]:
    """$low<i>, $high<i>: a numeric QI's domain [L, U], bounding its nodes' intervals (bounds.sql.j2)."""
    return {f"low{q.index}": float(q.num_min), f"high{q.index}": float(q.num_max)}


def geneir(engine: Engine, plan: Plan, rec: str, ind: str, model, key: ReleaseKey | int | None = None,
           order: Sequence[str] = ()) -> IRResult:
    """Run GeneIR on the individuals ``ind`` and records ``rec`` (quoted work tables of the
    shared IR contract) for one identity-reserved ``model``; see the module docstring.

    ``key``: the random draws (default the plan's; an integer is a seed, as for LGB_NCP).
    ``order``: QI names to raise first, in this order (a name whose QI is already at its top
    is skipped); the random choice takes over when it runs out. Tests and the paper's
    example use it to fix the level order; a release leaves it empty.

    Returns an :class:`IRResult` whose ``assign`` is ``(pid, cid)`` for every individual not
    suppressed and ``levels`` is ``(cid, v0..v{d-1})``, the hierarchy level of each QI
    (in ``plan.qis`` order) in the class.
    """
    _check(plan, model)
    by_name = {q.name: q.index for q in plan.qis}
    unknown = [name for name in order if name not in by_name]
    if unknown:
        raise SpecError("algorithm.order", f"names no quasi-identifier (QIs: {', '.join(by_name)})", unknown[0])
    from anonymizer.families.identity_reserved.verify import class_counts_sql, decide_classes

    start = time.perf_counter()
    qis, d = plan.qis, len(plan.qis)
    w = {name: engine.work(f"gi_{name}") for name in
         ("nodes", "rest", "assign", "classes", "groups", "verdicts", "moved", "candidates", "levels", "long",
          "values")}
    params = {}
    for q in qis:
        if q.numeric:
            params[f"span{q.index}"] = (float(q.num_max - q.num_min) if q.num_max is not None and q.num_min is not None
                                        else 0.0)
            params.update(domain_params(q))
        else:
            params[f"size{q.index}"] = int(q.m)
    engine.run("families/identity_reserved/geneir/nodes.sql.j2", params, target=w["nodes"],
               qis=[{"i": q.index, "hier": q.hier, "dom": q.dom, "numeric": q.numeric} for q in qis])
    engine.run("families/identity_reserved/geneir/setup.sql.j2", rest=w["rest"], assign=w["assign"], classes=w["classes"], ind=ind, d=d)
    remaining = engine.count(w['rest'])

    rng = (plan.key if key is None else ReleaseKey.of(key)).rng("geneir-raise")
    first = [by_name[name] for name in order]
    levels = [0] * d
    raised: list[str] = []
    moved_per_round: list[list[int]] = []
    offset, rounds = 0, 0
    while remaining:
        rounds += 1
        lv = {f"v{i}": levels[i] for i in range(d)}
        engine.run("families/identity_reserved/geneir/group.sql.j2", lv, target=w["groups"], rest=w["rest"], nodes=w["nodes"], d=d)
        records = engine.sql("families/identity_reserved/geneir/group_records.sql.j2", groups=w["groups"], rec=rec)
        decide_classes(engine, model, records, ident("cid"), ident("pid"), ident("s"), w["verdicts"])
        engine.run("families/identity_reserved/geneir/move.sql.j2", dict(lv, offset=offset), target=w["moved"], groups=w["groups"],
                   verdicts=w["verdicts"], d=d)
        individuals, classes = engine.execute(
            f"SELECT count(*), count(DISTINCT cid) FROM {w['moved']}").fetchone()
        if individuals:
            engine.run("families/identity_reserved/geneir/keep.sql.j2", moved=w["moved"], assign=w["assign"], classes=w["classes"],
                       rest=w["rest"], d=d)
        moved_per_round.append([classes, individuals])
        offset += classes
        remaining -= individuals
        engine.say(f"GeneIR round {rounds}: levels {levels}, {classes} classes of {individuals} individuals "
                   f"moved, {remaining} left")
        below = [i for i in range(d) if levels[i] < qis[i].height]
        if not remaining or not below:
            break
        while first and first[0] not in below:
            first.pop(0)
        i = first.pop(0) if first else rng.choice(below)
        levels[i] += 1
        raised.append(qis[i].name)
    rounds_seconds = time.perf_counter() - start

    residuals = [row[0] for row in engine.rows("families/identity_reserved/geneir/residuals.sql.j2", rest=w["rest"])]
    joined = 0
    check = _residual_check(model)
    long = w["long"] if offset and residuals else None
    if long:  # D* has classes: each residual goes to the nearest one that can take it
        engine.run("families/identity_reserved/geneir/residual_setup.sql.j2", long=long, values=w["values"], classes=w["classes"], rec=rec,
                   d=d, check=check == "sql")
        if check == "sql":
            counts = class_counts_sql(f"(SELECT a.cid, r.pid, r.s FROM {w['assign']} AS a JOIN {rec} AS r "
                                      "ON r.pid = a.pid)", ident("cid"), ident("pid"), ident("s"))
            engine.run("families/identity_reserved/geneir/class_counts.sql.j2", classes=w["classes"], counts=counts)
        for pid in residuals:
            cid = _nearest(engine, w, model, check, ind, rec, pid, d)
            if cid is not None:
                engine.run("families/identity_reserved/geneir/assign_one.sql.j2", {"pid": pid, "cid": cid}, assign=w["assign"])
                engine.run("families/identity_reserved/geneir/class_grow.sql.j2", {"pid": pid, "cid": cid}, classes=w["classes"],
                           candidates=w["candidates"], ind=ind, check=check == "sql")
                engine.run("families/identity_reserved/geneir/long_grow.sql.j2", {"cid": cid}, long=long, candidates=w["candidates"], d=d)
                joined += 1
    sup_ind, sup_rec, classes = engine.one("families/identity_reserved/geneir/outcome.sql.j2", target=w["levels"], classes=w["classes"],
                                           long=long, rest=w["rest"], assign=w["assign"], d=d)
    notes = {"levels": {q.name: levels[q.index] for q in qis}, "raised": raised, "moved": moved_per_round,
             "residuals": len(residuals), "residuals_joined": joined,
             "seconds": {"rounds": rounds_seconds, "residuals": time.perf_counter() - start - rounds_seconds}}
    return IRResult(assign=w["assign"], levels=w["levels"], suppressed_individuals=int(sup_ind),
                    suppressed_records=int(sup_rec), classes=int(classes), rounds=rounds, notes=notes)


def _residual_check(model) -> str:
    """How a residual's candidate classes are checked: ``none`` for a monotone model (a class
    that satisfies it still does with one more individual), ``sql`` where the model's SQL
    verdict decides every class (the alpha-beta models), in the query that ranks them."""
    return "none" if model.monotonic else "sql"


def _nearest(engine: Engine, w: dict, model, check: str, ind: str, rec: str, pid: int, d: int) -> int | None:
    """The class of D* that takes residual ``pid``: the nearest by Eq. (17) among those that
    still satisfy the model with it (every class, for a monotone model), or ``None``."""
    params, verdict = {"pid": pid, "limit": 1}, None
    if check == "sql":
        params.update(model.params(_P))
        verdict = model.verdict_sql(_P)
    engine.run("families/identity_reserved/geneir/residual_candidates.sql.j2", params, target=w["candidates"], ind=ind, classes=w["classes"],
               long=w["long"], nodes=w["nodes"], d=d, verdict=verdict, rec=rec, values=w["values"],
               assign=w["assign"])
    row = engine.execute(f"SELECT cid FROM {w['candidates']}").fetchone()
    return None if row is None else row[0]


def _check(plan: Plan, model) -> None:
    """GeneIR's preconditions: an identity-reserved model, nested taxonomy trees."""
    if model is None or model.spec_type not in IR_MODEL_TYPES:
        raise SpecError("models", "GeneIR needs one identity-reserved model (ir-k-anonymity, ir-kl-anonymity, "
                                  "ir-alpha-beta-anonymity, eir-l-diversity or eir-alpha-beta-anonymity)",
                        str(model))
    if not model.monotonic and model.needs_python:
        raise SpecError("models", "GeneIR checks residuals against a non-monotone model with its SQL verdict, "
                                  "which this model cannot always give", str(model))
    broken: Sequence[str] = [q.name for q in plan.qis if not q.nested]
    if broken:
        raise SpecError(f"columns.{broken[0]}.hierarchy",
                        "GeneIR generalizes along taxonomy trees one level at a time and needs every node to lie "
                        "inside one node of the next level (a nested hierarchy); this one is not (e.g. interval "
                        "widths that do not divide each other)")
