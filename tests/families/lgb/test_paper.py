"""Paper 000's worked example (Figs. 1 to 4), released by LGB_MDP with k = l = 2 and read
back from the published view. The checks are written here in pandas from the paper's
definitions, independently of the SQL that verifies a release before publishing it."""

from __future__ import annotations

import pandas as pd
import pytest

from anonymizer.reproduce.p000_lgb.worked_example import FIG1, FIG3_GROUPS, MARK
from tests.families.lgb.conftest import release_fig1

ATTRS = ("age", "gender", "zip", "disease")
NUMERIC = {"age", "zip"}
#: Fig. 1(b) as a frame: each attribute's value and flag (True: sensitive for that person).
TRUTH = pd.DataFrame(FIG1, columns=["id", "age", "age_f", "gender", "gender_f", "zip", "zip_f", "disease",
                                    "disease_f"])


def covers(row: pd.Series, attr: str, value) -> bool:
    """Whether the row's published cell on ``attr`` is a generalized QI value covering ``value``."""
    if not pd.isna(row[f"{attr}_bid"]):
        return False
    if attr in NUMERIC:
        return row[f"{attr}_low"] <= value <= row[f"{attr}_high"]
    label = row[attr]
    return label in (str(value), "*") or (label.startswith("{") and str(value) in label[1:-1].split(", "))


def matching_tuples(frame: pd.DataFrame, known: dict) -> pd.DataFrame:
    """Definition 14 for an adversary who knows a person's QI values (and so on which
    attributes the person's values are QI values): the rows whose QI cells are on exactly
    those attributes and cover every known value."""
    def match(row):
        on = {a for a in ATTRS if pd.isna(row[f"{a}_bid"])}
        return on == set(known) and all(covers(row, a, v) for a, v in known.items())
    return frame[frame.apply(match, axis=1)]


def disclosure(frame: pd.DataFrame, matches: pd.DataFrame, attr: str) -> dict:
    """Lemma 2: p(t, s) = sum over matching tuples mt of p(t, mt) |mb(s)| / |mb|, with mb the
    local bucket of mt on ``attr`` (p(t, mt) = 1 / |matching tuples|)."""
    out: dict = {}
    for bid in matches[f"{attr}_bid"]:
        bucket = frame.loc[frame[f"{attr}_bid"] == bid, attr]
        for value, n in bucket.value_counts().items():
            out[value] = out.get(value, 0.0) + n / len(bucket) / len(matches)
    return out


@pytest.fixture
def table(fig1):
    return release_fig1(fig1)


def test_groups_are_those_of_figure_3b(table):
    groups = {frozenset(g["id"]) for _, g in table.groupby("gid")}
    assert groups == {frozenset(g) for g in FIG3_GROUPS}


def test_generalized_values_follow_figure_3b(table):
    by_id = table.set_index("id")
    # Fig. 3(b): 1001/1002 [25-28] and *; 1003/1006 [16-22], Male, 2135*; 1004/1008 Male, 213**.
    assert list(by_id.loc[[1001, 1002], "age"]) == ["[25, 28]"] * 2
    assert list(by_id.loc[[1001, 1002], "gender"]) == ["*"] * 2
    assert list(by_id.loc[[1003, 1006], "age"]) == ["[16, 22]"] * 2
    assert list(by_id.loc[[1003, 1006], "zip"]) == ["[21352, 21358]"] * 2
    assert list(by_id.loc[[1004, 1008], "zip"]) == ["[21336, 21340]"] * 2
    assert list(by_id.loc[[1005, 1007], "zip"]) == ["21328"] * 2
    assert list(by_id.loc[[1005, 1007], "gender"]) == ["Female"] * 2


def test_buckets_follow_algorithm_2(table):
    """Worked by hand from Algorithm 2 with l = 2 (values in their order, the upper median by
    counts): age's sensitive values 24, 29, 31, 34 have median 31, and the big half {34} is not
    2-eligible, so they are one leaf: floor(4 / 2) = 2 buckets of two (which pairs is the
    release's draw). Zip: one bucket {21344, 21357}. Disease: 8 values, median Gastritis (the
    5th in alphabetical order), big half {Hepatitis, Pneumonia x2} not 2-eligible: one leaf of
    four buckets, m-invariance's assignment taking the two values seen twice first, so
    {Bronchitis, Pneumonia} is a bucket and the other three pair the rest."""
    def buckets(attr):
        cells = table[table[f"{attr}_bid"].notna()]
        return sorted(sorted(map(str, g[attr])) for _, g in cells.groupby(f"{attr}_bid"))
    ages = buckets("age")
    assert len(ages) == 2 and sorted(v for b in ages for v in b) == ["24", "29", "31", "34"]
    assert buckets("zip") == [["21344", "21357"]]
    disease = buckets("disease")
    assert ["Bronchitis", "Pneumonia"] in disease and len(disease) == 4 and all(len(set(b)) == 2 for b in disease)
    assert sorted(v for b in disease for v in b) == sorted(["Bronchitis"] * 2 + ["Pneumonia"] * 2 + [
        "Dyspepsia", "Flu", "Gastritis", "Hepatitis"])


def test_cells_are_bucketized_exactly_where_flagged(table):
    by_id = table.set_index("id")
    for row in TRUTH.itertuples():
        for attr in ATTRS:
            assert pd.isna(by_id.loc[row.id, f"{attr}_bid"]) != getattr(row, f"{attr}_f"), (row.id, attr)


def test_corollary_3(table):
    """(1) every local equivalence group has >= k tuples; (2) each sensitive value at most
    once in each local bucket; (3) each local bucket has >= l values."""
    assert table.groupby("gid").size().min() >= 2
    for attr in ATTRS:
        cells = table[table[f"{attr}_bid"].notna()]
        for _, bucket in cells.groupby(f"{attr}_bid"):
            assert bucket[attr].is_unique and len(bucket) >= 2


def test_mark_faces_k_records_and_at_most_1_over_l(table):
    """Fig. 1(a): the adversary knows Mark's gender and zip code. He finds k = 2 matching
    tuples (1004 and 1008, as the paper says of Fig. 2), and no value of Mark's age or
    disease has probability above 1/l = 1/2."""
    known = {"gender": MARK["gender"], "zip": MARK["zip"]}
    matches = matching_tuples(table, known)
    assert set(matches["id"]) == {1004, 1008}
    for attr in ("age", "disease"):
        probabilities = disclosure(table, matches, attr)
        assert abs(sum(probabilities.values()) - 1) < 1e-9
        assert max(probabilities.values()) <= 0.5 + 1e-9, (attr, probabilities)


@pytest.mark.parametrize("algorithm, balance", [("lgb-mdp", None), ("lgb-ncp", True), ("lgb-ncp", False)])
def test_every_person_is_protected(fig1, algorithm, balance):
    """The adversary's bounds for each of the eight persons as target: his own record among
    >= k matching tuples, and every sensitive value at most 1/l likely."""
    table = release_fig1(fig1, algorithm=algorithm, balance=balance)
    for person in TRUTH.itertuples():
        known = {a: getattr(person, a) for a in ATTRS if not getattr(person, f"{a}_f")}
        matches = matching_tuples(table, known)
        assert person.id in set(matches["id"]) and len(matches) >= 2, person.id
        for attr in set(ATTRS) - set(known):
            assert max(disclosure(table, matches, attr).values()) <= 0.5 + 1e-9, (person.id, attr)
