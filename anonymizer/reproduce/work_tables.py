"""Named, timed work tables of one metric evaluation (the query errors of papers 000 and 004)."""

from __future__ import annotations

import time
import uuid
from typing import Any, Sequence

from anonymizer.engine.session import Engine


class WorkTables:
    """``with WorkTables(engine, "qe", names) as t: t["rows"]``: a quoted work table per name
    (tagged, so evaluations in one workspace do not collide), the seconds the block took, and
    the tables dropped at the end (or the work schema closed if this evaluation opened it)."""

    def __init__(self, engine: Engine, prefix: str, names: Sequence[str]):
        self.engine, self.opened = engine, engine.work_schema is None
        tag = uuid.uuid4().hex[:8]
        self.names = {n: engine.work(f"{prefix}_{n}_{tag}") for n in names}
        self.seconds = 0.0

    def __enter__(self) -> "WorkTables":
        self.start = time.perf_counter()
        return self

    def __getitem__(self, name: str) -> str:
        return self.names[name]

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.start
        if self.opened:
            self.engine.close_work()
        elif not self.engine.keep_work:
            for name in self.names.values():
                self.engine.drop(name)
