"""Paper 004's running example (section 3, Table 2) as a table and a release spec.

Table 2 is a patient table in which Mike, Jane and Ella have two records each; the QIs are
Gender, Age and Postcode with the domains of section 4.3's running example: {M, F},
[30, 39] and the seven postcodes present. Table 4 is what DAnonyIR_El (l = 3) and DAnonyIR_Eαβ
(α = 0.4, β = 0.6) publish when individuals 6 and 3 are drawn first.
"""

from __future__ import annotations

from typing import Any

import duckdb

from anonymizer.engine.names import ident

#: Table 2: (record, name, gender, age, postcode, disease).
TABLE2: tuple[tuple[str, str, str, int, str, str], ...] = (
    ("r1", "Mike", "M", 36, "10085", "Hypertension"),
    ("r2", "Mike", "M", 36, "10085", "Heart"),
    ("r3", "Lily", "F", 37, "10076", "Cancer"),
    ("r4", "Tim", "M", 36, "10086", "Hypertension"),
    ("r5", "Jane", "F", 33, "10087", "Hypertension"),
    ("r6", "Jane", "F", 33, "10087", "Diabetes"),
    ("r7", "Tina", "F", 38, "10077", "HIV"),
    ("r8", "Ella", "F", 34, "10070", "Leukaemia"),
    ("r9", "Ella", "F", 34, "10070", "Heart"),
    ("r10", "Lucy", "F", 33, "10073", "Syphilis"),
)


def load_table2(con: duckdb.DuckDBPyConnection, table: str = "patients_table2") -> str:
    """Create Table 2 (in its row order, so ``renumber: appearance`` numbers Mike..Lucy 1..7)."""
    con.execute(f"CREATE OR REPLACE TABLE {ident(table)} (record VARCHAR, name VARCHAR, gender VARCHAR, "
                "age INTEGER, postcode VARCHAR, disease VARCHAR)")
    con.executemany(f"INSERT INTO {ident(table)} VALUES (?, ?, ?, ?, ?, ?)", [list(r) for r in TABLE2])
    return table


def table2_spec(model: dict[str, Any], *, table: str = "patients_table2", algorithm: str = "danonyir",
                seed: int = 0, hierarchies: dict[str, Any] | None = None, release: str = "table2") -> dict:
    """A release spec of Table 2: Name identifies individuals (renumbered in order of
    appearance, as the running example does), Gender/Age/Postcode are the QIs, Disease is
    sensitive, and the record label passes through."""
    hier = hierarchies or {}
    return {
        "release": release,
        "source": {"table": table},
        "columns": {
            "record": {"role": "insensitive"},
            "name": {"role": "individual"},
            "gender": {"role": "quasi", "type": "categorical", **({"hierarchy": hier["gender"]} if "gender" in hier else {})},
            "age": {"role": "quasi", "type": "numeric", "domain": [30, 39],
                    **({"hierarchy": hier["age"]} if "age" in hier else {})},
            "postcode": {"role": "quasi", "type": "categorical",
                         **({"hierarchy": hier["postcode"]} if "postcode" in hier else {})},
            "disease": {"role": "sensitive"},
        },
        "models": [model],
        "algorithm": {"name": algorithm, "seed": seed, "renumber": "appearance"},
    }


def draw_order(con: duckdb.DuckDBPyConnection, seed: int, model: dict[str, Any], table: str = "patients_table2"
               ) -> list[int]:
    """The order in which DAnonyIR draws Table 2's individuals at ``seed`` (Algorithm 1, line 3)."""
    from anonymizer.engine.session import Engine
    from anonymizer.families.identity_reserved.individuals import individuals
    from anonymizer.plan import prepare
    from anonymizer.spec.parse import load_spec
    engine = Engine(con)
    with engine.workspace():
        plan = prepare(engine, load_spec(table2_spec(model, table=table, seed=seed)))
        people = individuals(engine, plan)
        return [r[0] for r in con.execute(f"SELECT pid FROM {people.ind} ORDER BY draw, pid").fetchall()]


def paper_seed(con: duckdb.DuckDBPyConnection, model: dict[str, Any], table: str = "patients_table2") -> int:
    """A seed that draws individual 6 first and 3 first among {1, 2, 3, 5}: the running
    example's assumption (section 4.3: "assume that individual 6 is selected", then 3)."""
    for seed in range(500):
        order = draw_order(con, seed, model, table)
        if order[0] == 6 and [p for p in order if p in (1, 2, 3, 5)][0] == 3:
            return seed
    raise AssertionError("no seed of 0..499 draws 6 then 3")
