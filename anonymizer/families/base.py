"""What a family declares (:class:`Family`); the registry is :mod:`anonymizer.families`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Mapping


@dataclass(frozen=True)
class Family:
    """What a family declares (data the spec and the release read; no code runs here).

    Attributes:
        name: the family's name (``generalized``, ``anatomy``, ``lgb``, ``identity_reserved``).
        paper: the paper it implements (``"002"``), or ``None``.
        algorithms: each algorithm name of the spec it answers to -> the ``algorithm:``
            options that algorithm reads (``seed`` is every algorithm's).
        models: the model types (``type:`` of the spec) it accepts.
        reads: column features only this family reads: ``flag`` (per-cell sensitivity) or
            the role ``individual``.
        parts: the views it publishes besides the main one (``<view>_<part>``).
        units: what its groups of rows are called in a summary (``classes``, ``groups``).
        on_spark: the algorithms that run on Spark too (:mod:`anonymizer.engine.spark`); the
            others run on DuckDB only, and a Spark release of one is refused before any work.
        gate: its releases pass the cross-version gate (:mod:`anonymizer.release.combination`);
            without it a re-publication is refused under ``history: invariant``.
    """

    name: str
    paper: str | None
    algorithms: Mapping[str, frozenset[str]]
    models: frozenset[str]
    reads: frozenset[str] = frozenset()
    parts: tuple[str, ...] = ()
    units: str = "classes"
    on_spark: frozenset[str] = frozenset()
    gate: bool = False
    package: str = field(default="", compare=False)

    def steps(self) -> ModuleType:
        """The module with the family's five steps (imported on first use: the spec reads
        only the declarations)."""
        return importlib.import_module(f"{self.package}.steps")

    def options(self) -> ModuleType:
        """The module with the family's pairing rules (``pair``) and, where its gate covers
        some releases only, ``ungated(spec)``: why it cannot read this one, or ``None``."""
        return importlib.import_module(f"{self.package}.options")
