"""Releases end to end with every new builder: Mondrian (local recoding) and full-domain
generalization (every value replaced by its node at one level), verified and published."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from anonymizer import anonymize
from anonymizer.engine.session import Engine
from tests.hierarchy.conftest import build, labels
from tests.hierarchy.test_builders import EDUCATION

BUILDERS = [  # column, hierarchy, the level full-domain generalizes to
    pytest.param("hours per week", {"cgh": {"min_width": 10, "range": [1, 100]}}, 1, id="cgh"),
    pytest.param("hours per week", {"dbgh": {"min_width": 10, "range": [1, 100]}}, 3, id="dbgh"),
    pytest.param("hours per week", {"cbgh": {"min_width": 10}}, 2, id="cbgh"),
    pytest.param("hours per week", {"iotf": {"nodes": [20, 8]}}, 1, id="iotf"),
    pytest.param("zip", {"masking": 3}, 1, id="masking"),
    pytest.param("edu", {"ordered": EDUCATION, "sizes": [2, 4, 8]}, 1, id="ordered"),
    pytest.param("born", {"dates": ["month", "year", "decade"]}, 3, id="dates"),
]


@pytest.fixture
def people(con):
    con.execute(f"""
        CREATE TABLE people AS
        SELECT (i * 37) % 99 + 1 AS "hours per week",
               '2' || lpad(((i * 13) % 40)::VARCHAR, 4, '0') AS zip,
               {EDUCATION!r}[1 + i % 16] AS edu,
               DATE '1950-01-01' + ((i * 97) % 20000)::INTEGER AS born,
               ['flu', 'cold', 'hiv', 'cancer'][1 + (i * 7) % 4] AS disease
        FROM range(240) t(i)""")
    return con


def release(column: str, hierarchy: dict, name: str, **extra) -> dict:
    return {"release": name, "source": {"table": "people"}, "default_role": "identifier",
            "columns": {column: {"role": "quasi", "hierarchy": hierarchy}, "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 5}], **extra}


def smallest_class(con, view: str, column: str) -> int:
    col = '"' + column.replace('"', '""') + '"'
    return con.execute(f"SELECT min(n) FROM (SELECT count(*) AS n FROM {view} GROUP BY {col})").fetchone()[0]


@pytest.mark.parametrize("column,hierarchy,level", BUILDERS)
def test_mondrian_release(people, column, hierarchy, level):
    result = anonymize(release(column, hierarchy, "m"), people)
    assert result.rows_out == 240 and result.suppressed == 0
    assert result.measures["k"] >= 5 and smallest_class(people, result.view, column) >= 5


@pytest.mark.parametrize("column,hierarchy,level", BUILDERS)
def test_full_domain_release_publishes_the_level_nodes(people, column, hierarchy, level):
    result = anonymize(release(column, hierarchy, "fd", algorithm={"name": "full-domain", "levels": {column: level}},
                               suppression_limit=1.0), people)
    assert result.rows_out + result.suppressed == 240 and result.rows_out > 0
    assert smallest_class(people, result.view, column) >= 5
    engine = Engine(people)
    with engine.workspace():
        expected = labels(engine, build(engine, "people", column, hierarchy), level)
    col = '"' + column + '"'
    published = people.execute(f"SELECT DISTINCT {col} FROM {result.view}").fetchall()
    assert {p[0] for p in published} <= set(expected.values())


# -- the published bounds are the ones the label states, never a value the data holds --------------
BOUNDED = [p for p in BUILDERS if p.id in ("cgh", "dbgh", "cbgh", "iotf", "dates")]
INTERVAL = re.compile(r"^\[(\S+), (\S+)[\])]$")


def stated(label: str) -> tuple:
    """The bounds a label states, read from its text (the oracle: no SQL of ours): an interval
    '[a, b]' or '[a, b)', a value, a date at a unit (day, month, quarter, year, decade,
    century), or '*' (none)."""
    if label == "*":
        return None, None
    if m := INTERVAL.match(label):
        return float(m.group(1)), float(m.group(2))
    if m := re.fullmatch(r"(\d{4})-Q([1-4])", label):
        first = date(int(m.group(1)), 3 * int(m.group(2)) - 2, 1)
        return first, _month_end(first.year, first.month + 2)
    if m := re.fullmatch(r"(\d{4})-(\d{2})", label):
        return date(int(m.group(1)), int(m.group(2)), 1), _month_end(int(m.group(1)), int(m.group(2)))
    if m := re.fullmatch(r"(\d{4})s", label):
        return date(int(m.group(1)), 1, 1), date(int(m.group(1)) + 9, 12, 31)
    if m := re.fullmatch(r"(\d{4})-(\d{4})", label):
        return date(int(m.group(1)), 1, 1), date(int(m.group(2)), 12, 31)
    if m := re.fullmatch(r"\d{4}", label):
        return date(int(label), 1, 1), date(int(label), 12, 31)
    if m := re.fullmatch(r"\d{4}-\d{2}-\d{2}", label):
        return date.fromisoformat(label), date.fromisoformat(label)
    return float(label), float(label)


def _month_end(year: int, month: int) -> date:
    return date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)


@pytest.mark.parametrize("full_domain", [False, True], ids=["mondrian", "full-domain"])
@pytest.mark.parametrize("column,hierarchy,level", BOUNDED)
def test_published_bounds_are_the_labels_not_the_datas(people, column, hierarchy, level, full_domain):
    """Issue 39: with a declared hierarchy, <qi>_low/_high were the least and greatest value the
    data holds in the label's node (a date hierarchy's year 2002 published one person's exact
    birth date as its high). They are now the bounds the label states."""
    extra = {"algorithm": {"name": "full-domain", "levels": {column: level}}, "suppression_limit": 1.0} \
        if full_domain else {}
    result = anonymize(release(column, hierarchy, "b", **extra), people)
    col = '"' + column + '"'
    boxes = people.execute(f'SELECT DISTINCT {col}, "{column}_low", "{column}_high" FROM {result.view}').fetchall()
    inner = [(label, low, high) for label, low, high in boxes if stated(label)[0] != stated(label)[1]]
    assert inner, boxes   # some class is labelled by a node above the values
    for label, low, high in boxes:
        want = stated(label)
        got = tuple(None if v is None else v if isinstance(v, date) else float(v) for v in (low, high))
        assert got == want, (label, low, high)
    if column == "born":   # no node's bound is a birth date of the data but where the unit ends or starts there
        held = {d for (d,) in people.execute("SELECT DISTINCT born FROM people").fetchall()}
        leaked = [b for b in inner if b[2] in held and b[2] != stated(b[0])[1]]
        assert not leaked, leaked


def test_a_hierarchy_files_nodes_are_bounded_by_the_leaves_it_lists(people, tmp_path):
    """A numeric column's node from an ARX-format file is bounded by the least and greatest
    leaf the file lists under it, not by the values the data holds in it."""
    tree = tmp_path / "hours.csv"
    tree.write_text("".join(f"{v};{v // 10 * 10}-{v // 10 * 10 + 9};{'low' if v < 50 else 'high'}\n"
                            for v in range(0, 120)))
    result = anonymize(release("hours per week", {"csv": str(tree)}, "f"), people)
    boxes = people.execute(f'SELECT DISTINCT "hours per week", "hours per week_low", "hours per week_high" '
                           f"FROM {result.view}").fetchall()
    for label, low, high in boxes:
        if label in ("low", "high"):
            assert (low, high) == ((0, 49) if label == "low" else (50, 119)), (label, low, high)
        elif label == "*":
            assert low is None and high is None
        elif "-" in label:
            first, last = map(int, label.split("-"))
            assert (low, high) == (first, last), (label, low, high)
        else:
            assert low == high == int(label)
    # the data's hours run from 1 to 99: the node 0-9 starts below them, as the file says
    assert ("0-9", 0, 9) in boxes, boxes
