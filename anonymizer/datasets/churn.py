"""A table of people that changes between nightly releases (issue 36's scenario).

:func:`people` creates ``table`` with ``n`` people: ``pid`` (identifier), ``age`` (18..89),
``zip`` (5 digits, 10000..99999), ``sex``, and a ``diagnosis`` out of 12 with a skewed law.
:func:`churn` then changes it as a night would: it deletes a fraction of the people, adds
``joiners`` new ones (new pids) and, optionally, changes the diagnosis (and age) of a
fraction of those who stay. All of it is SQL from ``templates/datasets/churn_*.sql.j2``;
draws are seeded hashes, so the same seeds give the same table.
"""

from __future__ import annotations

import duckdb

from anonymizer.engine.names import ident
from anonymizer.engine.rendering import render

def people(con: duckdb.DuckDBPyConnection, table: str = "people", n: int = 20_000, seed: int = 1) -> None:
    con.execute(render("datasets/churn_people.sql.j2", "duckdb", target=ident(table), replace=True),
                {"n": n, "first": 0, "seed": seed})


def churn(con: duckdb.DuckDBPyConnection, table: str = "people", *, night: int, leave: float = 0.05,
          joiners: int = 2_000, change: float = 0.0, seed: int = 1) -> dict:
    """One night's changes; returns how many people left, joined and changed."""
    (first,) = con.execute(f'SELECT coalesce(max(pid), -1) + 1 FROM {ident(table)}').fetchone()
    before = con.execute(f'SELECT count(*) FROM {ident(table)}').fetchone()[0]
    con.execute(render("datasets/churn_leave.sql.j2", "duckdb", target=ident(table)),
                {"leave": leave, "night": night, "seed": seed})
    after_leave = con.execute(f'SELECT count(*) FROM {ident(table)}').fetchone()[0]
    changed = con.execute(render("datasets/churn_change.sql.j2", "duckdb", target=ident(table)),
                          {"change": change, "night": night, "seed": seed}).fetchone()[0] if change else 0
    con.execute(render("datasets/churn_people.sql.j2", "duckdb", target=ident(table), replace=False),
                {"n": joiners, "first": first, "seed": seed + 1000 * night})
    return {"left": before - after_leave, "joined": joiners, "changed": changed}
