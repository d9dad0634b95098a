"""Paper 002's worked examples beside ours (``anonymizer reproduce p002 --table 1`` or
``--figure 1``).

Table 1: the nine records' sensitive vectors with the security levels section 3 gives their
values, as :func:`anonymizer.families.anatomy.buckets.build_levels` computes them, and section
3's count of groups under one l = 3 ("only three diversity groups for multiple sensitive
attributes can be formed"), as the three baselines release them.

Figure 1: the two-dimensional buckets of Table 1. The figure itself is an image our copy of
the paper lacks; its text quotes one bucket and two dimension capacities with their terms
(rows John, Bob, Anne, Sam, Mary; columns Flu, Pneumonia, Gastritis, HIV, Cancer), which we
compute with :func:`anonymizer.families.anatomy.buckets.build_buckets` (Definition 13).
"""

from __future__ import annotations

from anonymizer.engine.names import ident
from anonymizer.reproduce.p002_msb.worked_example import TABLE1, load_table1, table1_spec
from anonymizer.reproduce.worked import Side

#: Section 3: "the security levels of all sensitive attribute values [of Physician] can be set
#: to ... Level 1", Flu Level 0, Pneumonia and Gastritis Level 1, HIV and Cancer Level 2.
DISEASE_LEVEL = {"Flu": 0, "Pneumonia": 1, "Gastritis": 1, "HIV": 2, "Cancer": 2}
#: Table 1's records with their values' levels, as the paper's text sets them.
PAPER_TABLE1 = tuple((f"t{i}", r[6], r[7], 1, DISEASE_LEVEL[r[7]]) for i, r in enumerate(TABLE1, 1))
#: Figure 1's order of rows (physicians) and columns (diseases), from its quoted sums
PHYSICIANS = ("John", "Bob", "Anne", "Sam", "Mary")
DISEASES = ("Flu", "Pneumonia", "Gastritis", "HIV", "Cancer")
#: Section 3's text on Figure 1: bucket <Anne, Gastritis> = {t6}, size 1; Capa(Anne) and Capa(Gastritis)
PAPER_FIGURE1 = (("size(buk<Anne, Gastritis>)", "{t6}", 1), ("Capa(Anne)", "0 + 0 + 1 + 0 + 0", 1),
                 ("Capa(Gastritis)", "1 + 0 + 1 + 0 + 0", 2))


def _buckets(con) -> tuple[dict, dict]:
    """Our levels ``(dim, value) -> level`` and bucket sizes ``(physician, disease) -> size``
    of Table 1 (the SQL of build_levels and build_buckets)."""
    from anonymizer.engine.session import Engine
    from anonymizer.families.anatomy.buckets import build_buckets, build_levels
    from anonymizer.plan import prepare
    from anonymizer.spec.parse import load_spec
    load_table1(con)
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, load_spec(table1_spec()))
        levels = build_levels(engine, plan, [1, 2, 3])
        table, _, _ = build_buckets(engine, plan, levels, None)
        names = [ident(k.internal) for k in plan.sensitive]
        level = {(d, v): s for d, v, s in con.execute(f"SELECT dim, value, level FROM {levels}").fetchall()}
        size = {(p, x): n for p, x, n in con.execute(f"SELECT {names[0]}, {names[1]}, size FROM {table}").fetchall()}
    return level, size


def table1(con) -> list[Side]:
    """Table 1's records with their levels, and the groups the baselines form under l = 3."""
    from anonymizer.api import anonymize
    level, _ = _buckets(con)
    ours = [(f"t{i}", r[6], r[7], level[0, r[6]], level[1, r[7]]) for i, r in enumerate(TABLE1, 1)]
    counts = []
    for algorithm in ("mbf", "msdcf", "mmdcf", "mbf-mslf", "msdcf-mslf", "mmdcf-mslf"):
        result = anonymize(table1_spec(release=f"p002_table1_{algorithm.replace('-', '_')}", algorithm=algorithm),
                           con=con, force=True)
        counts.append((algorithm, result.algorithm["groups"], result.suppressed))
    return [Side("Table 1 with section 3's security levels (Physician, Disease)",
                 ["Record", "Physician", "Disease", "level(Physician)", "level(Disease)"], list(PAPER_TABLE1), ours),
            Side("Section 3: under one l = 3 \"only three diversity groups ... can be formed\"",
                 ["algorithm", "groups", "suppressed"], [(a, 3, 0) for a in ("mbf", "msdcf", "mmdcf")], counts[:3],
                 note="the paper gives no count for L_sl-diversity; ours: "
                      + ", ".join(f"{a} {g} groups" for a, g, _ in counts[3:])
                      + " (a level-1 group needs 2 records, a level-2 group 3)")]


def figure1(con) -> list[Side]:
    """The bucket and the two dimension capacities section 3 quotes from Figure 1."""
    _, size = _buckets(con)
    anne = [size.get(("Anne", x), 0) for x in DISEASES]
    gastritis = [size.get((p, "Gastritis"), 0) for p in PHYSICIANS]
    holding = [f"t{i}" for i, r in enumerate(TABLE1, 1) if (r[6], r[7]) == ("Anne", "Gastritis")]
    ours = [("size(buk<Anne, Gastritis>)", "{" + ", ".join(holding) + "}", size[("Anne", "Gastritis")]),
            ("Capa(Anne)", " + ".join(map(str, anne)), sum(anne)),
            ("Capa(Gastritis)", " + ".join(map(str, gastritis)), sum(gastritis))]
    return [Side("Figure 1: two-dimensional buckets of Table 1, the cells section 3 quotes",
                 ["quantity", "terms", "value"], list(PAPER_FIGURE1), ours,
                 note="the figure is an image missing from our copy; its text quotes these three figures")]


EXAMPLES = {("table", "1"): ("Paper 002, section 3: Table 1, its security levels and its groups under l = 3", table1),
            ("figure", "1"): ("Paper 002, section 3: Figure 1's buckets and dimension capacities", figure1)}
