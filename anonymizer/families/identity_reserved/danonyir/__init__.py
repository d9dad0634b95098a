"""DAnonyIR: greedy clustering of individuals with several records (paper 004, Algorithm 1).

Wang, Du, Luo and Li, "Two privacy-preserving approaches for data publishing with identity
reservation" (Knowledge and Information Systems, 2018). Reading guide:

==========================================  ==================================================
paper                                       here
==========================================  ==================================================
Alg. 1 line 1 (recode the identifier)       :mod:`anonymizer.families.identity_reserved.individuals`, templates/families/identity_reserved/individuals.sql.j2
Section 2.2 (set generalization, δ)         :mod:`.element` (Element.merge, bit sets)
Eqs. (11)-(13) (losses)                     :mod:`.element` (Element.span), families/identity_reserved/danonyir/loss.sql.j2
Eqs. (16)-(18) (distances)                  families/identity_reserved/danonyir/loss.sql.j2, families/identity_reserved/danonyir/nearest.sql.j2
Alg. 1 lines 2-19 (form classes)            :func:`danonyir` below
Alg. 1 lines 7-8 (two argmins)              :meth:`.state.Tables.nearest` (one statement), pruned
                                            exactly by :mod:`.search` (no scan of D per step)
Alg. 1 line 14, Algs. 2-6 (SatPriIR*)       the model's ``tracker()``, :mod:`anonymizer.families.identity_reserved.models`
Alg. 1 lines 20-26, Alg. 7 (Handle)         :mod:`.handle`
Alg. 1 lines 27-31 (substitute r̄)           :mod:`anonymizer.families.identity_reserved.form` (the published Table 4 form)
==========================================  ==================================================

Every argmin over the remaining individuals and over the formed classes is one vectorised
statement over the individuals table D and the classes table D*, or over their candidates
(:mod:`.search`: D and D* are scanned about once per class, not once per step, with the same
result); Python holds only the growing class Q. The variants of section 4.3 are the model of the spec: DAnonyIR_kl (``ir-kl-anonymity``),
DAnonyIR_El (``eir-l-diversity``), DAnonyIR_αβ and DAnonyIR_Eαβ (``ir-`` and
``eir-alpha-beta-anonymity``), and ``ir-k-anonymity``.

Choices where the paper is silent:

- "Select randomly" (lines 3 and 22) follows the release's random draw of Id_num (its secret key,
  or ``algorithm.seed``; see :mod:`anonymizer.randomness`).
- Ties of an argmin go to the smaller Id_num (line 7) or class id (line 8); line 9 prefers the
  individual when the two distances are equal (up to :data:`.state.TIE` of float rounding).
- Line 5 sets SatFlag = False because one individual "does not satisfy π"; we ask the check
  instead, which agrees whenever one individual cannot satisfy the model (k, l >= 2) and does
  not grow a class that is already safe otherwise.
"""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.families.identity_reserved.individuals import Individuals
from anonymizer.plan import Plan
from anonymizer.families.identity_reserved.result import IRResult
from anonymizer.families.identity_reserved.danonyir import cells
from anonymizer.families.identity_reserved.danonyir.element import Element, attrs_of
from anonymizer.families.identity_reserved.danonyir.handle import handle
from anonymizer.families.identity_reserved.danonyir.search import Search
from anonymizer.families.identity_reserved.danonyir.state import TIE, Growing, Tables


def danonyir(engine: Engine, plan: Plan, people: Individuals, model) -> IRResult:
    """Algorithm 1 on ``people`` (:func:`anonymizer.families.identity_reserved.individuals.individuals`) for ``model``.

    Returns the classes as ``assign(pid, cid)``; suppressed individuals (Algorithm 7 line 15)
    are left out and counted.
    """
    attrs = attrs_of(plan)
    t = Tables(engine, attrs, engine.work("dn_people"), engine.work("dn_rest"), engine.work("dn_classes"),
               engine.work("dn_members"), people.count)
    t.run("families/identity_reserved/danonyir/people.sql.j2", target=t.people, ind=people.ind)
    if t.remaining >= cells.BATCH_FROM:
        cells.assign(t)
    engine.execute(f"CREATE TABLE {t.rest} AS SELECT * FROM {t.people}")
    t.run("families/identity_reserved/danonyir/classes.sql.j2", classes=t.classes, members=t.members)
    search = Search(t)
    cid, steps, merges, q = 0, 0, 0, None
    while t.remaining > 0:                                                # line 2
        row = search.draw()                                               # line 3
        assert row is not None                                            # D holds t.remaining > 0
        q = Growing(Element.of_individual(attrs, row), model.tracker(), home=row.get("cell", 0))   # line 4
        q.add(row["pid"], row["nrec"], row["sens"])                       # line 5 (see docstring)
        search.start(q)
        while not q.satisfied and t.remaining > 0:                        # line 6
            p, c = search.nearest(q)                                      # lines 7, 8
            steps += 1
            if c is None or p["d"] <= c["d"] + TIE * max(1.0, abs(c["d"])):   # line 9
                t.take(p["pid"])                                          # line 10
                q.add(p["pid"], p["nrec"], p["sens"], Element.of_individual(attrs, p))
            else:                                                         # line 12
                merges += 1
                q.element.merge(Element.of_class(attrs, c))
                search.drop(c["cid"])
                for pid, nrec, sens in t.unstore(c["cid"]):
                    q.add(pid, nrec, sens)
        if q.satisfied:                                                   # lines 16-17
            cid += 1
            t.store(cid, q)
            search.stored(cid, q)
            if cid % 500 == 0:
                engine.say(f"danonyir: {cid} classes, {t.remaining} individuals left")
    t.flush()
    t.sync()
    residual = q.members if q is not None and not q.satisfied else []     # line 20
    handled = handle(t, model, people.rec, residual, cid)                 # lines 21-25
    return IRResult(t.members, None, handled.suppressed, handled.suppressed_records, handled.classes,
                    steps, {"steps": steps, "merges": merges, "residual": len(residual),
                            "joined": len(residual) - handled.suppressed, **search.counts,
                            "fetched": t.fetched, "fetched_by": dict(t.fetched_by), "sent": t.sent})
