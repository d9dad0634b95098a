"""What every paper experiment reports the same way: a claim of the paper checked against
the measured rows (a *finding*), its verdict, and the text that shows it."""

from __future__ import annotations

#: verdicts of a finding: every step agrees, some do, none does, the rows lack what it needs
HOLDS, PARTLY, NOT, NA = "holds", "partly", "does not hold", "n/a"


def rounded(x: float) -> float:
    """A figure as findings show it (4 decimals)."""
    return round(float(x), 4)


def finding(key: str, claim: str, holds: str, evidence: dict, note: str) -> dict:
    """One checked claim: its id in the paper's list, the claim, the verdict, the numbers
    behind it and the rule that decided it."""
    return {"id": key, "claim": claim, "holds": holds, "evidence": evidence, "note": note}


def verdict(flags: list[bool], words: tuple[str, str, str, str] = (HOLDS, NOT, PARTLY, NA)) -> str:
    """All true, all false, some, or no evidence (``words`` in that order)."""
    every, none, some, empty = words
    return empty if not flags else every if all(flags) else none if not any(flags) else some


def evidence_lines(value, indent: str) -> list[str]:
    """Nested evidence as indented lines."""
    if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
        out = []
        for k, v in value.items():
            if isinstance(v, dict):
                out.append(f"{indent}{k}:")
                out += evidence_lines(v, indent + "  ")
            else:
                out.append(f"{indent}{k}: {v}")
        return out
    if isinstance(value, dict):
        return [indent + ", ".join(f"{k}: {v}" for k, v in value.items())]
    return [f"{indent}{value}"]


def format_findings(found: list[dict], paper: str) -> str:
    """The findings, one block each: verdict and claim, the rule, the numbers behind it."""
    title = f"paper {paper}'s claims against these rows"
    lines = [title, "=" * len(title)]
    for f in found:
        lines += ["", f"({f['id']}) {f['holds'].upper():<7} {f['claim']}", f"    rule: {f['note']}"]
        lines += evidence_lines(f["evidence"], "    ")
    return "\n".join(lines)
