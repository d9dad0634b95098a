"""A synthetic Adult-like table, generated inside DuckDB for benchmarks and tests.

The columns and their rough marginal distributions follow the UCI Adult data (Kohavi and
Becker 1996; ``data/adult.names``): age 17-90 skewed to the thirties, a dominant private
workclass, high-school graduates the largest education group, United-States the dominant
native country, about a quarter earning more than 50K. Values are drawn per row from
``hash(row, column, seed)``, so a seed always gives the same table; ten million rows take a
few seconds and never pass through Python.

Example:
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> make_adult_like(con, "adult", 1000, seed=1)
    '"adult"'
    >>> con.execute('SELECT count(*), min(age) >= 17, max(age) <= 90 FROM adult').fetchone()
    (1000, True, True)
"""

from __future__ import annotations

from itertools import accumulate

import duckdb

from anonymizer.engine.session import Engine
from anonymizer.engine.names import ident

#: column -> (values, relative weights), weights roughly those of UCI Adult.
DISTRIBUTIONS: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    "workclass": (("Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Self-emp-inc",
                   "Federal-gov", "Without-pay", "Never-worked"),
                  (69.7, 7.8, 6.4, 4.0, 3.4, 2.9, 0.05, 0.02)),
    "education": (("HS-grad", "Some-college", "Bachelors", "Masters", "Assoc-voc", "11th",
                   "Assoc-acdm", "10th", "7th-8th", "Prof-school", "9th", "12th", "Doctorate",
                   "5th-6th", "1st-4th", "Preschool"),
                  (32.3, 22.4, 16.4, 5.3, 4.2, 3.6, 3.3, 2.9, 2.0, 1.8, 1.6, 1.3, 1.3, 1.0, 0.5, 0.2)),
    "marital_status": (("Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
                        "Married-spouse-absent", "Married-AF-spouse"),
                       (46.0, 32.8, 13.6, 3.1, 3.0, 1.3, 0.07)),
    "occupation": (("Prof-specialty", "Craft-repair", "Exec-managerial", "Adm-clerical", "Sales",
                    "Other-service", "Machine-op-inspct", "Transport-moving", "Handlers-cleaners",
                    "Farming-fishing", "Tech-support", "Protective-serv", "Priv-house-serv",
                    "Armed-Forces"),
                   (13.4, 13.3, 13.2, 12.3, 11.9, 10.6, 6.5, 5.2, 4.5, 3.3, 3.0, 2.1, 0.5, 0.03)),
    "relationship": (("Husband", "Not-in-family", "Own-child", "Unmarried", "Wife", "Other-relative"),
                     (40.5, 25.5, 15.6, 10.6, 4.8, 3.0)),
    "race": (("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"),
             (85.4, 9.6, 3.2, 1.0, 0.8)),
    "sex": (("Male", "Female"), (66.9, 33.1)),
    "native_country": (("United-States", "Mexico", "Philippines", "Germany", "Canada", "Puerto-Rico",
                        "El-Salvador", "India", "Cuba", "England", "Jamaica", "South", "China", "Italy",
                        "Dominican-Republic", "Vietnam", "Guatemala", "Japan", "Poland", "Columbia"),
                       (91.2, 2.0, 0.6, 0.4, 0.4, 0.35, 0.33, 0.31, 0.29, 0.28, 0.25, 0.25, 0.23,
                        0.22, 0.22, 0.21, 0.2, 0.19, 0.18, 0.18)),
}

#: years of schooling per education level (as in UCI Adult's education-num).
EDUCATION_NUM = {"Preschool": 1, "1st-4th": 2, "5th-6th": 3, "7th-8th": 4, "9th": 5, "10th": 6,
                 "11th": 7, "12th": 8, "HS-grad": 9, "Some-college": 10, "Assoc-voc": 11,
                 "Assoc-acdm": 12, "Bachelors": 13, "Masters": 14, "Prof-school": 15, "Doctorate": 16}

#: the synthetic table's columns, in order.
COLUMNS = ("age", "workclass", "education", "education_num", "marital_status", "occupation",
           "relationship", "race", "sex", "hours_per_week", "native_country", "salary")


def make_adult_like(con: duckdb.DuckDBPyConnection | Engine, name: str, rows: int, seed: int = 0) -> str:
    """Create (or replace) table ``name`` with ``rows`` Adult-like rows; return its quoted name.

    Args:
        con: a DuckDB connection or an :class:`~anonymizer.engine.session.Engine`.
        name: the table to create (replaced if it exists).
        rows: how many rows.
        seed: the same seed gives the same table.
    """
    engine = con if isinstance(con, Engine) else Engine(con)
    params: dict = {"rows": int(rows), "seed": int(seed)}
    columns = []
    for u, (column, (values, weights)) in enumerate(DISTRIBUTIONS.items(), start=1):
        key = f"c{u}"
        total = sum(weights)
        for j, (value, cum) in enumerate(zip(values, accumulate(weights)), start=1):
            params[f"{key}_v{j}"] = value
            if j < len(values):
                params[f"{key}_w{j}"] = cum / total
        columns.append({"name": ident(column), "key": key, "n": len(values), "u": u + 1})
    for j, (edu, years) in enumerate(EDUCATION_NUM.items(), start=1):
        params[f"edu_name{j}"], params[f"edu_num{j}"] = edu, years
    target = ident(name)
    engine.run("bench/adult_like.sql.j2", params, target=target, columns=columns, n_edu=len(EDUCATION_NUM))
    return target
