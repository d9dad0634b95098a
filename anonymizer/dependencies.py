"""The versions this process runs on, against the ranges CI has tested (``anonymizer --version``).

The tested ranges are the ones ``pyproject.toml`` declares (read back from the installed
package's metadata, so there is one list): each runtime dependency ``>=`` the oldest release
the floor smoke job passes and ``<`` the next minor CI has not run. pip keeps a user inside
them, but a user can still force another version (``pip install duckdb==X`` afterwards); this
says so instead of leaving a parser error to explain it.

Example:
    >>> [d.name for d in dependencies()][:2]
    ['duckdb', 'sqlglot']
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

#: the dependencies whose versions a user is told, in this order (pyspark: the ``spark`` extra)
SHOWN = ("duckdb", "sqlglot", "jinja2", "pandas", "numpy", "pyspark")


@dataclass(frozen=True)
class Dependency:
    """One dependency: ``installed`` version (``None``: not installed), ``tested`` range
    (pip's specifier text, ``""`` when the package's metadata cannot be read) and ``extra``
    (the optional extra that brings it, ``None`` for a runtime dependency)."""

    name: str
    installed: str | None
    tested: str
    extra: str | None = None

    @property
    def in_range(self) -> bool | None:
        """Whether the installed version is inside the tested range (``None``: unknown)."""
        if self.installed is None or not self.tested:
            return None
        try:
            return Requirement(f"{self.name}{self.tested}").specifier.contains(Version(self.installed),
                                                                                  prereleases=True)
        except InvalidVersion:
            return None

    def line(self) -> str:
        """``duckdb 2.0.1 (tested >=1.4.0,<2.1: in range)`` and the like."""
        if self.installed is None:
            extra = f"; pip install 'anonymizer[{self.extra}]'" if self.extra else ""
            return f"{self.name} not installed (tested {self.tested or 'range unknown'}{extra})"
        verdict = {True: "in range", False: "OUTSIDE the tested range: expect errors; pip install "
                   f"'{self.name}{self.tested}'", None: "range unknown"}[self.in_range]
        return f"{self.name} {self.installed} (tested {self.tested or '?'}: {verdict})"


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def declared() -> dict[str, tuple[str, str | None]]:
    """The ranges the installed ``anonymizer`` declares: name -> (specifier, extra or None).
    Empty when the package's metadata cannot be read (run from a source tree not installed)."""
    try:
        requires = metadata.requires("anonymizer") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, tuple[str, str | None]] = {}
    for text in requires:
        req = Requirement(text)
        extra = next((e for e in _EXTRAS if req.marker and req.marker.evaluate({"extra": e})), None)
        name = req.name.lower()
        if name not in found or _rank(extra) < _rank(found[name][1]):
            lower_first = sorted(req.specifier, key=lambda spec: not spec.operator.startswith(">"))
            found[name] = (",".join(str(spec) for spec in lower_first), extra)
    return found


#: the extras, the one a user would install first (for a dependency several bring) first
_EXTRAS = ("spark", "dbt", "dev")


def _rank(extra: str | None) -> int:
    return -1 if extra is None else _EXTRAS.index(extra)


def dependencies() -> list[Dependency]:
    """Each dependency of :data:`SHOWN` with its installed version and tested range."""
    ranges = declared()
    return [Dependency(name, _installed(name), *ranges.get(name, ("", None))) for name in SHOWN]


def outside() -> list[Dependency]:
    """Every runtime dependency (not only :data:`SHOWN`) whose installed version is outside
    its tested range: what pip would not have chosen, forced by hand. A package an extra names
    (pyspark) counts only where the package runs on it, so it is left out here."""
    return [d for name, (tested, extra) in declared().items() if extra is None
            for d in [Dependency(name, _installed(name), tested)] if d.in_range is False]


def version_text() -> str:
    """What ``anonymizer --version`` prints: this package, then one line per dependency."""
    lines = [f"anonymizer {_installed('anonymizer') or '(not installed)'}"]
    lines += [f"  {d.line()}" for d in dependencies()]
    lines += [f"  {d.line()}" for d in outside() if d.name not in SHOWN]
    return "\n".join(lines)
