"""A differentially private release's rows: those its hierarchy files cover.

A release with generalization hierarchies refuses, before any work, a value its hierarchy file
does not name (:func:`anonymizer.hierarchy.coverage.check_covered`). Under differential
privacy that refusal is itself a release: whether a run publishes would tell whether one row
holds such a value, outside ε. So a DP release reads the source through a view that leaves
those rows out (``prepare/dp_covered.sql.j2``), as it leaves out a row with a NULL
quasi-identifier (``nulls: suppress``): the mechanism runs on the rest, and such a row is
published as a suppressed one is, not at all. For the same reason each file's shape (a tree, a
numeric column's nodes ranges of its values) is checked on the file's own values
(``prepare/dp_file_shape.sql.j2``), never only on the data's, which one row can change, and a
file none of whose values the column's type can show (a DOUBLE column against a file of whole
numbers, ``prepare/dp_file_type.sql.j2``) is refused: the file and the type are public.
"""

from __future__ import annotations

import re

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.hierarchy.csv_file import load_leaves
from anonymizer.hierarchy.spec import NUMERIC_TYPES
from anonymizer.row_ids import VIEW_ROWID, has_rowid
from anonymizer.spec.types import ReleaseSpec


def covered(engine: Engine, spec: ReleaseSpec, source: str) -> str:
    """``source`` itself, or for a DP release whose quasi-identifiers have hierarchy files, a
    view of the rows whose every QI value its file names (module docstring)."""
    files = [c for c in spec.quasi if c.hierarchy is not None and c.hierarchy.kind == "csv"]
    if spec.target.budget is None or not files:
        return source
    qis, types = [], engine.columns(source)
    for i, c in enumerate(files):
        assert c.hierarchy is not None and c.hierarchy.location is not None   # a csv hierarchy names its file
        leaves, levels = load_leaves(engine, f"dp{i}", c.hierarchy.location, c.hierarchy.delimiter)
        split, level, label = engine.one("prepare/dp_file_shape.sql.j2", leaves=leaves, levels=levels,
                                         numeric=c.type == "numeric")
        if split:
            raise SpecError(f"columns.{c.name}.hierarchy", f"{split} label(s) of the file cover values that are not "
                            f"neighbours, e.g. {label!r} at level {level} (is the file a tree? a numeric column's "
                            "nodes must be ranges of its values); a differentially private release checks the file "
                            "itself, since whether the rows show it would tell a fact of one row")
        _check_type(engine, c.name, types[c.name], leaves)
        qis.append({"column": ident(c.name), "leaves": leaves})
    target = engine.work("dp_covered")
    rowid = has_rowid(engine, source) and VIEW_ROWID not in types   # the table's, passed on (row_ids.py)
    engine.run("prepare/dp_covered.sql.j2", target=target, source=source, qis=qis,
               rowid=ident(VIEW_ROWID) if rowid else None)
    return target


#: the column types whose text a file's values are checked against (:func:`_check_type`)
TYPED = NUMERIC_TYPES + ("DATE", "TIMESTAMP", "BOOLEAN")


def _check_type(engine: Engine, name: str, db_type: str, leaves: str) -> None:
    """Refuse a file none of whose values the column's type writes as the file does (a DOUBLE
    column against a file of ``39``): every row would be left out, and the run would spend for
    nothing. The file and the column's type are public, so the refusal tells nothing of a row."""
    value_type = db_type.upper()
    if value_type not in TYPED and not re.fullmatch(r"DECIMAL\(\d+,\s*\d+\)", value_type):
        return   # text, or a type this check does not know: compared as the coverage check compares
    values, typed, example, written = engine.one("prepare/dp_file_type.sql.j2", leaves=leaves, value_type=value_type)
    if values and not typed:
        held = f"holds as {written!r}" if written is not None else "cannot hold"
        raise SpecError(f"columns.{name}.hierarchy", f"no value of the file is written as a {db_type} column writes its "
                        f"values (e.g. {example!r}, which a {db_type} {held}), so no row could be covered: cast the "
                        "column to the file's type in the source, or write the file's values as the column shows them")
