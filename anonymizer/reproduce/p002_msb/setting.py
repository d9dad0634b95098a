"""Paper 002's experimental setting (section 5): the security levels of Table 3 and the
composite sensitive attributes of Table 4, over the UCI Adult attributes, and a release
spec built from them. Shared by the experiment (:mod:`anonymizer.reproduce.p002_msb.experiment`), the
benchmark and the tests.
"""

from __future__ import annotations

from typing import Iterable, Mapping

#: Table 3: sensitive attribute -> security level -> values. Education has every value at level 1.
TABLE3: dict[str, dict[int, tuple[str, ...]]] = {
    "occupation": {
        0: ("Other-service",),
        1: ("Adm-clerical", "Craft-repair", "Exec-managerial", "Farming-fishing", "Handlers-cleaners",
            "Machine-op-inspct", "Priv-house-serv", "Prof-specialty", "Protective-serv", "Sales",
            "Tech-support", "Transport-moving"),
        2: ("Armed-Forces",)},
    "education": {
        1: ("10th", "11th", "12th", "1st-4th", "5th-6th", "7th-8th", "9th", "Assoc-acdm", "Assoc-voc",
            "Bachelors", "Doctorate", "HS-grad", "Masters", "Preschool", "Prof-school", "Some-college")},
    "marital": {
        1: ("Married-civ-spouse", "Never-married"),
        2: ("Divorced", "Married-AF-spouse", "Married-spouse-absent", "Separated", "Widowed")},
    "workclass": {
        0: ("Private", "Without-pay"),
        1: ("Self-emp-inc", "Self-emp-not-inc"),
        2: ("Federal-gov", "Local-gov", "State-gov")},
    "race": {
        0: ("Other", "White"),
        1: ("Black",),
        2: ("Amer-Indian-Eskimo", "Asian-Pac-Islander")},
}

#: Table 4: the composite sensitive attribute for d = 2 .. 5.
TABLE4: dict[int, tuple[str, ...]] = {
    2: ("occupation", "education"),
    3: ("occupation", "education", "marital"),
    4: ("occupation", "education", "marital", "workclass"),
    5: ("occupation", "education", "marital", "workclass", "race"),
}

#: column names of the bundled UCI Adult table and of the synthetic Adult-like table.
ADULT_COLUMNS = {"occupation": "occupation", "education": "education", "marital": "marital-status",
                 "workclass": "workclass", "race": "race"}
SYNTHETIC_COLUMNS = dict(ADULT_COLUMNS, marital="marital_status")

#: the six algorithms, baselines first, each followed by its MSLF variant.
ALGORITHMS = ("mbf", "mbf-mslf", "msdcf", "msdcf-mslf", "mmdcf", "mmdcf-mslf")


def security(attribute: str, present: Iterable[str] | None = None) -> dict:
    """The ``security`` entry of a column under Table 3 (default level 1, overrides for 0 and 2),
    keeping only values in ``present`` when given (a sample may lack rare values)."""
    keep = None if present is None else set(present)
    values = {v: level for level, vs in TABLE3[attribute].items() if level != 1 for v in vs
              if keep is None or v in keep}
    return {"default": 1, "values": values}


def msb_spec(table: str, algorithm: str, d: int, qis: Iterable[str], *, columns: Mapping[str, str] = ADULT_COLUMNS,
             present: Mapping[str, Iterable[str]] | None = None, l: int = 3, batch="exact", seed: int | None = 0,
             release: str | None = None) -> dict:
    """A release spec running ``algorithm`` on Table 4's attributes for ``d`` with Table 3's levels.

    Baselines get ``multi-l-diversity`` with ``l`` (3 in the paper), MSLF variants
    ``lsl-diversity`` with (1, 2, 3). Columns not named are dropped (``default_role: identifier``).
    """
    cols: dict = {q: "quasi" for q in qis}
    for attr in TABLE4[d]:
        cols[columns[attr]] = {"role": "sensitive",
                               "security": security(attr, None if present is None else present[columns[attr]])}
    model = ({"type": "lsl-diversity", "l": [1, 2, 3]} if algorithm.endswith("-mslf")
             else {"type": "multi-l-diversity", "l": l})
    return {"release": release or f"{table}_{algorithm.replace('-', '_')}_d{d}", "source": {"table": table},
            "columns": cols, "default_role": "identifier", "models": [model],
            "algorithm": {"name": algorithm, "batch": batch, "seed": seed}, "suppression_limit": 1.0}
