"""``base``, the source's coded rows, left unwritten where the release reads them once.

:func:`~anonymizer.plan.prepare` writes ``base`` (``prepare/base.sql.j2``): each QI as its
domain code, the kept columns under internal names, a row id. On Spark writing it is a pass
over the source and a write of every row, and a strict Mondrian release published in place
reads it once more, in the statement that writes its candidate (``form/candidate.sql.j2``):
its cells come from the source's vectors (:mod:`~anonymizer.families.generalized.vectors`),
and a strict class is found by the row's QI codes, not by its row id. There the candidate
codes the source itself (``prepare/_coded_rows.sql.j2``, the same SELECT), and ``base`` is
never written: a pass over every row fewer.

Where a step of such a release reads ``base`` after all (the models' global distributions,
the input's values after a suppression, a fallback to the cells' pass), it asks
:func:`written` first, which writes it then. Nothing joins such a release's rows by row id,
so rows coded twice (Spark numbers them anew, ``monotonically_increasing_id()``) never meet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.spec.types import ReleaseSpec

if TYPE_CHECKING:
    from anonymizer.engine.session import Engine
    from anonymizer.plan import Plan


@dataclass(frozen=True)
class CodedRows:
    """``prepare/base.sql.j2``'s inputs (``context``, its target apart) and its bound lists
    (``lists``: ``values<i>``, ``codes<i>``), kept while ``base`` is not written."""

    context: dict
    lists: dict


def deferred(spec: ReleaseSpec, in_place: str | None) -> bool:
    """Whether ``base`` is left unwritten (module docstring): a strict Mondrian release whose
    candidate is written in place (``in_place``: :func:`~anonymizer.release.in_place.placed`),
    with no column that makes a step join the rows by their ids (a person, an individual, a
    passed-through column: the class of each row is written, ``assign``) and no model that
    reads the input's rows apart (global distributions, populations)."""
    options = spec.algorithm.options
    return (in_place is not None and spec.algorithm.name == "mondrian" and not getattr(options, "relaxed", True)
            and spec.history.person is None
            and not spec.by_role("individual") and not spec.by_role("insensitive")
            and not any(m.needs_global or m.needs_population for m in spec.models))


def written(engine: "Engine", plan: "Plan") -> str:
    """``plan.base``, written now if it was left unwritten (:func:`deferred`)."""
    if plan.coded is not None:
        engine.run("prepare/base.sql.j2", plan.coded.lists or None, target=plan.base, **plan.coded.context)
        plan.coded = None
    return plan.base
