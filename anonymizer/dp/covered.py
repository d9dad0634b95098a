"""A differentially private release's rows: those its hierarchy files cover.

A release with generalization hierarchies refuses, before any work, a value its hierarchy file
does not name (:func:`anonymizer.hierarchy.coverage.check_covered`). Under differential
privacy that refusal is itself a release: whether a run publishes would tell whether one row
holds such a value, outside ε. So a DP release reads the source through a view that leaves
those rows out (``prepare/dp_covered.sql.j2``), as it leaves out a row with a NULL
quasi-identifier (``nulls: suppress``): the mechanism runs on the rest, and such a row is
published as a suppressed one is, not at all. For the same reason each file's shape (a tree, a
numeric column's nodes ranges of its values) is checked on the file's own values
(``prepare/dp_file_shape.sql.j2``, a numeric file in the order of the column's type), never
only on the data's, which one row can change. What the file and the column's type show before
a row is read is refused (``prepare/dp_file_type.sql.j2``): a file none of whose values the type
can show (a DOUBLE column against a file of whole numbers), a file naming two values the column
cannot tell apart (0.0 and -0.0), and a text column whose collation takes apart strings that
differ (NOCASE): each would let one row decide how others are coded. A NaN or an infinity is
left out even where the file names it.
"""

from __future__ import annotations

import re

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.hierarchy.csv_file import load_leaves
from anonymizer.hierarchy.spec import FLOAT_TYPES
from anonymizer.row_ids import VIEW_ROWID, free_name, has_rowid
from anonymizer.spec.types import ReleaseSpec


def covered(engine: Engine, spec: ReleaseSpec, source: str) -> tuple[str, str | None]:
    """``source`` itself, or for a DP release whose quasi-identifiers have hierarchy files, a
    view of the rows whose every QI value its file names (module docstring); and the SQL (over
    ``src``) of the view's column passing its table's rowid on (:mod:`anonymizer.row_ids`), or
    ``None``."""
    files = [c for c in spec.quasi if c.hierarchy is not None and c.hierarchy.kind == "csv"]
    if spec.target.budget is None or not files:
        return source, None
    qis, types = [], engine.columns(source)
    for i, c in enumerate(files):
        assert c.hierarchy is not None and c.hierarchy.location is not None   # a csv hierarchy names its file
        leaves, levels = load_leaves(engine, f"dp{i}", c.hierarchy.location, c.hierarchy.delimiter)
        value_type = _check_values(engine, source, c.name, types[c.name], leaves)
        split, level, label = engine.one("prepare/dp_file_shape.sql.j2", leaves=leaves, levels=levels,
                                         numeric=c.type == "numeric", value_type=value_type)
        if split:
            raise SpecError(f"columns.{c.name}.hierarchy", f"{split} label(s) of the file cover values that are not "
                            f"neighbours, e.g. {label!r} at level {level} (is the file a tree? a numeric column's "
                            "nodes must be ranges of its values); a differentially private release checks the file "
                            "itself, since whether the rows show it would tell a fact of one row")
        qis.append({"column": ident(c.name), "leaves": leaves, "finite": value_type in FLOAT_TYPES})
    target = engine.work("dp_covered")
    rowid = has_rowid(engine, source) and free_name(types, VIEW_ROWID)   # the table's, passed on (row_ids.py)
    engine.run("prepare/dp_covered.sql.j2", target=target, source=source, qis=qis,
               rowid=ident(VIEW_ROWID) if rowid else None)
    return target, f"src.{ident(VIEW_ROWID)}" if rowid else None


#: a column type as the catalog writes a plain one (``BIGINT``, ``DECIMAL(18,3)``, ``TIMESTAMP
#: WITH TIME ZONE``): the only types written into the file checks' SQL (an ENUM, a STRUCT or a
#: LIST is compared as text, unchecked)
PLAIN_TYPE = re.compile(r"[A-Z][A-Z0-9_ ]*(\(\d+(\s*,\s*\d+)?\))?")
#: the catalog's names of a text column
TEXT_TYPES = ("VARCHAR", "TEXT", "STRING")


def _check_values(engine: Engine, source: str, name: str, db_type: str, leaves: str) -> str | None:
    """Refuse what the file and the column's type, both public, show before any row is read
    (``prepare/dp_file_type.sql.j2``): a file none of whose values the type writes as the file
    does (a DOUBLE column against a file of ``39``: every row would be left out, and the run
    would spend for nothing); a file naming two values the column cannot tell apart (0.0 and
    -0.0, or 'a' and 'A' under a NOCASE collation: their rows would be coded as one value,
    written as whichever row came first); a text column with a collation that takes apart
    strings it should not. Returns the column's type where the checks read it (``None``: a
    type they do not write into SQL, compared as text)."""
    value_type = db_type.upper()
    if not PLAIN_TYPE.fullmatch(value_type):
        return None
    text = value_type in TEXT_TYPES
    values, typed, merged, example, written, twin, collated = engine.one(
        "prepare/dp_file_type.sql.j2", source=source, column=ident(name), leaves=leaves, value_type=value_type, text=text)
    field = f"columns.{name}.hierarchy"
    if values and not typed and not text:
        held = f"holds as {written!r}" if written is not None else "cannot hold"
        raise SpecError(field, f"no value of the file is written as a {db_type} column writes its values (e.g. "
                               f"{example!r}, which a {db_type} {held}), so no row could be covered: cast the column to "
                               "the file's type in the source, or write the file's values as the column shows them")
    if merged:
        raise SpecError(field, f"{merged} values of the file are equal as the {db_type} column compares them but written "
                               f"apart (e.g. {twin!r}): the rows of all of them would be published as whichever row came "
                               "first; keep one of each in the file")
    if collated:
        raise SpecError(f"columns.{name}", "compares text under a collation (case, accents or Unicode normalization "
                                           "taken apart): a differentially private release compares values byte for "
                                           "byte, so release from a view of the column without it, e.g. "
                                           f"decode(encode({ident(name)})) AS {ident(name)}")
    return value_type
