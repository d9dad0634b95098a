"""Benchmark of nightly releases on a changing table (``anonymizer bench history``, issue 36).

A table of ``rows`` people (:mod:`anonymizer.datasets.churn`: age, zip, sex as QIs, a
diagnosis sensitive) is released ``versions`` times; between two versions ``churn`` of the
people leave, as many join and ``change`` of those who stay get another diagnosis. Every
night the same table is released twice on the same connection, under the same models
(``family``: ``generalized``, k-anonymity and distinct l-diversity by Mondrian;
``anatomy``, l-diversity by paper 002's MBF; ``lgb``, k-anonymous local equivalence
groups and l-unique buckets of the diagnosis by paper 000's LGB_MDP; or
``identity_reserved``, EIR l-diversity by GeneIR on paper 004's patients, several diagnosis
records each, :mod:`anonymizer.datasets.patients`, whose ``rows`` are records, the
individuals about ``rows`` / 9.25, and whose ``change`` gives a patient one more record):

- ``invariant``: ``history: {guarantee: invariant, person: pid}``, m-invariance and the
  cross-version gate (:mod:`anonymizer.versions.invariance`);
- ``independent``: each version on its own, a full re-run of the algorithm.

After each night both releases keep their newest :data:`KEEP` snapshots (``anonymizer prune``).

Each night yields both runs' seconds, the plain ``GROUP BY`` scan of the QIs (the
yardstick) and the ratios to it, and the loss of each (``loss``: NCP per cell for the
generalized family, the additional information loss of Def. 14 for anatomy, NCP per QI
cell for LGB, NLoss for identity-reserved releases), counterfeit rows (counterfeit
individuals for identity-reserved releases), suppressed rows, classes (groups). Anatomy's and LGB's
releases may suppress 1 % of the rows (:data:`SUPPRESSION`): under invariant, the joiners
their algorithm cannot group among themselves, and returners whose place was taken, are
held back. The invariant release also reports what the gate measured of the
independent one (people isolated by a difference, its audit's ``figures.combination``), so
the price of the guarantee and what it buys stand side by side.

Example:
    >>> runs = list(run_history_bench(3000, versions=2))
    >>> [r["version"] for r in runs], runs[1]["invariant"]["isolated"]
    ([1, 2], 0)
"""

from __future__ import annotations

import json
import time
from typing import Iterator

import duckdb

from anonymizer.bench.harness import PEAK_COLUMN, figure, format_table, scan_time
from anonymizer.engine.footprint import memory
from anonymizer.datasets import churn as table_churn, patients
from anonymizer.engine.session import Engine
from anonymizer.release.history import prune

QIS = ("age", "zip", "sex")
#: the identity-reserved release's QIs (paper 004's Table 5, its front six, as its section 5
#: and ``anonymizer bench ir``: with three, the 1,968 combinations of their values each hold
#: enough patients at 1M records that GeneIR generalizes nothing)
PATIENT_QIS = patients.QIS[:6]
#: paper 004's mean records per patient (456,767 / 49,384), by which ``rows`` gives individuals
RECORDS_PER_PATIENT = 9.25


#: the snapshots each release keeps after a night (``anonymizer prune --keep``): a team that
#: publishes nightly for years prunes, and what the gate needs of the pruned versions stays
#: (:mod:`anonymizer.versions.combination`)
KEEP = 2
SNAPSHOTS = "_anon_releases"

#: anatomy's suppression budget: the few joiners MSB cannot group alone are held back
SUPPRESSION = 0.01
#: the families the benchmark releases, and the utility figure it reports as their loss
FAMILIES = {"generalized": "ncp", "anatomy": "additional_information_loss", "lgb": "ncp_per_qi_cell",
            "identity_reserved": "nloss"}


def spec(guarantee: str, k: int, l: int, family: str = "generalized") -> dict:
    if family == "identity_reserved":
        return patients.patients_spec("people", qis=len(PATIENT_QIS), model={"type": "eir-l-diversity", "l": l},
                                      algorithm={"name": "geneir"}, release=f"nightly_{guarantee}",
                                      suppression_limit=SUPPRESSION) | {
            "history": {"guarantee": guarantee, "person": patients.PERSON}}
    models, algorithm = {
        "generalized": ([{"type": "k-anonymity", "k": k}, {"type": "distinct-l-diversity", "l": l,
                                                            "sensitive": "diagnosis"}], None),
        "anatomy": ([{"type": "multi-l-diversity", "l": l}], "mbf"),
        "lgb": ([{"type": "k-anonymity", "k": k}, {"type": "l-unique", "l": l}], "lgb-mdp")}[family]
    return {"release": f"nightly_{guarantee}", "source": {"table": "people"},
            "columns": {"pid": "identifier", "age": "quasi", "zip": "quasi", "sex": "quasi", "diagnosis": "sensitive"},
            "models": models, **({} if algorithm is None else {"algorithm": {"name": algorithm},
                                                               "suppression_limit": SUPPRESSION}),
            "history": {"guarantee": guarantee, "person": "pid"}}


def run_history_bench(rows: int, versions: int = 10, churn: float = 0.01, change: float = 0.005, k: int = 10,
                      l: int = 3, family: str = "generalized") -> Iterator[dict]:
    """Yield one dict per version (module docstring): version, rows, scan_seconds, family,
    and per guarantee (``invariant``, ``independent``) seconds, ratio, loss, counterfeits,
    suppressed, classes, isolated (people a difference with an earlier version isolates, as
    the gate measured), peak_mb."""
    from anonymizer.api import anonymize
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        engine = Engine(con)
        start, night = _table(con, family)
        people = start(rows)
        for version in range(1, versions + 1):
            if version > 1:
                night(version, leave=churn, joiners=round(churn * people), change=change)
            (size,) = con.execute("SELECT count(*) FROM people").fetchone()
            out = {"bench": "history", "family": family, "version": version, "rows": size,
                   "scan_seconds": round(scan_time(engine, '"people"',
                                                   PATIENT_QIS if family == "identity_reserved" else QIS), 3)}
            for guarantee in ("invariant", "independent"):
                start = time.perf_counter()
                result = anonymize(spec(guarantee, k, l, family), con)
                seconds = time.perf_counter() - start
                gate = _audited(con, f"nightly_{guarantee}", version)
                out[guarantee] = {
                    "seconds": round(seconds, 3),
                    "ratio": round(seconds / out["scan_seconds"], 1) if out["scan_seconds"] else None,
                    "loss": round(result.utility.get(FAMILIES[family], 0.0), 4), "classes": result.classes,
                    "counterfeits": (result.algorithm.get("invariance") or {}).get("counterfeits", 0),
                    "suppressed": result.suppressed, "isolated": gate.get("isolated", 0),
                    "below_l": (gate.get("intersection") or {}).get("below", 0)}
            for guarantee in ("invariant", "independent"):   # as a nightly team runs `anonymizer prune`
                prune(engine, SNAPSHOTS, f"nightly_{guarantee}", keep=KEEP)
            out["peak_mb"] = memory(engine)[0]
            yield out
    finally:
        con.close()


def _table(con: duckdb.DuckDBPyConnection, family: str):
    """The family's table ``people``: how to create it with ``rows`` rows (returns its
    people), and one night's churn (``night(version, leave=, joiners=, change=)``)."""
    if family == "identity_reserved":
        def start(rows: int) -> int:
            return patients.patients(con, "people", max(1, round(rows / RECORDS_PER_PATIENT)), seed=1)["individuals"]
        return start, lambda version, **night: patients.churn(con, "people", night=version, **night)

    def create(rows: int) -> int:
        table_churn.people(con, "people", rows)
        return rows
    return create, lambda version, **night: table_churn.churn(con, "people", night=version, **night)


def _audited(con: duckdb.DuckDBPyConnection, release: str, version: int) -> dict:
    """The gate's figures of a version, from its audit row."""
    (figures,) = con.execute("SELECT figures FROM _anon_releases._audit WHERE release = $r AND version = $v",
                             {"r": release, "v": version}).fetchone()
    return json.loads(figures).get("combination") or {}


def format_history_bench(runs: list[dict]) -> str:
    """One line per version: both releases' seconds, ratio to the scan, and loss."""
    def side(g: str, key: str, fmt: str = ""):
        return lambda r: format(r[g][key], fmt)
    return format_table(runs, [
        ("version", 7, figure("version")), ("rows", 9, figure("rows")), ("scan s", 7, figure("scan_seconds", ".3f")),
        ("inv s", 7, side("invariant", "seconds", ".2f")), ("inv x", 6, side("invariant", "ratio")),
        ("ind s", 7, side("independent", "seconds", ".2f")), ("ind x", 6, side("independent", "ratio")),
        ("inv loss", 8, side("invariant", "loss", ".4f")), ("ind loss", 8, side("independent", "loss", ".4f")),
        ("fakes", 7, side("invariant", "counterfeits")), ("inv sup", 7, side("invariant", "suppressed")),
        ("inv iso", 7, side("invariant", "isolated")), ("ind iso", 7, side("independent", "isolated")),
        ("ind <l", 7, side("independent", "below_l")), PEAK_COLUMN])


def plot_history_bench(runs: list[dict], path: str) -> None:
    """The runs per version as a PNG at ``path``: both releases' seconds, the invariant
    release's counterfeits (rows; individuals in an identity-reserved release), both losses, and the people the independent
    versions leave isolated by a difference or below l by intersection (the invariant's stay 0)."""
    from anonymizer.report.plots import version_series

    def side(g: str, key: str) -> list:
        return [r[g][key] for r in runs]
    fig = version_series([r["version"] for r in runs], [
        ("seconds", {"invariant": side("invariant", "seconds"), "independent": side("independent", "seconds")}),
        (f"counterfeit {'individuals' if runs and runs[0]['family'] == 'identity_reserved' else 'rows'}",
         {"invariant": side("invariant", "counterfeits")}),
        ("loss", {"invariant": side("invariant", "loss"), "independent": side("independent", "loss")}),
        ("people narrowed (independent)", {"isolated": side("independent", "isolated"),
                                           "below l": side("independent", "below_l")}),
    ])
    fig.savefig(path, dpi=120, bbox_inches="tight")
