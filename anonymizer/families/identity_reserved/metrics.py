"""NLoss of an identity-reserved release (paper 004, Wang et al. 2018, section 4.1).

Paper 004 extends GLM (its Eq. 5) to the loss of a value generalized to another (Definitions
4.1-4.4). From an original value, which is what a published record starts from:

- numeric QI with domain ``[L, U]``, record generalized to ``[a*, b*]``:
  ``Loss = (b* - a*) / (U - L)`` (Eq. 11 with ``b - a = 0``);
- categorical QI with domain ``X``, record generalized to the set ``r*[A']``:
  ``Loss = (|r*[A']| - 1) / (|X| - 1)`` (Eq. 12 with ``|r[A']| = 1``);
- a record's loss is the sum over its QIs (Eq. 13; the paper writes the sum's bound as
  ``|Q|``, garbled: it runs over the ``|QI|`` attributes), the table's the sum over the records
  (Eq. 14), and ``NLoss = Loss(D, D*) / (|D| * |QI|)`` (Eq. 15).

Suppression "replaces a value by a special mark ... and its information loss is 1" (section
4.1, before Definition 4.3; Algorithm 7 line 11 compares with ``|R(p'')| * |QI|``), so a
suppressed record costs 1 per QI, and ``|D|`` counts the records of the source, suppressed
ones included: NLoss is 1 when everything is suppressed ("in worst case, we suppress all
records").

Input: the verified candidate in the Table 4 form (``anonymizer.families.identity_reserved.form``): per numeric QI
``<name>_low`` / ``<name>_high`` (the class's interval ``[a*, b*]``), per categorical QI
``<name>_values`` (the original values the class's generalized value covers; a hierarchy
node of GeneIR covers the values below it, a DAnonyIR set its members' values).

Choices where the paper is silent:

- A one-value domain (``U = L`` or ``|X| = 1``) loses nothing: the loss is 0, not 0/0.
- ``|r*[A']|`` counts the distinct listed values.
- A cell whose loss is outside ``[0, 1]`` (a value set larger than ``X``, a NULL bound), or
  an interval leaving ``[L, U]``, means the candidate or the domains given are wrong:
  :class:`DataError`.

Everything row-level is one statement (``templates/metrics/ir_nloss.sql.j2``); Python
adds the suppressed records' cost and divides.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, SpecError
from anonymizer.engine.names import ident


def nloss(engine: Engine, candidate: str, qis: Sequence[Mapping[str, Any]], rows_total: int,
          suppressed_records: int, real_only: bool = False) -> dict:
    """NLoss(D, D*) of a candidate (Eqs. 11-15), in SQL.

    Args:
        candidate: quoted relation in the Table 4 form (one row per released record).
        qis: per QI ``{"name", "numeric", "low", "high"}`` (the domain ``[L, U]`` of a numeric
            QI) or ``{"name", "numeric": False, "size"}`` (``|X|`` of a categorical one).
        rows_total: ``|D|``, the records of the source, suppressed ones included.
        suppressed_records: records left out of the candidate; each costs 1 per QI.
        real_only: the candidate holds counterfeit records (negative ``__rid``, an m-invariant
            version): they are no records of the source and are left out.

    Returns ``{"nloss", "loss" (Eq. 14), "records" (|D|), "released", "suppressed",
    "qis" (|QI|), "per_qi": {name: mean loss of the QI over |D| records}, "released_nloss"
    (the mean over the released records' cells only)}``, JSON-ready.
    """
    qis = _checked(qis)
    rows_total, suppressed_records = _count("rows_total", rows_total, 1), _count(
        "suppressed_records", suppressed_records, 0)
    params: dict[str, Any] = {}
    cols = []
    for j, q in enumerate(qis):
        if q["numeric"]:
            params[f"low{j}"], params[f"span{j}"] = float(q["low"]), float(q["high"]) - float(q["low"])
            cols.append({"numeric": True, "low": ident(f"{q['name']}_low"), "high": ident(f"{q['name']}_high")})
        else:
            params[f"size{j}"] = int(q["size"])
            cols.append({"numeric": False, "vals": ident(f"{q['name']}_values")})
    released, *figures = engine.one("metrics/ir_nloss.sql.j2", params, candidate=candidate, qis=cols,
                                    real_only=real_only)
    released = int(released)
    sums, bad = [float(x) for x in figures[::2]], [int(x) for x in figures[1::2]]
    for q, n in zip(qis, bad):
        if n:
            raise DataError(candidate, f"{n} records have a {q['name']} cell whose loss is not in [0, 1]: the "
                                       f"generalized value is missing, or does not fit the domain given")
    if released + suppressed_records != rows_total:
        raise DataError(candidate, f"{released} released + {suppressed_records} suppressed records are not the "
                                   f"{rows_total} records of the source")
    d = len(qis)
    total = sum(sums) + suppressed_records * d
    return {"nloss": total / (rows_total * d), "loss": total, "records": rows_total, "released": released,
            "suppressed": suppressed_records, "qis": d,
            "per_qi": {q["name"]: (s + suppressed_records) / rows_total for q, s in zip(qis, sums)},
            "released_nloss": sum(sums) / (released * d) if released else None}


def _checked(qis: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    qis = list(qis)
    if not qis:
        raise SpecError("qis", "need at least one quasi-identifier")
    names = [q.get("name") for q in qis]
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
        raise SpecError("qis", "names must be distinct non-empty strings", names)
    for q in qis:
        if q.get("numeric"):
            low, high = q.get("low"), q.get("high")
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high))
            if not numbers or cast(float, high) < cast(float, low):
                raise SpecError(f"qis.{q['name']}", "a numeric QI needs its domain low <= high", (low, high))
        else:
            size = q.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise SpecError(f"qis.{q['name']}", "a categorical QI needs its domain size |X| >= 1", size)
    return qis


def _count(name: str, value: Any, least: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise SpecError(name, f"must be a whole number >= {least}", value)
    return value
