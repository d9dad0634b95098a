"""Paper 000's worked example beside ours (``anonymizer reproduce p000 --figure N``, N = 1 to 4).

Fig. 1(b) is the microdata (:mod:`.worked_example`); Figs. 2 to 4 are what LGB makes of it with
k = l = 2: Fig. 3 the QI partition (a) and the local equivalence groups (b), Fig. 4 the local
buckets, Fig. 2 both together. Ours is one LGB_MDP release of Fig. 1(b) (:func:`.worked_example.fig1_spec`,
seeded), read back from the published view with the source's IDs.

How the sides are printed, so that they can be compared cell by cell:

- group and bucket numbers (GID, BID) are ours renumbered in order of their smallest ID, as the
  paper's are;
- a generalized age is ``[lo-hi]``; a generalized zip code, which we publish as the group's
  range ``[lo, hi]``, is shown as the smallest digit mask covering that range (``2135*`` for
  [21352, 21358]), the paper's notation;
- a bucketized cell of Figs. 2 and 4 is its local bucket: the set of the bucket's values and
  its BID. The paper prints one value of the bucket per row (a permutation, like our
  published values); on the paper's side the set is read off the rows sharing that BID.
"""

from __future__ import annotations

from anonymizer.reproduce.p000_lgb.worked_example import FIG1, MARK, fig1_spec, load_fig1
from anonymizer.reproduce.worked import Side

#: the release's seed: our buckets' ties and dealing, and the permutation; one of the seeds whose draw gives
#: the paper's buckets (BUCKETS_NOTE)
SEED = 376
ATTRS = ("age", "gender", "zip", "disease")
NAMES = ("Age", "Gender", "Zip Code", "Disease")

#: Fig. 2 as printed: ID, GID, then each attribute's value with its BID ("-": a QI value).
FIG2 = (
    (1001, 1, "[25-28](-)", "*(-)", "21344(1)", "Bronchitis(1)"),
    (1002, 1, "[25-28](-)", "*(-)", "21357(1)", "Gastritis(1)"),
    (1003, 2, "[16-22](-)", "Male(-)", "2135*(-)", "Dyspepsia(2)"),
    (1004, 3, "24(1)", "Male(-)", "213**(-)", "Pneumonia(2)"),
    (1005, 4, "31(1)", "Female(-)", "21328(-)", "Flu(3)"),
    (1006, 2, "[16-22](-)", "Male(-)", "2135*(-)", "Hepatitis(3)"),
    (1007, 4, "29(2)", "Female(-)", "21328(-)", "Bronchitis(4)"),
    (1008, 3, "34(2)", "Male(-)", "213**(-)", "Pneumonia(4)"),
)
#: Fig. 3(a) as printed: ID, subset of the QI partition, then value(flag). (The text's "34(Voc)"
#: and "Bronchitis(Vos)" of 1008 are read as Yes, as Figs. 1(b) and 3(b) print them.)
FIG3A = tuple((r[0], g, *(f"{v}({'Yes' if f else 'No'})" for v, f in zip(r[1::2], r[2::2])))
              for r, g in zip(FIG1, (1, 1, 2, 3, 3, 2, 3, 3)))
#: Fig. 3(b) as printed: ID, local equivalence group, then value(flag).
FIG3B = (
    (1001, 1, "[25-28](No)", "*(No)", "21357(Yes)", "Bronchitis(Yes)"),
    (1002, 1, "[25-28](No)", "*(No)", "21344(Yes)", "Gastritis(Yes)"),
    (1003, 2, "[16-22](No)", "Male(No)", "2135*(No)", "Dyspepsia(Yes)"),
    (1004, 3, "24(Yes)", "Male(No)", "213**(No)", "Pneumonia(Yes)"),
    (1005, 4, "31(Yes)", "Female(No)", "21328(No)", "Hepatitis(Yes)"),
    (1006, 2, "[16-22](No)", "Male(No)", "2135*(No)", "Flu(Yes)"),
    (1007, 4, "29(Yes)", "Female(No)", "21328(No)", "Pneumonia(Yes)"),
    (1008, 3, "34(Yes)", "Male(No)", "21340(No)", "Bronchitis(Yes)"),
)
#: Fig. 4 as printed: ID, then each attribute's value with its BID.
FIG4 = (
    (1001, "28(-)", "Male(-)", "21344(1)", "Bronchitis(1)"),
    (1002, "25(-)", "Female(-)", "21357(1)", "Gastritis(1)"),
    (1003, "16(-)", "Male(-)", "21352(-)", "Dyspepsia(2)"),
    (1004, "24(1)", "Male(-)", "21336(-)", "Pneumonia(2)"),
    (1005, "31(1)", "Female(-)", "21328(-)", "Flu(3)"),
    (1006, "22(-)", "Male(-)", "21358(-)", "Hepatitis(3)"),
    (1007, "29(2)", "Female(-)", "21328(-)", "Bronchitis(4)"),
    (1008, "34(2)", "Male(-)", "21340(-)", "Pneumonia(4)"),
)

BUCKETS_NOTE = (
    "the buckets are the paper's. Algorithm 2 splits an attribute's sensitive values at their median while both "
    "halves are l-eligible; we take the upper median (line 3 keeps s <= median), and then no attribute of the "
    "example splits (Age's big half {34} and Disease's {Hepatitis, Pneumonia x2} are not 2-eligible). divide_buckets "
    "is m-invariance's assignment: each bucket takes one record of each of the l values with the most records left "
    "(Bronchitis and Pneumonia first). Which of equally frequent values go together, and which Bronchitis or "
    "Pneumonia row goes to which bucket, is the release's random draw: the seed (376) is one whose draw gives the "
    "paper's buckets (7 of the seeds 0 to 999 do), {24, 31} and {29, 34}; {Bronchitis, Pneumonia}, {Bronchitis, Gastritis}, {Dyspepsia, "
    "Pneumonia} and {Flu, Hepatitis}. With the lower median, Age would split at 29 into {24, 29} and {31, 34}")


def _set(values) -> str:
    """A bucket's values as one cell: sorted, numbers by number."""
    return "{" + ", ".join(str(v) for v in sorted(values, key=lambda v: (isinstance(v, str), v))) + "}"


def _mask(lo: int, hi: int) -> str:
    """The smallest digit mask covering [lo, hi] (``2135*``): the common prefix, then stars."""
    a, b = str(lo), str(hi)
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
    return a[:same] + "*" * (len(a) - same)


def _numbered(keys: dict[int, object]) -> dict[object, int]:
    """Group or bucket keys renumbered 1.. in order of their smallest ID (``keys``: ID -> key)."""
    first: dict[object, int] = {}
    for i in sorted(keys):
        if keys[i] is not None:
            first.setdefault(keys[i], len(first) + 1)
    return first


def _release(con) -> dict[int, dict]:
    """Release Fig. 1(b) by LGB_MDP (k = l = 2, seeded) and read it back, by source ID: the
    published cells plus the group and per attribute the bucket, renumbered as the paper does."""
    from anonymizer import anonymize
    load_fig1(con)
    spec = fig1_spec()
    spec["columns"]["id"] = "insensitive"
    spec["algorithm"]["seed"] = SEED
    cur = con.execute(f"SELECT * FROM {anonymize(spec, con).view} ORDER BY id")
    names = [d[0] for d in cur.description]
    rows = {r["id"]: r for r in (dict(zip(names, t)) for t in cur.fetchall())}
    gid = _numbered({i: r["gid"] for i, r in rows.items()})
    for a in ATTRS:
        bid = _numbered({i: r[f"{a}_bid"] for i, r in rows.items()})
        members: dict[object, list] = {}
        for r in rows.values():
            if r[f"{a}_bid"] is not None:
                members.setdefault(r[f"{a}_bid"], []).append(r[a])
        for r in rows.values():
            key = r[f"{a}_bid"]
            r[f"{a}_bno"], r[f"{a}_set"] = (bid[key], _set(members[key])) if key is not None else (None, None)
    for r in rows.values():
        r["gno"] = gid[r["gid"]]
    return rows


def _qi_label(r: dict, a: str) -> str:
    """A generalized QI cell in the paper's notation."""
    if a == "age":
        lo, hi = r["age_low"], r["age_high"]
        return str(lo) if lo == hi else f"[{lo}-{hi}]"
    if a == "zip":
        return _mask(r["zip_low"], r["zip_high"])
    return str(r[a])


def _paper_buckets(rows) -> list[tuple]:
    """The paper's printed value(BID) cells with each bucketized cell replaced by its bucket's
    values read off the rows sharing its BID (attributes are the last four columns)."""
    split = [[c.rsplit("(", 1) for c in r[-4:]] for r in rows]
    members: dict[tuple[int, str], list] = {}
    for cells in split:
        for j, (v, b) in enumerate(cells):
            if b != "-)":
                members.setdefault((j, b), []).append(int(v) if v.isdigit() else v)
    return [(*r[:-4], *(f"{v}(-)" if b == "-)" else f"{_set(members[j, b])}({b}" for j, (v, b) in enumerate(cells)))
            for r, cells in zip(rows, split)]


def _flag(source: dict[int, tuple], i: int, a: str) -> tuple:
    """Fig. 1(b)'s value and flag of ID ``i`` on attribute ``a``."""
    row = source[i]
    j = 1 + 2 * ATTRS.index(a)
    return row[j], row[j + 1]


def figure1(con) -> list[Side]:
    """Fig. 1(b) read back from the table we load, and Fig. 1(a)'s adversary matching Mark."""
    load_fig1(con)
    ours = con.execute("SELECT id, age, age_flag, gender, gender_flag, zip, zip_flag, disease, disease_flag "
                       "FROM patients ORDER BY id").fetchall()

    def shown(r):
        return (r[0], *(f"{v}({'Yes' if f else 'No'})" for v, f in zip(r[1::2], r[2::2])))
    mark = con.execute("SELECT list(id ORDER BY id), list(age ORDER BY id), list(disease ORDER BY id) FROM patients "
                       "WHERE gender = $gender AND zip = $zip", {"gender": MARK["gender"], "zip": MARK["zip"]}).fetchone()
    return [Side("Fig. 1(b): the microdata table, each value with its flag (Yes: sensitive to that person)",
                 ["ID", *(f"{n}(Flag)" for n in NAMES)], [shown(r) for r in FIG1], [shown(r) for r in ours]),
            Side("Fig. 1(a) against 1(b): the adversary matches Mark by gender and zip code (section 1.1)",
                 ["Name", "ID", "Age", "Disease"], [("Mark", "{1004}", "{24}", "{Pneumonia}")],
                 [("Mark", *(_set(v) for v in mark))],
                 note="Figs. 1(c) and 1(d), the generalized and bucketized tables of earlier techniques, group "
                      "the rows by ID order for illustration; LGB does not make them, so they are not computed")]


def figure2(con) -> list[Side]:
    """Fig. 2, the LGB table, and what the adversary infers of Mark from it (section 1.1)."""
    rows = _release(con)

    def cell(r, a):
        return f"{_qi_label(r, a)}(-)" if r[f"{a}_bno"] is None else f"{r[f'{a}_set']}({r[f'{a}_bno']})"
    ours = [(i, r["gno"], *(cell(r, a) for a in ATTRS)) for i, r in sorted(rows.items())]
    match = [r for r in rows.values() if r["age_bno"] and not r["gender_bno"] and not r["zip_bno"]
             and r["gender"] in (MARK["gender"], "*") and r["zip_low"] <= MARK["zip"] <= r["zip_high"]]
    ages = {v for r in match for v in r["age_set"].strip("{}").split(", ")}
    diseases = {v for r in match for v in r["disease_set"].strip("{}").split(", ")}
    mark = ("Mark", _set([r["id"] for r in match]), _set(int(v) for v in ages), _set(diseases))
    return [Side("Fig. 2: the LGB table (GID, then each attribute's cell; a bucketized cell as its bucket)",
                 ["ID", "GID", *(f"{n}(BID)" for n in NAMES)], _paper_buckets(FIG2), ours,
                 note="groups and generalized values are the paper's; " + BUCKETS_NOTE),
            Side("Fig. 2, section 1.1: Mark's matching records and the values they leave possible",
                 ["Name", "ID", "Age", "Disease"], [("Mark", "{1004, 1008}", "{24, 29, 31, 34}",
                                                     "{Bronchitis, Dyspepsia, Pneumonia}")], [mark],
                 note="the possible diseases are those of the two records' disease buckets")]


def figure3(con) -> list[Side]:
    """Fig. 3: the QI partition (a) and the local equivalence groups (b), with the flags."""
    rows, source = _release(con), {r[0]: r for r in FIG1}
    subset = _numbered({i: tuple(r[f"{a}_bno"] is None for a in ATTRS) for i, r in rows.items()})
    first = [(i, subset[tuple(r[f"{a}_bno"] is None for a in ATTRS)],
              *(f"{v}({'Yes' if f else 'No'})" for v, f in (_flag(source, i, a) for a in ATTRS)))
             for i, r in sorted(rows.items())]

    def cell(r, a):
        return f"{_qi_label(r, a)}(No)" if r[f"{a}_bno"] is None else f"{_flag(source, r['id'], a)[0]}(Yes)"
    second = [(i, r["gno"], *(cell(r, a) for a in ATTRS)) for i, r in sorted(rows.items())]
    columns = ["ID", "GID", *(f"{n}(Flag)" for n in NAMES)]
    return [Side("Fig. 3(a): the first partition, the QI partition (rows with QI values on the same attributes)",
                 columns, list(FIG3A), first),
            Side("Fig. 3(b): the second partition, the local equivalence groups (k = 2)", columns, list(FIG3B), second,
                 note="the paper prints 1008's zip code ungeneralized (21340) although its group (GID 3, with "
                      "1004) shares 213** in the same figure and in Fig. 2; we generalize both")]


def figure4(con) -> list[Side]:
    """Fig. 4: the locally bucketized table (QI values as they are, sensitive values in buckets)."""
    rows, source = _release(con), {r[0]: r for r in FIG1}

    def cell(r, a):
        return f"{_flag(source, r['id'], a)[0]}(-)" if r[f"{a}_bno"] is None else f"{r[f'{a}_set']}({r[f'{a}_bno']})"
    ours = [(i, *(cell(r, a) for a in ATTRS)) for i, r in sorted(rows.items())]
    return [Side("Fig. 4: the locally bucketized table (a bucketized cell as its bucket)",
                 ["ID", *(f"{n}(BID)" for n in NAMES)], _paper_buckets(FIG4), ours, note=BUCKETS_NOTE)]


EXAMPLES = {("figure", "1"): ("Paper 000, Fig. 1: the microdata and the adversary's knowledge", figure1),
            ("figure", "2"): ("Paper 000, Fig. 2: the table anonymized by LGB (k = l = 2)", figure2),
            ("figure", "3"): ("Paper 000, Fig. 3: local generalization, the two partitions", figure3),
            ("figure", "4"): ("Paper 000, Fig. 4: local bucketization", figure4)}
