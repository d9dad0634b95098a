"""What a family declares (:class:`Family`) and the steps it implements (:class:`FamilySteps`);
the registry is :mod:`anonymizer.families`."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Mapping, TypeVar

if TYPE_CHECKING:
    from anonymizer.engine.session import Engine
    from anonymizer.plan import Plan
    from anonymizer.release.candidate import Rounds, Verified
    from anonymizer.release.candidate import ReleaseResult

#: the family's algorithm result (``Rounds.result``), its candidate, and what its verify hands to measure
Result = TypeVar("Result")
Built = TypeVar("Built")
Checked = TypeVar("Checked")
#: a family's ``algorithm:`` options (the ``Options`` of its ``options`` module)
Options = TypeVar("Options")


def options_of(plan: Plan, kind: type[Options]) -> Options:
    """The plan's ``algorithm:`` options, which a family's steps read as its own ``kind``."""
    if not isinstance(plan.options, kind):
        raise TypeError(f"the plan holds {type(plan.options).__name__} options, not {kind.__qualname__} "
                        f"of {kind.__module__}")
    return plan.options


class FamilySteps(ABC, Generic[Result, Built, Checked]):
    """The five steps of a family, which the one driver (:func:`anonymizer.release.run.verified`)
    runs in order; each family's ``steps`` module has one instance, ``STEPS``. Typed by what
    passes between them, so a type checker follows a release into every family."""

    @abstractmethod
    def run(self, engine: Engine, plan: Plan) -> Rounds[Result]:
        """The algorithm (the paper's rounds); the driver then applies the suppression gate."""

    @abstractmethod
    def build(self, engine: Engine, plan: Plan, rounds: Rounds[Result]) -> Built:
        """The candidate table(s) and the published columns."""

    @abstractmethod
    def verify(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built) -> Checked:
        """Every declared model re-checked in SQL on the candidate, then the cross-version gate."""

    @abstractmethod
    def measure(self, engine: Engine, plan: Plan, rounds: Rounds[Result], built: Built, checked: Checked) -> Verified:
        """The privacy and utility figures: the candidate, ready to publish."""

    @abstractmethod
    def summary_lines(self, r: ReleaseResult) -> list[str]:
        """What the release summary adds for this family."""


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
        own_models: it has models no other family reaches, in its ``models`` module (their
            ``MODEL_TYPES``: :func:`anonymizer.families.model_types`).
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
    own_models: bool = False
    package: str = field(default="", compare=False)

    def steps(self) -> FamilySteps[Any, Any, Any]:
        """The family's five steps, ``STEPS`` of its ``steps`` module (imported on first use:
        the spec reads only the declarations)."""
        steps: FamilySteps[Any, Any, Any] = importlib.import_module(f"{self.package}.steps").STEPS
        return steps

    def options(self) -> ModuleType:
        """The module with the family's ``algorithm:`` options (``Options``, made by
        ``parse(name, block, quasi, seed)``), its pairing rules (``pair``) and, where its
        gate covers some releases only, ``ungated(history, columns)``: why it cannot read this one,
        or ``None``."""
        return importlib.import_module(f"{self.package}.options")
