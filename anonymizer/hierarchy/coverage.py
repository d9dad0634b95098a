"""Check that a hierarchy file or a declared order names every value of a column."""

from __future__ import annotations

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.engine.names import ident


def check_covered(engine: Engine, source: str, column: str, leaves: str, field: str) -> None:
    """Raise a SpecError on ``field`` if some value of ``column`` is not a value of ``leaves``."""
    missing, sample = engine.one("hierarchy/unmatched.sql.j2", source=source, column=ident(column), leaves=leaves)
    if missing:
        raise SpecError(field, f"does not cover {missing} value(s) of the column, e.g. {sample}")
