"""A multi-record patient table for paper 004's experiments (Wang et al. 2018, section 5).

The paper uses the INFORMS data mining contest 2008 data: 456,767 diagnosis records of
49,384 patients (about 9.25 records per patient), with the attributes of its Table 5 --
*Month of birth* (12 distinct values), *Year of birth* (82), *Gender* (2), *Race* (6),
*EducYear* (9), *Marry* (6), *Poverty* (5), *HISPANX* (2) as quasi-identifiers in that
order, and *Diagnosis* (619) sensitive; "|QI| = d means that QI contains the front d
attributes". That data is not available here, so :func:`patients` generates a table with
the same columns and cardinalities entirely in DuckDB (``templates/datasets/patients.sql.j2``;
no row passes through Python): an explicit identifier ``patient_id`` (``'P0000123'``), one
row per (patient, diagnosis), every record of a patient carrying the patient's QI values,
and a patient's diagnoses distinct (the paper: "s_j appears in any individual at most once").

Choices (the paper gives only Table 5's counts):

- QI values are drawn per patient from seeded hashes (same seed, same table): month
  uniform over 1..12; year of birth over 1922..2003 (82 years, tilted toward the young);
  categories with the category names and rough weights of MEPS, the survey the contest data
  came from (race: White, Black, Asian, Multiple, AmerIndian, PacificIslander; marital
  status: Married, Widowed, Divorced, Separated, Never married, and ``Under 16`` for every
  patient born in 1993 or later; poverty: Poor .. High income; hispanx: Hispanic or not);
  years of education one of 9 values (5 .. 18).
- Records per patient: a geometric law with mean 9.25 (the paper's 456,767 / 49,384),
  at least 1, capped at 100; about 11 % of the patients have a single record.
- Diagnoses: 619 codes ``D000`` .. ``D618``; a patient draws its distinct codes from a
  discretized power law, P(rank k) ~ (k + 1/2)^-s with s = ``skew`` (default 0.5): at
  50,000 patients the most frequent code is held by 14 % of the patients, the rarest by
  0.7 %. That keeps EIR l-diversity (Definition 3.3) reachable with classes of a few
  patients: random groups of 8 / 11 patients are EIR 6-diverse in 64 % / 96 % of draws,
  groups of 15 / 20 EIR 10-diverse in 55 % / 94 % (s = 0.7: 43 % / 74 % and 21 % / 63 %;
  with s = 1 the top code is held by 54 % of the patients). The ranks are permuted, so
  popularity does not follow the code order.

:func:`patients_spec` writes a release spec on the table: the first ``qis`` QIs of Table 5,
``patient_id`` with role ``individual``, ``diagnosis`` sensitive, the other QIs dropped,
and the taxonomy trees GeneIR (Tong et al. 2010, section 6.1.3) generalizes along:

==============  ==========================================================  =========
QI              hierarchy                                                    levels
==============  ==========================================================  =========
month_of_birth  quarters, halves, ``*`` (``data/ir/month_of_birth.csv``)     0..3
year_of_birth   intervals of 5, 10, 20, 40 years, ``*``                      0..5
gender          ``*``                                                        0..1
race            White / Black / Other, ``*`` (``data/ir/race.csv``)          0..2
educ_year       intervals of 4, 8 years, ``*``                               0..3
marry           Married / Previously married / Never married, ``*``          0..2
poverty         Low income or less / Middle or high income, ``*``            0..2
hispanx         ``*``                                                        0..1
==============  ==========================================================  =========

Every hierarchy is nested (each node lies inside one node of the next level), as GeneIR
needs.

Example:
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> figures = patients(con, "p", individuals=200, seed=1)
    >>> figures["individuals"], figures["records"] == con.execute("SELECT count(*) FROM p").fetchone()[0]
    (200, True)
"""

from __future__ import annotations

import time
from importlib import resources
from itertools import accumulate
from typing import Any

import duckdb

from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.engine.names import ident

#: Table 5's attributes in the paper's order (``|QI| = d`` takes the first d), and Diagnosis.
QIS = ("month_of_birth", "year_of_birth", "gender", "race", "educ_year", "marry", "poverty", "hispanx")
NUMERIC = ("month_of_birth", "year_of_birth", "educ_year")
PERSON, SENSITIVE = "patient_id", "diagnosis"
#: Table 5's distinct values per column.
CARDINALITIES = {"month_of_birth": 12, "year_of_birth": 82, "gender": 2, "race": 6, "educ_year": 9, "marry": 6,
                 "poverty": 5, "hispanx": 2, "diagnosis": 619}

#: column -> (values, relative weights); marry's 'Under 16' is set by the year of birth.
CATEGORIES: dict[str, tuple[tuple, tuple[float, ...]]] = {
    "gender": (("F", "M"), (52.0, 48.0)),
    "race": (("White", "Black", "Asian", "Multiple", "AmerIndian", "PacificIslander"),
             (76.0, 13.0, 6.0, 2.8, 1.4, 0.8)),
    "educ": ((5, 8, 10, 11, 12, 13, 14, 16, 18), (3.0, 6.0, 5.0, 5.0, 31.0, 10.0, 15.0, 17.0, 8.0)),
    "marry": (("Married", "Widowed", "Divorced", "Separated", "Never married"), (52.0, 7.0, 12.0, 3.0, 26.0)),
    "poverty": (("Poor", "Near poor", "Low income", "Middle income", "High income"), (13.0, 5.0, 15.0, 30.0, 37.0)),
    "hispanx": (("Hispanic", "Not Hispanic"), (15.0, 85.0)),
}

#: the generator's options and their defaults (``patients(..., **options)``).
DEFAULTS: dict[str, Any] = {
    "skew": 0.5,            # exponent s of the diagnoses' power law (0: uniform)
    "mean_records": 9.25,   # mean records per patient (456,767 / 49,384)
    "max_records": 100,     # cap on records per patient
    "codes": 619,           # distinct diagnosis codes
    "year_low": 1922,       # first year of birth (82 years: 1922..2003)
    "year_tilt": 0.75,      # year = low + floor(82 u^tilt): < 1 leans toward the young
    "child_year": 1993,     # born this year or later: marry = 'Under 16'
}

#: the bundled taxonomy trees (ARX format ``value;level1;...;*``), by QI.
CSV_HIERARCHIES = ("month_of_birth", "race", "marry", "poverty")
INTERVALS = {"year_of_birth": [5, 10, 20, 40], "educ_year": [4, 8]}


def patients(con: duckdb.DuckDBPyConnection, table: str = "patients", individuals: int = 50_000, seed: int = 0,
             **options: Any) -> dict:
    """Create (or replace) ``table``: ``individuals`` patients with their diagnosis records.

    Options (see :data:`DEFAULTS`): ``skew``, ``mean_records``, ``max_records``, ``codes``,
    ``year_low``, ``year_tilt``, ``child_year``. Returns the figures of :func:`profile`
    plus ``table`` (quoted), ``seed``, ``options`` and ``seconds`` (generation only).
    """
    opts = _options(individuals, options)
    target = ident(table)
    start = time.perf_counter()
    Engine(con).run("datasets/patients.sql.j2", _params(individuals, seed, opts), target=target)
    seconds = time.perf_counter() - start
    figures = profile(con, target)
    return dict(figures, table=target, seed=seed, options=opts, seconds=seconds)


def churn(con: duckdb.DuckDBPyConnection, table: str = "patients", *, night: int, leave: float = 0.05,
          joiners: int = 2_000, change: float = 0.02, seed: int = 1, **options: Any) -> dict:
    """One night of issue 36's re-publication scenario on a patient table made by
    :func:`patients` (``templates/datasets/patients_{leave,change,join}.sql.j2``): a share
    ``leave`` of the patients leave with all their records, a share ``change`` of those who
    stay gain a record of a diagnosis they did not hold, and ``joiners`` new patients
    (generated with ``options``, new identifiers) join. Returns how many patients left,
    joined and changed.

    Example:
        >>> con = duckdb.connect()
        >>> _ = patients(con, "p", individuals=300, seed=1)
        >>> night = churn(con, "p", night=1, leave=0.1, joiners=40, change=0.05)
        >>> night["joined"], night["left"] > 0, night["changed"] > 0
        (40, True, True)
    """
    engine, target = Engine(con), ident(table)
    count = f"SELECT count(DISTINCT {PERSON}) FROM {target}"
    (before,) = con.execute(count).fetchone()
    params = {"night": night, "seed": seed}
    engine.run("datasets/patients_leave.sql.j2", dict(params, leave=leave), target=target)
    (stayed,) = con.execute(count).fetchone()
    (changed,) = engine.run("datasets/patients_change.sql.j2", dict(params, change=change), target=target).fetchone()
    if joiners:
        joining = ident(f"{table}__joiners")
        patients(con, f"{table}__joiners", joiners, seed=seed * 100 + night, **options)
        engine.run("datasets/patients_join.sql.j2", {"night": night}, target=target, joiners=joining)
        con.execute(f"DROP TABLE {joining}")
    return {"left": before - stayed, "joined": joiners, "changed": changed}


def profile(con: duckdb.DuckDBPyConnection, source: str, person: str = PERSON, sensitive: str = SENSITIVE,
            qis: tuple[str, ...] = QIS) -> dict:
    """The figures of a multi-record table (``source`` quoted), measured in one SQL query.

    Returns ``records``, ``individuals``, ``records_per_individual`` (min, q1, median, q3,
    mean, p90, p99, max, single: individuals with one record), ``top_share`` (the largest
    |P(s)| / n), ``distinct_sets`` (distinct S(p)), ``distinct`` (distinct values per column),
    ``mixed`` (individuals whose records disagree on a QI) and ``repeated`` (individuals with a
    sensitive value twice); the generator's tables have ``mixed == repeated == 0``.
    """
    columns = list(qis) + [sensitive]
    row = Engine(con).one("datasets/profile.sql.j2", source=source, person=ident(person), sensitive=ident(sensitive),
                          columns=[ident(c) for c in columns], same=[ident(c) for c in qis])
    (records, count, rmin, q1, median, q3, mean, p90, p99, rmax, single, top, sets, mixed, repeated) = row[:15]
    return {"records": int(records), "individuals": int(count),
            "records_per_individual": {"min": rmin, "q1": q1, "median": median, "q3": q3, "mean": float(mean),
                                       "p90": p90, "p99": p99, "max": rmax, "single": single},
            "top_share": float(top), "distinct_sets": int(sets),
            "distinct": dict(zip(columns, (int(x) for x in row[15:]))), "mixed": int(mixed),
            "repeated": int(repeated)}


def hierarchy_path(qi: str) -> str:
    """Path of the bundled taxonomy tree of ``qi`` (one of :data:`CSV_HIERARCHIES`, or ``fig1_age`` /
    ``fig1_postcode``: paper 004's Fig. 1)."""
    return str(resources.files("anonymizer") / "data" / "ir" / f"{qi}.csv")


def patients_spec(table: str = "patients", *, qis: int = 6, model: dict, algorithm: dict,
                  release: str | None = None, hierarchies: bool = True, suppression_limit: float = 0.05,
                  view: str | None = None) -> dict:
    """A release spec (dict) on a :func:`patients` table: the front ``qis`` QIs of Table 5
    (section 5: ``|QI| = d`` takes the first d), ``patient_id`` the individual, ``diagnosis``
    sensitive, the other QIs dropped, one ``model`` (a spec entry such as ``{"type":
    "eir-l-diversity", "l": 6}``; ``sensitive`` defaults to ``diagnosis``) and ``algorithm``
    (``{"name": "geneir"}``, ...). ``hierarchies``: the taxonomy trees of the module
    docstring (GeneIR needs them; DAnonyIR's set generalization does not read them).

    Example:
        >>> s = patients_spec(qis=3, model={"type": "ir-kl-anonymity", "k": 3, "l": 3},
        ...                   algorithm={"name": "geneir"})
        >>> [c for c, v in s["columns"].items() if v["role"] == "quasi"]
        ['month_of_birth', 'year_of_birth', 'gender']
    """
    if isinstance(qis, bool) or not isinstance(qis, int) or not 1 <= qis <= len(QIS):
        raise SpecError("qis", f"must be a whole number from 1 to {len(QIS)} (the front |QI| attributes of "
                               "Table 5)", qis)
    if not isinstance(model, dict) or "type" not in model:
        raise SpecError("model", "must be a model spec entry such as {type: eir-l-diversity, l: 6}", model)
    if not isinstance(algorithm, dict) or "name" not in algorithm:
        raise SpecError("algorithm", "must be an algorithm entry such as {name: geneir}", algorithm)
    columns: dict[str, Any] = {PERSON: {"role": "individual"}}
    for j, name in enumerate(QIS):
        if j >= qis:
            columns[name] = {"role": "identifier"}
            continue
        col: dict[str, Any] = {"role": "quasi"}
        if name in NUMERIC:
            col["type"] = "numeric"
        if hierarchies:
            if name in CSV_HIERARCHIES:
                col["hierarchy"] = {"csv": hierarchy_path(name)}
            elif name in INTERVALS:
                col["hierarchy"] = {"intervals": list(INTERVALS[name])}
        columns[name] = col
    columns[SENSITIVE] = {"role": "sensitive"}
    entry = dict(model)
    if "sensitive" not in entry and entry["type"] not in ("k-anonymity", "ir-k-anonymity"):
        entry["sensitive"] = SENSITIVE
    name = release or f"{table}_{algorithm['name']}_{_model_tag(entry)}_qi{qis}".replace("-", "_").replace(".", "")
    return {"release": name, "source": {"table": table}, "columns": columns, "models": [entry],
            "algorithm": dict(algorithm), "suppression_limit": suppression_limit,
            "output": {"view": view or name}}


def _model_tag(model: dict) -> str:
    figures = "_".join(f"{k}{model[k]}" for k in ("k", "l", "alpha", "beta") if k in model)
    return f"{model['type']}_{figures}" if figures else model["type"]


def _options(individuals: int, options: dict) -> dict:
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise SpecError(f"options.{sorted(unknown)[0]}", f"is not an option (options: {', '.join(DEFAULTS)})")
    if isinstance(individuals, bool) or not isinstance(individuals, int) or individuals < 1:
        raise SpecError("individuals", "must be a whole number >= 1", individuals)
    opts = dict(DEFAULTS, **options)
    if not 0 <= float(opts["skew"]) <= 4:
        raise SpecError("options.skew", "must be between 0 (uniform) and 4", opts["skew"])
    if not float(opts["mean_records"]) > 1:
        raise SpecError("options.mean_records", "must be above 1 (every patient has at least one record)",
                        opts["mean_records"])
    if not isinstance(opts["codes"], int) or not 2 <= opts["codes"] < 10 ** 6:
        raise SpecError("options.codes", "must be a whole number from 2 to 999999", opts["codes"])
    if not isinstance(opts["max_records"], int) or not 1 <= opts["max_records"] <= opts["codes"]:
        raise SpecError("options.max_records", "must be a whole number from 1 to the number of codes",
                        opts["max_records"])
    return opts


def _params(individuals: int, seed: int, opts: dict) -> dict:
    codes, skew = int(opts["codes"]), float(opts["skew"])
    if abs(skew - 1.0) < 1e-6:   # the law's s = 1 limit, (N+1)^u, within rounding
        skew = 1.0 + 1e-6
    params: dict[str, Any] = {
        "individuals": individuals, "seed": int(seed), "year_low": int(opts["year_low"]),
        "years": CARDINALITIES["year_of_birth"], "year_tilt": float(opts["year_tilt"]),
        "child_year": int(opts["child_year"]), "mean_records": float(opts["mean_records"]),
        "max_records": int(opts["max_records"]), "codes": codes,
        "skew_a": (codes + 1) ** (1.0 - skew) - 1.0, "skew_inv": 1.0 / (1.0 - skew),
        "mult": _coprime(codes), "shift": 13 % codes, "width": len(str(codes - 1)),
    }
    for c, (values, weights) in CATEGORIES.items():
        total = sum(weights)
        params[f"{c}_v"] = list(values)
        params[f"{c}_c"] = [w / total for w in accumulate(weights)][:-1]
    return params


def _coprime(n: int) -> int:
    """A multiplier coprime with ``n`` near 0.45 n: rank r -> (r * mult + shift) % n permutes."""
    from math import gcd
    m = max(1, int(n * 0.45))
    while gcd(m, n) != 1:
        m += 1
    return m
