"""Algorithm 7 (Handle) of paper 004 and Algorithm 1 lines 20-26: the individuals of a last
class Q that never satisfied the model join the nearest formed class that still satisfies it
with them, or are suppressed when that costs less.

Line 4's check runs in SQL on the class counts of every formed class with p'''s records
added (:func:`anonymizer.families.identity_reserved.verify.class_counts_sql` and the model's
``verdict_sql``), and only for the non-monotone (alpha, beta) models: adding records to a class
keeps IR (k, l)-anonymity and EIR l-diversity (the paper skips the check for them). Line 11
compares the distance with the loss of suppressing R(p''): every QI of each record costs 1.
Line 22's random order is the release's draw order.
"""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.families.identity_reserved.verify import class_counts_sql
from anonymizer.families.identity_reserved.danonyir.element import Element
from anonymizer.families.identity_reserved.danonyir.state import Tables


@dataclass(frozen=True)
class Handled:
    suppressed: int
    suppressed_records: int
    classes: int


def handle(t: Tables, model, records: str, residual: list[int], classes: int) -> Handled:
    """Lines 21-25: Handle(p'') for each residual individual, in draw order."""
    if not residual:
        return Handled(0, 0, classes)
    suppressed = suppressed_records = 0
    for p in t.rows("families/identity_reserved/danonyir/residual.sql.j2", {"pids": residual},
                    people=t.people):                                     # line 22
        element = Element.of_individual(t.attrs, p)
        fits = None
        if not model.monotonic:                                           # line 4
            union = t.engine.sql("families/identity_reserved/danonyir/handle_records.sql.j2", members=t.members, classes=t.classes,
                                 records=records)
            counts = class_counts_sql(f"({union})", "cid", "pid", "s")
            fits = f"SELECT cid FROM ({counts}) WHERE {model.verdict_sql('h')}"
        params = {**element.params(), **model.params("h"), "nq": p["nrec"], "sq": 0.0, "pid": p["pid"]}
        best = t.rows("families/identity_reserved/danonyir/handle.sql.j2", params, classes=t.classes, fits=fits)[0]["best"]
        if best is not None and best["d"] <= p["nrec"] * len(t.attrs):   # line 11
            joined = Element.of_class(t.attrs, best)                      # lines 12-13
            joined.merge(element)
            t.run("families/identity_reserved/danonyir/class_drop.sql.j2", {"cids": [best["cid"]]}, classes=t.classes)
            t.put(best["cid"], joined, best["nrec"] + p["nrec"], best["nind"] + 1, [p["pid"]])
            t.sync()
        else:                                                             # line 15
            suppressed += 1
            suppressed_records += p["nrec"]
    return Handled(suppressed, suppressed_records, classes)
