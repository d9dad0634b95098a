"""A built hierarchy level by level: nodes, distortion range and example labels."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from anonymizer.engine.session import Engine


@dataclass(frozen=True)
class Level:
    """One level of a hierarchy (level 0: the values)."""

    level: int
    nodes: int
    min_distortion: float
    max_distortion: float
    examples: tuple[str, ...]

    def to_dict(self) -> dict:
        return asdict(self)


def level_summary(engine: Engine, hier: str, examples: int = 3) -> list[Level]:
    """Per level of the mapping table ``hier``: node count, least and greatest node
    distortion, and the first ``examples`` labels in code order (one SQL aggregate)."""
    rows = engine.rows("hierarchy/levels.sql.j2", {"examples": examples}, hier=hier)
    return [Level(level, nodes, lo, hi, tuple(labels)) for level, nodes, lo, hi, labels in rows]
