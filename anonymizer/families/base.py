"""What a family declares (:class:`Family`); the steps it implements are a
:class:`~anonymizer.release.candidate.FamilySteps` (the contract the pipeline states); the
registry is :mod:`anonymizer.families`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Mapping, TypeVar

if TYPE_CHECKING:
    from anonymizer.plan import Plan
    from anonymizer.release.candidate import FamilySteps

#: a family's ``algorithm:`` options (the ``Options`` of its ``options`` module)
Options = TypeVar("Options")


def options_of(plan: Plan, kind: type[Options]) -> Options:
    """The plan's ``algorithm:`` options, which a family's steps read as its own ``kind``."""
    if not isinstance(plan.options, kind):
        raise TypeError(f"the plan holds {type(plan.options).__name__} options, not {kind.__qualname__} "
                        f"of {kind.__module__}")
    return plan.options


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
        gate: its releases pass the cross-version gate (:mod:`anonymizer.versions.combination`);
            without it a re-publication is refused under ``history: invariant``.
        own_models: it has models no other family reaches, in its ``models`` module (their
            ``MODEL_TYPES``: :func:`anonymizer.families.model_types`).
        refuses: per algorithm, the model types of ``models`` it does not take (Mondrian's
            local cuts cannot generalize a population table as the release is: k-map and
            delta-presence are the lattice algorithms').
    """

    name: str
    paper: str | None
    algorithms: Mapping[str, frozenset[str]]
    models: frozenset[str]
    reads: frozenset[str] = frozenset()
    parts: tuple[str, ...] = ()
    units: str = "classes"
    gate: bool = False
    own_models: bool = False
    refuses: Mapping[str, frozenset[str]] = field(default_factory=dict)
    package: str = field(default="", compare=False)

    def models_of(self, algorithm: str) -> frozenset[str]:
        """The model types ``algorithm`` (one of this family's) takes."""
        return self.models - self.refuses.get(algorithm, frozenset())

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
