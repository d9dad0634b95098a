"""Readable summaries of a release for people (the CLI prints them; ``--json`` prints dicts)."""

from __future__ import annotations

from anonymizer.release.run import ReleaseResult


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def format_release(r: ReleaseResult) -> str:
    """A short multi-line summary: where it went, rows, privacy achieved, utility, time."""
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
    if r.classes:
        kind = "groups" if "groups" in (r.measures or {}) else "classes"
        lines.append(f"  {kind:<13} {r.classes} (average size {r.rows_out / r.classes:.1f})")
    m = r.measures or {}
    if m.get("k") is not None:
        lines.append(f"  achieved k    {m['k']}")
    for name, s in (m.get("sensitive") or {}).items():
        lines.append(f"  {name!s:<13} distinct l {_fmt(s.get('distinct_l'))}, entropy l {_fmt(s.get('entropy_l'))}, "
                     f"recursive l (c=2) {_fmt(s.get('recursive_l'))}, t {_fmt(s.get('t'))} (against the input)")
    for model in r.models:
        against = f", against the {model['reference']}'s distribution" if model.get("reference") else ""
        lines.append(f"  model         {model['model']}: {'holds' if model['holds'] else 'FAILS'} "
                     f"(figure {_fmt(model['figure'])}{against})")
    a = r.algorithm or {}
    if "checks" in a:     # a lattice search (PrivacyFrost2, optimal)
        levels = ", ".join(f"{q} {lv}" for q, lv in a["levels"].items())
        scored = f", score {_fmt(a['score'])} ({a['scoring']})" if "score" in a else ""
        lines.append(f"  lattice node  {levels}{scored}, loss {_fmt(a['loss'])}; {a['checks']} node checks "
                     f"on a {a['frequency_set_rows']}-row frequency set")
        if a.get("partial_rounds"):
            lowered = sum(p["classes"] for p in a["partial_rounds"])
            lines.append(f"  partial       {lowered} class-level de-generalizations in {len(a['partial_rounds'])} steps")
    if "greedy_steps" in a:   # paper 002's MSB algorithms
        lines.append(f"  greedy        {a['buckets']} buckets over {a['dimensions']} sensitive attributes; "
                     f"{a['greedy_steps']} steps (batch {a['batch']}) formed {a['groups']} groups, "
                     f"{a['residual_added']} records added to them, {a['suppressed']} suppressed")
    if "bucketization_rounds" in a:   # paper 000's LGB algorithms
        classes = ", ".join(f"{n} {kind}" for n, kind in a["attribute_classes"].items() if kind != "qi")
        buckets = ", ".join(f"{n} {b}" for n, b in a["buckets"].items())
        lines.append(f"  subsets       {a['subsets']} by the QI partition (Def. 8), {a['subsets_suppressed']} "
                     f"suppressed (under k rows); bucketized: {classes}")
        lines.append(f"  buckets       {buckets} (Alg. 2, {a['bucketization_rounds']} rounds); "
                     f"{a['groups']} local equivalence groups ({a['generalization_rounds']} rounds)")
    if "merges" in a:   # paper 004's DAnonyIR
        lines.append(f"  clustering    {a['steps']} argmin steps (Alg. 1 lines 7-8), {a['merges']} classes merged, "
                     f"{a['residual']} residual individuals: {a['joined']} joined a class, "
                     f"{a['residual'] - a['joined']} suppressed (Alg. 7)")
    u = r.utility or {}
    if "nloss" in u:   # paper 004
        lines.append(f"  individuals   {u['individuals']} in {u['classes']} classes ({_fmt(u['individuals_per_class'])} "
                     f"per class), {u['suppressed_individuals']} suppressed")
        lines.append(f"  utility       NLoss {_fmt(u['nloss'])} (Eq. 15); per QI "
                     + ", ".join(f"{k} {_fmt(v)}" for k, v in u["nloss_per_qi"].items()))
        if "vulnerable" in u:
            v = u["vulnerable"]
            lines.append(f"  vulnerable    {v['vulnerable']} of {v['classes']} classes satisfy the IR model but not "
                         f"its EIR version (section 5)")
    elif "c_dm" in u:
        lines.append(f"  utility       C_DM {u['c_dm']}, NCP(T) {_fmt(u['ncp'])}, NCP per QI cell "
                     f"{_fmt(u['ncp_per_qi_cell'])} (section 4.1)")
    elif "additional_information_loss" in u:
        lines.append(f"  utility       additional information loss {_fmt(u['additional_information_loss'])} "
                     f"(Def. 14), suppression ratio {_fmt(u['suppression_ratio'])} (Def. 15)")
    elif u:
        shown = [("NCP per cell", "ncp"), ("NCP(T)", "ncp_sum"), ("loss (ARX)", "loss"),
                 ("discernibility C_DM", "discernibility"), ("C_AVG", "cavg")]
        lines.append("  utility       " + ", ".join(f"{label} {_fmt(u[key])}" for label, key in shown if key in u))
    if r.timings:
        total = r.timings.get("total", sum(r.timings.values()))
        parts = ", ".join(f"{k} {v:.2f}s" for k, v in r.timings.items() if k != "total")
        lines.append(f"  elapsed       {total:.2f}s ({parts})")
    return "\n".join(lines)
