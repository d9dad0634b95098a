"""Flagged tables for paper 000's experiment and benchmark (per-cell sensitivity).

Section 4 uses census data with sex, age and occupation semi-sensitive (about 20 % of each
attribute's values sensitive, then 10 to 40 %), relationship, marital status, race,
education and hours per week as QI attributes, and salary sensitive. The data at hand is
UCI Adult: its complete rows, the same attributes, flags drawn per cell by a seeded hash,
and -- Adult having no salary -- the numeric ``fnlwgt`` as the sensitive attribute.
"""

from __future__ import annotations

import duckdb

from anonymizer.demo import load_adult
from anonymizer.engine.session import Engine
from anonymizer.engine.names import ident
from anonymizer.datasets.synthetic import make_adult_like

#: the semi-sensitive attributes of section 4, each with a BOOLEAN flag column ``<attr>_flag``.
SEMI_SENSITIVE = ("sex", "age", "occupation")
#: the QI attributes of section 4 (UCI Adult's names; the synthetic table's in SYNTHETIC_QI).
QI = ("relationship", "marital-status", "race", "education", "hours-per-week")
SYNTHETIC_QI = ("relationship", "marital_status", "race", "education", "hours_per_week")
NUMERIC = {"age", "hours-per-week", "hours_per_week", "fnlwgt"}
#: the sensitive attribute standing in for the paper's salary.
SALARY = "fnlwgt"


def flag_columns(attributes=SEMI_SENSITIVE) -> list[dict]:
    return [{"col": ident(a), "flag": ident(f"{a}_flag"), "key": a} for a in attributes]


def flagged_adult(con: duckdb.DuckDBPyConnection, name: str = "adult_flagged", density: float = 0.2,
                  seed: int = 0) -> str:
    """Create ``name``: Adult's complete rows with a flag per semi-sensitive attribute, TRUE
    in about ``density`` of the rows (seeded). Returns the quoted table name."""
    engine = Engine(con)
    raw = load_adult(con, f"{name}__raw")
    target = ident(name)
    engine.run("datasets/flagged_adult.sql.j2", {"density": float(density), "seed": int(seed)}, target=target,
               adult=raw, flags=flag_columns())
    con.execute(f"DROP TABLE {raw}")
    return target


def flagged_synthetic(con: duckdb.DuckDBPyConnection, name: str, rows: int, density: float = 0.2,
                      seed: int = 0) -> str:
    """An Adult-like table of ``rows`` rows (:mod:`anonymizer.datasets.synthetic`, plus a numeric
    ``fnlwgt``) and the same flags, for benchmarks."""
    raw = make_adult_like(con, f"{name}__raw", rows, seed)
    Engine(con).run("datasets/synthetic_fnlwgt.sql.j2", {"seed": int(seed)}, target=raw)
    target = ident(name)
    Engine(con).run("datasets/flagged_adult.sql.j2", {"density": float(density), "seed": int(seed)}, target=target,
                    adult=raw, flags=flag_columns())
    con.execute(f"DROP TABLE {raw}")
    return target


def experiment_spec(table: str = "adult_flagged", algorithm: str = "lgb-mdp", k: int = 5, l: int = 5,
                    t: float = 0.2, l_caps: dict[str, int] | None = None, salary: str = SALARY,
                    qi: tuple[str, ...] = QI, seed: int = 0) -> dict:
    """Section 4's release: k-anonymity, t-closeness on sex, l-unique on the others.
    ``l_caps`` lowers l for attributes whose values cannot be l-unique at this l. An
    experiment is reproducible, so the release is seeded (``seed``)."""
    columns: dict = {a: {"role": "quasi", "flag": f"{a}_flag"} for a in SEMI_SENSITIVE}
    columns.update({a: {"role": "quasi"} for a in qi})
    for a in columns:
        if a in NUMERIC:
            columns[a]["type"] = "numeric"
    columns[salary] = {"role": "sensitive"}
    columns["__row"] = "identifier"
    models = [{"type": "k-anonymity", "k": k}, {"type": "l-unique", "l": l},
              {"type": "t-closeness", "t": t, "sensitive": "sex"}]
    models += [{"type": "l-unique", "l": min(l, cap), "sensitive": a} for a, cap in (l_caps or {}).items()
               if cap < l]
    return {"release": f"lgb_{algorithm.replace('-', '_')}_k{k}_l{l}", "source": {"table": table},
            "columns": columns, "default_role": "identifier", "models": models,
            "algorithm": {"name": algorithm, "seed": seed}, "suppression_limit": 0.05}
