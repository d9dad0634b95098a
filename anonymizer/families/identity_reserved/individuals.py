"""Individuals with several records (paper 004): Id_num and the individuals table.

Algorithm 1, line 1 recodes the explicit identifier with numbers: every individual gets an
Id_num 1..n (``renumber: appearance`` numbers them by their first record, as the running
example turns Table 2's names into 1..7, which follows the source's row order: for paper
reproductions; the default ``random`` ranks individuals by the release's secret random draw,
so the published Id_num says nothing about the identifier or the source's order). Both
identity-reserved algorithms (DAnonyIR, GeneIR) then work on two work tables:

- ``ir_rec(__rid, pid, s)``: every record with its individual and sensitive value (text);
- ``ir_ind(pid, nrec, draw, q0.., sens)``: every individual with |R(p)|, its QI codes, its rank
  in the release's random draw (Algorithm 1, lines 3 and 22: "select randomly") and its values S(p).

The paper takes an individual's QI values as the same on all its records (section 4.4.3); an
individual whose records disagree could not sit in one equivalence class, so that is a
:class:`DataError` naming the column.
"""

from __future__ import annotations

from dataclasses import dataclass

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError
from anonymizer.plan import Plan
from anonymizer.families.identity_reserved import options


@dataclass(frozen=True)
class Individuals:
    """The two work tables of an identity-reserved run and their sizes."""

    rec: str
    ind: str
    count: int
    records: int


def individuals(engine: Engine, plan: Plan) -> Individuals:
    """Build ``ir_rec`` and ``ir_ind`` for ``plan`` (see the module docstring)."""
    qis = [{"i": q.index} for q in plan.qis]
    mixed = engine.one("families/identity_reserved/mixed_individuals.sql.j2", base=plan.base, qis=qis)
    for q, n in zip(plan.qis, mixed):
        if n:
            assert plan.individual is not None   # the family needs the individual column (options.pair)
            raise DataError(plan.source, f"{n} individuals (column {plan.individual.column.name!r}) have records with "
                                         f"different values of quasi-identifier {q.name!r}; an identity-reserved "
                                         "release needs one value per individual (paper 004, section 4.4.3)")
    rec, ind = engine.work("ir_rec"), engine.work("ir_ind")
    appearance = options.of(plan).renumber == "appearance"
    engine.run("families/identity_reserved/records.sql.j2", {} if appearance else plan.key.params(), target=rec, base=plan.base,
               appearance=appearance)
    engine.run("families/identity_reserved/individuals.sql.j2", plan.key.params(), target=ind, records=rec, base=plan.base, qis=qis)
    count = engine.count(ind)
    return Individuals(rec, ind, count, plan.base_rows)
