"""What the hierarchy builders share: where they build (:class:`Site`), how the domain is
ordered (:class:`Order`), the coded domain they read (:class:`Domain`) and what they report
back (:class:`Levels`). See :mod:`anonymizer.hierarchy.build` for the steps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonymizer.engine.session import Engine

if TYPE_CHECKING:
    from anonymizer.spec.types import Column


@dataclass(frozen=True)
class Site:
    """Where a column's hierarchy is built: the engine, the source and the column."""

    engine: Engine
    source: str           # quoted source relation
    column: "Column"      # resolved: its type is numeric or categorical
    key: str              # suffix of the column's work tables
    value_type: str       # the column's database type (and so the domain's ``value``)
    covered: bool = False  # the source holds only values the hierarchy file names (anonymizer.dp.covered)
    distinct: str = ""    # a relation holding the column's distinct values as source does, read where only
                          # they matter (the domain, a file's coverage): source, or the QIs' distinct vectors

    @property
    def values(self) -> str:
        """The relation the column's distinct values are read from (``distinct``, else ``source``)."""
        return self.distinct or self.source

    @property
    def where(self) -> str:
        """The spec field of the column's hierarchy, for error messages."""
        return f"columns.{self.column.name}.hierarchy"

    def work(self, name: str) -> str:
        """The quoted work table ``<name><key>``."""
        return self.engine.work(f"{name}{self.key}")


@dataclass(frozen=True)
class Order:
    """How the domain is coded: an SQL order over ``vals.value`` and ``lv`` (the ``leaves``)."""

    order_by: str
    leaves: str | None = None


BY_VALUE = Order("vals.value")


def by_value(site: Site) -> Order:
    """The ``order`` step of builders whose values are coded in their own order (numbers, dates)."""
    return BY_VALUE


@dataclass(frozen=True)
class Domain:
    """A coded domain, as the level builders see it."""

    site: Site
    dom: str
    leaves: str | None
    m: int
    num_min: float | None
    num_max: float | None
    integer: bool         # values are whole numbers of an integer type

    @property
    def hierarchy(self):
        return self.site.column.hierarchy

    @property
    def nodes(self) -> str:
        """The quoted table a builder fills with levels ``1..top-1`` (code, level, label,
        distortion[, low, high]: with :attr:`Levels.bounds`)."""
        return self.site.work("nodes")


@dataclass(frozen=True)
class Levels:
    """What a builder built: the top level, whether it wrote inner levels, whether the top
    ``*`` is still to add (not when a file's last level is already one node), and whether
    its nodes carry the bounds their labels state (``low``, ``high``; else a class labelled
    by an inner node publishes no bounds)."""

    top: int
    inner: bool = True
    add_top: bool = True
    bounds: bool = False
