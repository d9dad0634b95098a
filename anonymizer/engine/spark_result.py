"""What a Spark statement returns, read as a DuckDB cursor is (:class:`Result`): the DB-API
calls the release pipeline makes (``fetchone``, ``fetchall``, ``fetchmany``,
``description``) and DuckDB's ``fetchnumpy``, with values as DuckDB's Python client gives
them (a struct as a dict). Only ever small results: aggregates, or the few candidate rows of
a DAnonyIR batch."""

from __future__ import annotations

import itertools


class Result:
    """A statement's ``DataFrame`` (``frame``; ``None`` for a statement with no rows) as a cursor."""

    def __init__(self, frame):
        self.frame = frame
        self._stream = None

    def fetchall(self) -> list[tuple]:
        return [tuple(_plain(v) for v in row) for row in self.frame.collect()] if self.frame is not None else []

    def fetchone(self) -> tuple | None:
        rows = self.frame.take(1) if self.frame is not None else []
        return tuple(_plain(v) for v in rows[0]) if rows else None

    def fetchmany(self, size: int) -> list[tuple]:
        """The next ``size`` rows (a DB-API cursor's ``fetchmany``), read a partition at a time."""
        if self.frame is None:
            return []
        if self._stream is None:
            self._stream = self.frame.toLocalIterator()
        return [tuple(_plain(v) for v in row) for row in itertools.islice(self._stream, size)]

    @property
    def description(self) -> list[tuple[str]]:
        """The columns' names, as a DB-API cursor's first items (a DuckDB cursor's description)."""
        return [(f.name,) for f in self.frame.schema.fields] if self.frame is not None else []

    def fetchnumpy(self) -> dict:
        """The rows as one numpy array per column, as DuckDB's ``fetchnumpy`` (integers as int64,
        floating point as float64 with NULL as NaN, anything else as objects)."""
        import numpy as np
        from pyspark.sql import types
        rows = self.frame.collect() if self.frame is not None else []
        found = {}
        for i, f in enumerate(self.frame.schema.fields if self.frame is not None else []):
            values = [r[i] for r in rows]
            if isinstance(f.dataType, (types.LongType, types.IntegerType, types.ShortType, types.ByteType)):
                found[f.name] = np.array(values, dtype=np.int64)
            elif isinstance(f.dataType, (types.DoubleType, types.FloatType)):
                found[f.name] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            else:
                found[f.name] = np.empty(len(values), dtype=object)
                found[f.name][:] = [_plain(v) for v in values]
        return found


def _plain(value):
    """A value as DuckDB's Python client returns it: a struct as a dict (Spark: a ``Row``),
    inside lists too."""
    from pyspark.sql import Row
    if isinstance(value, Row):
        return {name: _plain(v) for name, v in zip(value.__fields__, value)}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
