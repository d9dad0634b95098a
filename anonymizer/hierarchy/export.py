"""Write a built hierarchy as an ARX CSV file (``value;level1;...;*``), with DuckDB COPY."""

from __future__ import annotations

from pathlib import Path

from anonymizer.engine.session import Engine


def export_arx(engine: Engine, hier: str, top: int, path: str | Path, delimiter: str = ";") -> None:
    """Write ``hier`` (levels 0..``top``) to ``path``: one line per value, in code order.

    The file loads back as ``{csv: path}`` with the same nodes at every level.
    """
    engine.run("hierarchy/export_arx.sql.j2", {"path": str(path), "delimiter": delimiter}, hier=hier, top=top)
