"""What a run holds in memory, for the benchmarks and the reproductions' timing tables."""

from __future__ import annotations

import resource

from anonymizer.engine.session import Engine


def memory(engine: Engine) -> tuple[float, float]:
    """(this process's peak resident MB, DuckDB's memory in use now in MB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    duck = engine.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()").fetchone()[0]
    return round(peak, 1), round(duck / 2**20, 1)
