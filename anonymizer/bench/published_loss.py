"""ARX's loss of a published table, read from the file a tool wrote: one measure for every tool.

``bench arx-grid`` compares our release with ARX's on loss; both outputs go through
:func:`published_loss`, so that neither tool's own bookkeeping decides the comparison. Per
quasi-identifier cell ``(values covered - 1) / (m - 1)``, where ``m`` counts the QI's distinct
values in the data (not the hierarchy's leaves) and a label covers the data's values it
stands for (``templates/bench/published_loss/loss.sql.j2``: the value itself, ``*``, a
hierarchy node above it, a value set ``{a, b}``, a range ``[lo, hi]``); a suppressed row costs
1 in each QI (ARX's rows with ``_outlier`` 1, or the source's rows the table lacks). The mean
over the source's ``N * d`` cells is our release's ``utility["loss"]`` on our output
(``tests/bench/test_published_loss.py``). The tables are read with DuckDB, every field as
text; Python sees one row of sums.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Mapping

import duckdb

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError

#: the column of ARX's exported table saying a row is suppressed (``ArxBench.java`` writes it)
OUTLIER = "_outlier"
_T = "bench/published_loss/"


def published_loss(published: str | Path, source: str | Path, hierarchies: Mapping[str, str | Path | None], *,
                   delimiter: str = ";", source_delimiter: str = ";", hierarchy_delimiter: str = ";") -> dict:
    """The loss of the table in CSV file ``published``, made from CSV file ``source``.

    Args:
        published: the published table with a header; its columns named like the source's
            QIs hold the labels; a column ``_outlier`` (0/1), if present, marks suppressed rows.
        source: the data the table was made from (with a header).
        hierarchies: QI name -> its ARX-format hierarchy file (``None``: no hierarchy, labels are
            values, value sets or ranges); the keys are the QIs measured.
    Returns:
        ``loss`` (mean per cell over the source's rows, in [0, 1]), ``rows``, ``released``,
        ``suppressed`` and ``per_qi`` (each QI's mean, its suppressed cells counting 1).
    Raises:
        DataError: a label covers none of the data's values (a form this measure cannot read).
    """
    qis = list(hierarchies)
    engine = Engine(duckdb.connect())
    try:
        with ExitStack() as stack:
            def table(template: str, path: str | Path, delim: str) -> str:
                return stack.enter_context(engine.scratch(engine.sql(_T + template), {"path": str(path), "delim": delim},
                                                          template=_T + template))

            out = table("text_csv.sql.j2", published, delimiter)
            src = table("text_csv.sql.j2", source, source_delimiter)
            columns = engine.columns(out, str(published))
            missing = [q for q in qis if q not in columns]
            if missing:
                raise DataError(str(published), f"has no column {missing[0]!r}")
            described = [{"col": ident(q), "hier": table("hierarchy_nodes.sql.j2", h, hierarchy_delimiter) if h else None}
                         for q, h in hierarchies.items()]
            rows, released, per_qi = engine.one(_T + "loss.sql.j2", published=out, source=src, qis=described,
                                                outlier=ident(OUTLIER) if OUTLIER in columns else None)
    finally:
        engine.con.close()
    for q, figures in zip(qis, per_qi):
        if figures["unmatched"] is not None:
            raise DataError(str(published), f"label {figures['unmatched']!r} of column {q!r} covers none of the "
                                            "data's values")
    suppressed = rows - released
    per = {q: (f["loss_sum"] + suppressed) / rows for q, f in zip(qis, per_qi)}
    return {"loss": sum(per.values()) / len(qis) if qis else 0.0, "rows": rows, "released": released,
            "suppressed": suppressed, "per_qi": per}
