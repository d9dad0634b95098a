"""The interface every privacy model implements.

A model decides, for one equivalence class, whether it is safe, and measures a figure.
All models read the same input, a *histogram* relation ``(gid, s, n)``: ``n`` rows of the
group ``gid`` carry sensitive value ``s`` (for models without a sensitive attribute,
``s`` is constant). The same SQL therefore checks published classes (verification),
candidate halves of a Mondrian split, and generalized classes of a lattice node.

A model's template (``templates/models/<template>.sql.j2``) renders a ``SELECT gid,
figure, ok`` over ``{{ hist }}``; models that compare with the whole table (t-closeness)
also read ``{{ glob }}``, the table-wide distribution ``(s, p, rnk)``; models that compare with
a population table (k-map, delta-presence) read ``{{ pop }}``, its classes at the same
generalization ``(gid, F, sampled)``: F population rows, ``sampled`` whether the research
sample (the release's input) holds rows of the class. Parameters are
bound, named ``$<prefix>_<name>`` so that several models can share one statement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol

from anonymizer.errors import SpecError


@dataclass(frozen=True)
class PrivacyModel:
    """Base class: parameters are frozen fields; subclasses set the class attributes."""

    #: template under ``templates/models/`` rendering ``gid, figure, ok`` per group.
    template: ClassVar[str] = ""
    #: how the per-class figures combine into the table's figure: ``min`` or ``max``.
    figure_agg: ClassVar[str] = "min"
    #: whether a model that holds for a partition holds for any union of its parts
    #: (lets a lattice search prune, and lets Mondrian stop at the first failing split).
    monotonic: ClassVar[bool] = True
    #: whether it stays monotonic when failing rows may be suppressed (ARX's
    #: ``isMonotonicWithSuppression``): every row failing in a class also fails in each part
    #: of that class, so a node whose failing rows exceed the suppression budget prunes every
    #: finer node. True for k-anonymity and distinct l-diversity.
    monotonic_with_suppression: ClassVar[bool] = False
    #: whether the check needs the table-wide distribution ``glob``.
    needs_global: ClassVar[bool] = False
    #: whether the check needs the population's classes ``pop`` (its ``population`` table).
    needs_population: ClassVar[bool] = False
    #: the model's ``type`` in a spec (``k-anonymity``); a family declares the types it
    #: accepts (:class:`anonymizer.families.Family`), so no model carries a family flag.
    spec_type: ClassVar[str] = ""

    def __post_init__(self) -> None:
        """Every numeric parameter is finite, also for models built in Python rather than from
        a spec (whose ranges :func:`~anonymizer.models.build_model` checks): a NaN threshold
        passes no comparison and would make every class hold."""
        for f in fields(self):
            value = getattr(self, f.name)
            for x in value if isinstance(value, tuple) else (value,):
                if isinstance(x, float) and not math.isfinite(x):
                    raise SpecError(f"{type(self).__name__}.{f.name}", "must be a finite number", value)

    @property
    def sensitive(self) -> str | None:
        """The sensitive attribute this model protects, or ``None``."""
        return getattr(self, "attribute", None)

    def params(self, prefix: str) -> dict[str, Any]:
        """Bound parameters for this model's template, named ``<prefix>_<field>``."""
        return {f"{prefix}_{k}": v for k, v in self.values().items()}

    def values(self) -> dict[str, Any]:
        """The model's numeric parameters by name (``k``, ``l``, ``c``, ``t``, ``alpha``)."""
        raise NotImplementedError


class LBounded(Protocol):
    """A model that bounds the sensitive values of a class by ``l`` on ``attribute``
    (``None``: on every attribute): the l-diversity variants and LGB's l-unique."""

    @property
    def l(self) -> float: ...

    @property
    def attribute(self) -> str | None: ...
