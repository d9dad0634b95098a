"""Paper 002's running example (section 3, Table 1) as a table and a release spec.

Table 1 holds nine patients t1..t9: SSN and Name identify them, Age, Sex, Race and Zipcode
are quasi-identifiers, Physician and Disease the two sensitive attributes. Section 3 sets
every physician at security level 1, Flu at 0, Pneumonia and Gastritis at 1, HIV and
Cancer at 2, with l0, l1, l2 = 1, 2, 3.
"""

from __future__ import annotations

import duckdb

from anonymizer.engine.names import ident

#: Table 1 of paper 002: (SSN, Name, Age, Sex, Race, Zipcode, Physician, Disease), t1..t9.
TABLE1 = [
    (19200, "Sam", 21, "M", "White", 11000, "John", "Flu"),
    (17720, "Anne", 60, "F", "Black", 21000, "John", "Pneumonia"),
    (25000, "Mike", 56, "M", "White", 11400, "Mary", "Cancer"),
    (14520, "Lily", 28, "F", "Black", 65000, "Bob", "Flu"),
    (18010, "Harry", 60, "M", "White", 41000, "Bob", "Pneumonia"),
    (23800, "Mona", 55, "F", "Black", 41300, "Anne", "Gastritis"),
    (34000, "Tony", 43, "M", "White", 39000, "John", "Gastritis"),
    (12000, "Lucy", 26, "F", "Black", 15000, "Sam", "HIV"),
    (37080, "Tim", 37, "M", "White", 19000, "Mary", "Flu"),
]
TABLE1_COLUMNS = ["SSN", "Name", "Age", "Sex", "Race", "Zipcode", "Physician", "Disease"]
QIS = ["Age", "Sex", "Race", "Zipcode"]

#: Security levels as section 3 sets them: every physician at level 1; Flu 0, Pneumonia and
#: Gastritis 1, HIV and Cancer 2.
SECURITY = {"Physician": {"role": "sensitive", "security": 1},
            "Disease": {"role": "sensitive", "security": {"default": 1, "values": {"Flu": 0, "HIV": 2, "Cancer": 2}}}}


def load_table1(con: duckdb.DuckDBPyConnection, name: str = "t1") -> None:
    con.execute(f"CREATE TABLE {ident(name)} (SSN INTEGER, Name VARCHAR, Age INTEGER, Sex VARCHAR, Race VARCHAR, "
                "Zipcode INTEGER, Physician VARCHAR, Disease VARCHAR)")
    con.executemany(f"INSERT INTO {ident(name)} VALUES (?, ?, ?, ?, ?, ?, ?, ?)", TABLE1)


def table1_spec(release: str = "t1", algorithm: str = "mbf", model: dict | None = None, seed=None,
                **algorithm_options) -> dict:
    """A release of Table 1: SSN and Name identifiers, four QIs, Physician and Disease sensitive."""
    columns = {"SSN": "identifier", "Name": "identifier", **{q: "quasi" for q in QIS},
               "Physician": dict(SECURITY["Physician"]),
               "Disease": {"role": "sensitive",
                           "security": {"default": 1, "values": dict(SECURITY["Disease"]["security"]["values"])}}}
    return {"release": release, "source": {"table": "t1"}, "columns": columns,
            "models": [model or {"type": "lsl-diversity", "l": [1, 2, 3]}],
            "algorithm": {"name": algorithm, "seed": seed, **algorithm_options}}
