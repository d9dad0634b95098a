"""Paper 002's Table 1 (nine records t1..t9) as a DuckDB table, and release specs over it."""

from __future__ import annotations

import pytest

from anonymizer.reproduce.p002_msb.worked_example import (  # noqa: F401 (the tests' names)
    QIS, SECURITY, TABLE1, TABLE1_COLUMNS, load_table1, table1_spec)

#: The groups each algorithm forms on Table 1 with seed null (ties in the vectors' text
#: order), in formation order, as 'Physician/Disease' records. Worked by hand. Capacities at
# the start: John 3, Bob 2, Mary 2, Anne 1, Sam 1; Flu 3, Pneumonia 2, Gastritis 2, Cancer 1, HIV 1. Levels: Mary/Cancer and Sam/HIV are level 2
# (l_G = 3), every other record level 1 (l_G = 2). Baselines: uniform l = 3, every value once.
TABLE1_GROUPS = {
    # all sizes 1, so MBF follows the tie order, skipping shielded physicians/diseases.
    "mbf": [
        ("Anne/Gastritis", "Bob/Flu", "John/Pneumonia"),
        ("Bob/Pneumonia", "John/Flu", "Mary/Cancer"),
        ("John/Gastritis", "Mary/Flu", "Sam/HIV")],
    # Level 2 first: Mary/Cancer (tie before Sam/HIV), l_G = 3, then Sam/HIV (level 2), then
    # Anne/Gastritis (first level-1 record in tie order). Next starts are level 1 (l_G = 2):
    # Bob/Flu shields Bob, Flu may appear twice (2*l0 = 2 <= 2): John/Flu. Then Bob/Pneumonia +
    # John/Gastritis (John/Pneumonia shielded by Pneumonia), then John/Pneumonia + Mary/Flu.
    "mbf-mslf": [
        ("Mary/Cancer", "Sam/HIV", "Anne/Gastritis"),
        ("Bob/Flu", "John/Flu"),
        ("Bob/Pneumonia", "John/Gastritis"),
        ("John/Pneumonia", "Mary/Flu")],
    # MSDCF key = max(Capa) + size. G1: keys 4 for Bob/Flu, John/Flu, John/Gastritis,
    # John/Pneumonia, Mary/Flu -> Bob/Flu (tie). Bob, Flu shielded; John/Gastritis (max(3,2)+1 = 4,
    # before John/Pneumonia) ; John, Gastritis shielded; Mary/Cancer (3) beats Sam/HIV (2).
    # G2: John 2, Bob 1, Anne 1, Mary 1, Sam 1; Flu 2, Pneumonia 2, Gastritis 1, HIV 1: keys 3 for
    # Bob/Pneumonia, John/Flu, John/Pneumonia, Mary/Flu -> Bob/Pneumonia; then John/Flu
    # (max(2,2)+1 = 3, tie before Mary/Flu); then Anne/Gastritis (2, tie before Sam/HIV).
    # G3: the rest, all values distinct.
    "msdcf": [
        ("Bob/Flu", "John/Gastritis", "Mary/Cancer"),
        ("Bob/Pneumonia", "John/Flu", "Anne/Gastritis"),
        ("John/Pneumonia", "Mary/Flu", "Sam/HIV")],
    # Level 2: Mary/Cancer (max(2,1)+1 = 3) then Sam/HIV; then level 1 with Mary/Cancer and
    # Sam/HIV gone: Bob/Flu = max(2,3)+1 = 4 ties with John/Flu, John/Gastritis, John/Pneumonia
    # -> Bob/Flu. G2 (l_G = 2): John 3 -> John/Flu (4, tie before John/Gastritis, John/Pneumonia);
    # John shielded, Flu allowed twice; Anne/Gastritis = max(1,2)+1 = 3 ties Bob/Pneumonia ->
    # Anne/Gastritis. G3: Bob/Pneumonia (3, tie first), Bob and Pneumonia shielded, John/Gastritis
    # (3) beats Mary/Flu (2). G4: John/Pneumonia + Mary/Flu.
    "msdcf-mslf": [
        ("Mary/Cancer", "Sam/HIV", "Bob/Flu"),
        ("John/Flu", "Anne/Gastritis"),
        ("Bob/Pneumonia", "John/Gastritis"),
        ("John/Pneumonia", "Mary/Flu")],
    # MMDCF key = sum(Capa) + size: John/Flu 7, Bob/Pneumonia 5, Anne/Gastritis 4 (tie before
    # Mary/Cancer 4); then Mary/Flu 5, John/Gastritis 4, Sam/HIV 3; then the rest.
    "mmdcf": [
        ("John/Flu", "Bob/Pneumonia", "Anne/Gastritis"),
        ("Mary/Flu", "John/Gastritis", "Sam/HIV"),
        ("John/Pneumonia", "Mary/Cancer", "Bob/Flu")],
    # Level 2: Mary/Cancer (4 > Sam/HIV 3), Sam/HIV, John/Flu (7) | Bob/Flu 5, John/Gastritis 5 |
    # Bob/Pneumonia 4, Anne/Gastritis 3 (tie before Mary/Flu 3) | John/Pneumonia, Mary/Flu.
    "mmdcf-mslf": [
        ("Mary/Cancer", "Sam/HIV", "John/Flu"),
        ("Bob/Flu", "John/Gastritis"),
        ("Bob/Pneumonia", "Anne/Gastritis"),
        ("John/Pneumonia", "Mary/Flu")],
}


@pytest.fixture
def t1(con):
    """A connection holding Table 1 as ``t1``."""
    load_table1(con)
    return con
