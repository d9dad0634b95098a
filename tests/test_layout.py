"""The product stands apart from the paper reproductions (issue 17): no module of the engine
imports ``anonymizer.reproduce``, ``anonymizer.bench`` or ``anonymizer.datasets``; only the
CLI (which offers them as commands) and those packages themselves do."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "anonymizer"
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


def test_the_engine_imports_no_reproduction_benchmark_or_generator():
    engine = [p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] not in (*APART, "cli")]
    assert len(engine) > 40
    offending = {str(p.relative_to(PKG)): sorted(m for m in imported(p)
                                               if any(m.startswith(f"anonymizer.{a}") for a in APART))
                 for p in engine}
    assert not {k: v for k, v in offending.items() if v}
