"""Readable summaries of a release for people (``anonymizer run`` prints them; ``--json`` prints dicts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer import families
from anonymizer.numbers import fmt

if TYPE_CHECKING:
    from anonymizer.release.candidate import ReleaseResult


def format_release(r: ReleaseResult) -> str:
    """A short multi-line summary: where it went, rows, privacy achieved, utility, time; the
    family adds its own lines (its algorithm's figures, its utility metrics)."""
    if r.dry_run:
        head = f"release {r.release} dry run: verified and measured, nothing published (would be {r.view})"
    else:
        head = (f"release {r.release} v{r.version} " + ("unchanged: nothing new published" if r.unchanged
                                                       else f"published as {r.view}"))
    lines = [head] + ([] if r.dry_run else [f"  snapshot      {r.snapshot}"]) + [
             f"  rows          {r.rows_in} in, {r.rows_out} out, {r.suppressed} suppressed"
             + (f" ({r.suppressed / r.rows_in:.2%})" if r.rows_in else "")]
    for view in r.views:
        lines.append(f"  {'would add' if r.dry_run else 'also':<13} {view}")
    if r.database:
        lines.append(f"  database      {r.database}")
    for path in r.exports:
        lines.append(f"  exported      {path}")
    family = families.of(r.algorithm["name"]) if (r.algorithm or {}).get("name") in families.ALGORITHMS else None
    if r.classes:
        kind = family.units if family else "classes"
        lines.append(f"  {kind:<13} {r.classes} (average size {r.rows_out / r.classes:.1f})")
    m = r.measures or {}
    if m.get("k") is not None:
        lines.append(f"  achieved k    {m['k']}")
    for name, s in (m.get("sensitive") or {}).items():
        lines.append(f"  {name!s:<13} distinct l {fmt(s.get('distinct_l'))}, entropy l {fmt(s.get('entropy_l'))}, "
                     f"recursive l (c=2) {fmt(s.get('recursive_l'))}, t {fmt(s.get('t'))} (against the input)")
    for model in r.models:
        against = f", against the {model['reference']}'s distribution" if model.get("reference") else ""
        lines.append(f"  model         {model['model']}: {'holds' if model['holds'] else 'FAILS'} "
                     f"(figure {fmt(model['figure'])}{against})")
    if family is not None:
        lines += family.steps().summary_lines(r)
    lines += [f"  warning       {w}" for w in r.warnings]
    if r.timings:
        total = r.timings.get("total", sum(r.timings.values()))
        parts = ", ".join(f"{k} {v:.2f}s" for k, v in r.timings.items() if k != "total")
        lines.append(f"  elapsed       {total:.2f}s" + (f" ({parts})" if parts else " (checking that nothing changed)"
                                                        if r.unchanged else ""))
    return "\n".join(lines)
