"""A QI's codes looked up in bound lists (Engine.lookup; prepare/base.sql.j2's map form, which
Spark takes for a small domain on its driver) give the coded rows the joins give: the same
release, on DuckDB, with NULLs and a value with no code left out as the join leaves them."""

from __future__ import annotations

import duckdb

from anonymizer import anonymize
from anonymizer.engine.session import Engine


def people():
    con = duckdb.connect()
    con.execute("CREATE TABLE people AS SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE 18 + (i * 37) % 60 END AS age, "
                "['north', 'south', 'east', NULL][1 + (i * 5) % 4] AS region, (i * 13) % 16 AS edu, "
                "['flu', 'cold', 'hiv'][1 + (i * 7) % 3] AS disease FROM range(3000) t(i)")
    return con


SPEC = {"release": "looked_up", "source": {"table": "people"}, "nulls": "suppress", "suppression_limit": 0.5,
        "columns": {"age": {"role": "quasi", "type": "numeric"}, "region": "quasi",
                    "edu": {"role": "quasi", "type": "numeric"}, "disease": "sensitive"},
        "models": [{"type": "k-anonymity", "k": 5}], "algorithm": {"name": "mondrian"}}


def test_codes_looked_up_in_bound_lists_are_the_joins_codes(monkeypatch):
    joined_con = people()
    joined = anonymize(SPEC, con=joined_con)
    asked: list[str] = []

    def lists(self, relation, key, value):   # every domain as bound lists, as Spark's driver gives a small one
        asked.append(relation)
        rows = self.execute(f"SELECT {key}, {value} FROM {relation} ORDER BY {value}").fetchall()
        return [k for k, _ in rows], [v for _, v in rows]

    monkeypatch.setattr(Engine, "lookup", lists)
    looked_con = people()
    looked = anonymize(SPEC, con=looked_con)
    assert len(asked) == 3
    figures = ("rows_in", "rows_out", "suppressed", "classes")
    assert [getattr(looked, f) for f in figures] == [getattr(joined, f) for f in figures]
    assert joined.suppressed > 0   # the NULL ages and regions were left out, on both
    rows = "SELECT * FROM {} ORDER BY ALL"
    assert looked_con.execute(rows.format(looked.view)).fetchall() == joined_con.execute(rows.format(joined.view)).fetchall()
