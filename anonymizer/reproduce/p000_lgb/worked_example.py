"""Paper 000's worked example (Figs. 1 to 4): eight patients, their values and flags.

Fig. 1(b) (= Fig. 3(a)): each attribute but ID carries a flag saying whether the person
treats the value as sensitive. Age and zip code are semi-sensitive (both kinds of cells),
gender is a QI attribute (no flag set) and disease a sensitive attribute (every flag set).
"""

from __future__ import annotations

import duckdb

from anonymizer.engine.names import ident

#: (id, age, age flag, gender, gender flag, zip, zip flag, disease, disease flag), Fig. 1(b).
FIG1 = (
    (1001, 28, False, "Male", False, 21357, True, "Bronchitis", True),
    (1002, 25, False, "Female", False, 21344, True, "Gastritis", True),
    (1003, 16, False, "Male", False, 21352, False, "Dyspepsia", True),
    (1004, 24, True, "Male", False, 21336, False, "Pneumonia", True),
    (1005, 31, True, "Female", False, 21328, False, "Hepatitis", True),
    (1006, 22, False, "Male", False, 21358, False, "Flu", True),
    (1007, 29, True, "Female", False, 21328, False, "Pneumonia", True),
    (1008, 34, True, "Male", False, 21340, False, "Bronchitis", True),
)

#: the local equivalence groups of Fig. 3(b), by ID.
FIG3_GROUPS = ({1001, 1002}, {1003, 1006}, {1004, 1008}, {1005, 1007})

#: Mark, the adversary's target of Fig. 1(a): his QI values (his age is sensitive to him).
MARK = {"id": 1004, "gender": "Male", "zip": 21336}


def load_fig1(con: duckdb.DuckDBPyConnection, name: str = "patients") -> str:
    """Create table ``name`` holding Fig. 1(b): the values, and a BOOLEAN flag per attribute
    (``<attr>_flag``, TRUE where the value is sensitive for that person)."""
    target = ident(name)
    con.execute(f"CREATE OR REPLACE TABLE {target} (id INTEGER, age INTEGER, age_flag BOOLEAN, gender VARCHAR, "
                "gender_flag BOOLEAN, zip INTEGER, zip_flag BOOLEAN, disease VARCHAR, disease_flag BOOLEAN)")
    con.executemany(f"INSERT INTO {target} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [list(r) for r in FIG1])
    return target


def fig1_spec(algorithm: str = "lgb-mdp", k: int = 2, l: int = 2, table: str = "patients",
              balance: bool | None = None) -> dict:
    """The release spec of the worked example: k = l = 2 as in Figs. 2 to 4. ``balance``:
    LGB_NCP's option (None: its default)."""
    options = {} if balance is None else {"balance": balance}
    return {"release": f"fig1_{algorithm.replace('-', '_')}", "source": {"table": table},
            "columns": {"id": "identifier",
                        "age": {"role": "quasi", "type": "numeric", "flag": "age_flag"},
                        "gender": {"role": "quasi", "flag": "gender_flag"},
                        "zip": {"role": "quasi", "type": "numeric", "flag": "zip_flag"},
                        "disease": {"role": "sensitive"}, "disease_flag": "identifier"},
            "models": [{"type": "k-anonymity", "k": k}, {"type": "l-unique", "l": l}],
            "algorithm": {"name": algorithm, **options}}
