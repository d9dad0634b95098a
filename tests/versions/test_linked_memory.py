"""What the memory keeps of anatomy's boxes, which a reader links by their members
(``linked_rows.sql.j2``, ``forget_copies.sql.j2``): only members that name one record of the
version key a box, and an older copy goes only where a new one replaces it exactly."""

from __future__ import annotations

import json

import duckdb

from anonymizer.engine.session import Engine


def box(*members: str) -> str:
    """A box as anatomy's class table labels it: the JSON list of one label, its members' list."""
    return json.dumps([json.dumps(list(members), separators=(",", ":"))], separators=(",", ":"))


def test_a_box_is_keyed_by_the_members_no_other_record_shares():
    con = duckdb.connect()
    engine = Engine(con)
    con.execute("CREATE TABLE current (box VARCHAR, attr VARCHAR, value VARCHAR, n BIGINT)")
    con.execute("INSERT INTO current VALUES (?, 'dx', 'flu', 3), (?, 'dx', 'flu', 2), (?, 'dx', 'hiv', 2)",
                [box("a", "a", "b"), box("c", "d"), box("d", "e")])
    engine.run("versions/combination/linked_rows.sql.j2", target='"kept"', current='"current"')
    keys = sorted(json.loads(json.loads(k)[0]) for (k,) in con.execute("SELECT DISTINCT box FROM kept").fetchall())
    # twins in one box ("a" twice) and across boxes ("d") are left out
    assert keys == [["b"], ["c"], ["e"]]


def test_an_older_copy_goes_only_where_each_of_its_members_was_followed():
    con = duckdb.connect()
    engine = Engine(con)
    con.execute("CREATE TABLE memory (release VARCHAR, version INTEGER, box VARCHAR, attr VARCHAR, value VARCHAR, "
                "n BIGINT)")
    # version 1, written whole: x is a twin across two boxes; version 2: the box of y and z
    con.execute("INSERT INTO memory VALUES ('r', 1, ?, 'dx', 'flu', 2), ('r', 1, ?, 'dx', 'hiv', 2), "
                "('r', 2, ?, 'dx', 'flu', 2)", [box("x"), box("x", "w"), box("y", "z")])
    con.execute("CREATE TABLE rows_ (box VARCHAR, attr VARCHAR, value VARCHAR, n BIGINT)")
    con.execute("INSERT INTO rows_ VALUES (?, 'dx', 'flu', 2), (?, 'dx', 'flu', 2)", [box("x"), box("y", "z")])
    engine.run("versions/combination/forget_copies.sql.j2", {"release": "r"}, memory='"memory"', rows='"rows_"')
    left = con.execute("SELECT version, box FROM memory ORDER BY ALL").fetchall()
    assert sorted(left) == sorted([(1, box("x")), (1, box("x", "w"))])   # the twin's copy stays; v2's exact copy went
