"""The product stands apart from the paper reproductions (issue 17): no module of the engine
imports ``anonymizer.reproduce``, ``anonymizer.bench`` or ``anonymizer.datasets``; only the
CLI (which offers them as commands) and those packages themselves do."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "anonymizer"
APART = ("reproduce", "bench", "datasets")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as a dotted name under ``anonymizer``."""
    package = list(path.relative_to(PKG.parent).with_suffix("").parts)[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found |= {module} | {f"{module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def engine_modules() -> list[Path]:
    """Every module of the product: all but the reproductions, benchmarks, generators and CLI."""
    return [p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] not in (*APART, "cli")]


def test_the_engine_imports_no_reproduction_benchmark_generator_or_cli():
    engine = engine_modules()
    assert len(engine) > 40
    offending = {str(p.relative_to(PKG)): sorted(m for m in imported(p)
                                               if any(m.startswith(f"anonymizer.{a}") for a in (*APART, "cli")))
                 for p in engine}
    assert not {k: v for k, v in offending.items() if v}


def test_the_pipeline_and_the_layers_below_it_import_no_family():
    """Registries point down (issue 37): the families import the pipeline, the plan and the
    models, never the other way; the spec names the families (it parses their options), and
    the pipeline is handed a family's steps by its caller."""
    below = [p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] in ("release", "engine", "models", "metrics",
                                                                           "hierarchy")
             or p.name in ("plan.py", "target.py", "fields.py", "numbers.py", "measure.py")]
    assert len(below) > 30
    offending = {str(p.relative_to(PKG)): sorted(m for m in imported(p) if m.startswith("anonymizer.families"))
                 for p in below}
    assert not {k: v for k, v in offending.items() if v}


def test_the_engine_renders_no_reproduction_template():
    """``templates/reproduce/`` serves the paper reproductions only (ARCHITECTURE rule 3)."""
    named = {str(p.relative_to(PKG)) for p in engine_modules() if '"reproduce/' in p.read_text()}
    assert not named
    assert any('"reproduce/' in p.read_text() for p in (PKG / "reproduce").rglob("*.py"))


def test_no_module_is_over_420_lines():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if (n := len(p.read_text().splitlines())) > 420}
    assert not long


def test_module_level_imports_have_no_cycle():
    """Imports at module level (not inside functions, not under TYPE_CHECKING) form no cycle."""
    graph: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        edges = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("anonymizer"):
                names = [f"{node.module}.{a.name}" for a in node.names]
                submodules = [n for n in names if (PKG.parent / f"{n.replace('.', '/')}.py").exists()
                              or (PKG.parent / n.replace(".", "/") / "__init__.py").exists()]
                edges |= set(submodules) | ({node.module} if len(submodules) < len(names) else set())
            elif isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name.startswith("anonymizer")}
        graph[name] = edges
    graph = {m: {e for e in edges if e in graph and e != m} for m, edges in graph.items()}
    state: dict[str, int] = {}

    def cycle_from(m: str, trail: list[str]) -> list[str] | None:
        state[m] = 1
        for e in sorted(graph[m]):
            if state.get(e) == 1:
                return trail + [m, e]
            if e not in state and (found := cycle_from(e, trail + [m])):
                return found
        state[m] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            assert cycle_from(module, []) is None


def test_tests_mirror_the_code():
    """A test file at the top of ``tests/`` tests a top-level module of the same name; the
    others live in the folder of the package they test (``tests/release/`` for
    ``anonymizer/release/``, ...) or in ``tests/project/`` (the repository as a whole)."""
    tests = PKG.parent / "tests"
    flat = {p.stem.removeprefix("test_") for p in tests.glob("test_*.py")}
    assert flat and not {name for name in flat if not (PKG / f"{name}.py").exists()}
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name not in ("fixtures", "__pycache__")}
    assert not {f for f in folders if not (PKG / f).is_dir()} - {"project", "privacy", "dbt"}


#: a comparison of an engine's name: ``dialect ==``/``!=``, ``== "spark"``/``"duckdb"`` either
#: side, ``is_spark``, or reading ``.dialect`` (passing it to code that compares it)
NAME_TEST = re.compile(r"""dialect\s*[!=]=|[!=]=\s*['"](?:spark|duckdb)['"]|['"](?:spark|duckdb)['"]\s*[!=]="""
                       r"""|\bis_spark\b|\.dialect\b""")


def name_tests(root: Path) -> dict[str, list[str]]:
    """The lines of the modules under ``root`` (a package ``anonymizer``), outside its
    ``engine/``, that compare an engine's name (:data:`NAME_TEST`)."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] != "engine":
            hits = [f"{n}: {line.strip()}" for n, line in enumerate(path.read_text().splitlines(), 1)
                    if NAME_TEST.search(line)]
            if hits:
                found[str(path.relative_to(root))] = hits
    return found


@pytest.mark.parametrize("line", ['if engine.dialect == "duckdb":', "if engine.dialect != 'spark':",
                                  'if is_spark(con):', 'gated = name == "spark"', 'x = "duckdb" != kind',
                                  'check.model_sql(m, "sizes", dialect=engine.dialect)'])
def test_an_engine_name_test_is_seen(line):
    assert NAME_TEST.search(line)


def test_nothing_outside_the_engine_compares_an_engine_name():
    """The engine declares what it can do (``engine.capabilities``, ARCHITECTURE's "The engine
    declares what it can do"); the pipeline, the plan, the models and the families ask it, and
    render through the engine (:meth:`Engine.sql`), instead of testing ``engine.dialect`` or
    whether a connection is Spark's. ``engine.name`` names the engine in messages."""
    assert not name_tests(PKG)


#: the cross-version steps the driver runs for every family (issue 55's "the pipeline owns the versions")
DRIVER_STEPS = {"gate", "colliding", "repaired", "continuation", "continued", "previous_state"}


def test_no_family_calls_the_gate_the_repair_or_the_continuation():
    """The driver (:func:`anonymizer.release.run.verified`) continues from the last version,
    repairs colliding groups and runs the gate; a family only states what it published and how
    its groups merge (``FamilySteps.released``, ``repairable``, ``merge``)."""
    calls = {}
    for path in sorted((PKG / "families").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                if name in DRIVER_STEPS:
                    calls.setdefault(str(path.relative_to(PKG)), []).append(f"{node.lineno}: {name}")
    assert not calls


def test_every_spark_test_is_in_a_file_named_for_spark():
    """The test runner keeps every Spark test on one pytest-xdist worker by its file's name
    (tests/conftest.py, pytest_xdist_make_scheduler): a Spark test elsewhere would start a
    second Spark session on the other worker."""
    from tests.conftest import SPARK_FILE
    tests = Path(__file__).resolve().parents[1]
    marked = [p.relative_to(tests.parent).as_posix() for p in tests.rglob("test_*.py")
              if re.search(r"mark\.spark\b", p.read_text(encoding="utf-8"))]
    assert marked and all(SPARK_FILE.search(name) for name in marked), marked
