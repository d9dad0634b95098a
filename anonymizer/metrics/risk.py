"""Re-identification risk of a table as ARX defines it: the prosecutor, journalist and
marketer attacker models (El Emam, "Guide to the De-Identification of Personal Health
Information", 2013; El Emam and Dankar 2008), computed in SQL from class counts.

The sample is the measured table; its equivalence classes (rows with equal QI values) have
sizes f_j, j = 1..J, n = sum_j f_j. An optional population table holds the sample's records
and more (the data set the sample was drawn from); the population class with the same QI
values has F_j >= f_j rows. Exactly as ARX's ``org.deidentifier.arx.risk.
RiskModelSampleSummary`` (version of 2025-09, ``getProsecutorRisk``, ``getJournalistRisk``,
``getMarketerRisk``; the threshold t is compared as ``1d / size > threshold``):

- **prosecutor** (``getProsecutorRisk``): a record's risk is 1/f_j (the attacker knows the
  target is in the sample). ``highest`` = 1/min f_j, ``lowest`` = 1/max f_j, ``average``
  = J/n (ARX's ``rC = numClasses / numRecords``, the share of records re-identified on
  average; the same as our historical classes/rows, and ARX's ``RiskModelSampleRisks.
  getAverageRisk`` = 1/average class size), ``records_at_risk`` = sum of f_j over classes
  with 1/f_j > t (ARX's ``rA`` is its share).
- **journalist** (``getJournalistRisk``): a record's risk is 1/F_j (the attacker matches
  against the population). ``highest`` = 1/min F_j, ``lowest`` = 1/max F_j over the
  sample's classes, ``records_at_risk`` = sum of f_j over classes with 1/F_j > t, and
  ``average`` = max(J / sum_j F_j, sum_j (f_j/F_j) / n) (ARX's ``rC = max(rC1, rC2)``).
  Without a population ARX takes the sample as the population (``population = sample``):
  F_j = f_j and the journalist figures equal the prosecutor's.
- **marketer** (``getMarketerRisk``): the expected share of records re-identified when
  every record is attacked, ``average`` = sum_j (f_j/F_j) / n; J/n without a population.

With a population, :func:`presence` gives two more figures: **k-map** (Sweeney 2002; El Emam
and Dankar 2008; ARX's ``KMap`` without an estimator holds a class when its ``pcount >= k``):
the largest k the sample meets, min F_j; and **delta-presence** (Nergiz, Atzori and Clifton
2007; ARX's ``DPresence``: dmin <= f_j / F_j <= dmax for every class of the population,
delta = 0 for a population class without sample rows): the smallest and largest delta.

The population must be given **at the sample's generalization**: its QI columns (same names)
hold the same labels as the sample's (in ARX the population is the whole data set under the
same transformation, the sample a research subset of it). A class the population lacks, or
holds fewer rows of than the sample, is a :class:`~anonymizer.errors.DataError`: the table
given is not the sample's population at its generalization.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from anonymizer.engine.names import ident
from anonymizer.engine.session import Engine
from anonymizer.engine.rendering import render
from anonymizer.errors import DataError


@dataclass(frozen=True)
class Population:
    """A population table: ``relation`` (quoted), ``shown`` (its name for messages and
    results) and ``qis`` (its quoted QI columns, in the sample's QI order)."""

    relation: str
    shown: str
    qis: tuple[str, ...]

    def sizes_sql(self) -> str:
        """Its classes and sizes F_j (``metrics/population_sizes.sql.j2``)."""
        return render("metrics/population_sizes.sql.j2", population=self.relation, qis=list(self.qis))


def classes_sql(source: str, qis: Sequence[str], weight: str | None = None,
                population: Population | None = None) -> str:
    """The sample's classes with f_j and F_j (``metrics/risk_classes.sql.j2``) over the quoted
    relation ``source`` grouped by the quoted columns ``qis`` (rows counted in ``weight``)."""
    return render("metrics/risk_classes.sql.j2", source=source, qis=list(qis), weight=weight,
                  population=population.sizes_sql() if population else None)


def risk_profile(engine: Engine, classes: str, threshold: float, sample: str,
                 population: Population | None = None) -> dict[str, dict[str, Any]]:
    """The prosecutor, journalist and marketer risk of the classes ``classes`` (a relation of
    :func:`classes_sql`'s columns), with ``threshold`` t (see the module's text).

    Returns:
        ``{"prosecutor": {highest, lowest, average, records_at_risk, classes_at_risk,
        share_at_risk}, "journalist": {population, the same keys}, "marketer": {population,
        average}}``; ``population`` names the population table, or ``sample`` (the measured
        table) when none is given.

    Raises:
        DataError: the population lacks some of the sample's classes or holds fewer rows.
    """
    ((rows, classes_n, p_hi, p_lo, p_rec, p_cls, j_hi, j_lo, j_rec, j_cls, j_avg, market, gaps,
      gap_rows),) = engine.rows("metrics/risk_summary.sql.j2", {"threshold": threshold}, classes=classes)
    if gaps:
        raise DataError(population.shown if population else sample,
                        f"is not a population of {sample} at its generalization: it lacks, or holds fewer "
                        f"rows of, {gaps} of the sample's {classes_n} classes ({gap_rows} of {rows} rows); give "
                        f"the population with the same QI columns and labels as the sample")
    rows, named = int(rows), population.shown if population else sample
    prosecutor = {"highest": float(p_hi), "lowest": float(p_lo), "average": int(classes_n) / rows,
                  "records_at_risk": int(p_rec), "classes_at_risk": int(p_cls), "share_at_risk": int(p_rec) / rows}
    journalist = {"population": named, "highest": float(j_hi), "lowest": float(j_lo), "average": float(j_avg),
                  "records_at_risk": int(j_rec), "classes_at_risk": int(j_cls), "share_at_risk": int(j_rec) / rows}
    return {"prosecutor": prosecutor, "journalist": journalist,
            "marketer": {"population": named, "average": float(market)}}


def risky_classes(engine: Engine, classes: str, qis: Sequence[str], threshold: float,
                  limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` classes of ``classes`` (grouped by the QI columns named ``qis``)
    whose prosecutor risk is above ``threshold``, the riskiest first: ``{class: {qi: value},
    size, population_size, prosecutor_risk, journalist_risk}`` (``metrics/risky_classes``)."""
    found = engine.rows("metrics/risky_classes.sql.j2", {"threshold": threshold, "limit": limit},
                        classes=classes, d=len(qis))
    return [{"class": dict(zip(qis, row[:len(qis)])), "size": int(row[len(qis)]),
             "population_size": int(row[len(qis) + 1]), "prosecutor_risk": float(row[len(qis) + 2]),
             "journalist_risk": float(row[len(qis) + 3])} for row in found]


def record_risk_sql(source: str, qis: Sequence[str], population: Population | None = None,
                    columns: Sequence[str] = ("prosecutor_risk", "journalist_risk")) -> str:
    """SQL selecting every row of the quoted relation ``source`` with two more columns,
    named ``columns``: its prosecutor risk 1/f_j and journalist risk 1/F_j (1/f_j without
    a population) over the QI columns named ``qis`` (``metrics/record_risk.sql.j2``)."""
    return render("metrics/record_risk.sql.j2", source=source, qis=[ident(q) for q in qis],
                  population=population.sizes_sql() if population else None,
                  prosecutor=ident(columns[0]), journalist=ident(columns[1]))


def presence(engine: Engine, classes: str, population: Population) -> dict[str, dict[str, Any]]:
    """k-map and delta-presence of the sample's ``classes`` (:func:`classes_sql` with
    ``population``, checked by :func:`risk_profile`) against ``population``
    (``metrics/presence.sql.j2``).

    Returns:
        ``{"k_map": {population, k}, "delta_presence": {population, delta_min, delta_max}}``:
        k = min F_j over the sample's classes (k-map holds for every k up to it); delta_min
        = the smallest f_j / F_j over the population's classes (0 when one of them has no
        sample row), delta_max the largest.
    """
    k, low, high, mine, theirs = engine.one("metrics/presence.sql.j2", classes=classes,
                                            population=population.sizes_sql())
    delta_min = 0.0 if int(theirs) > int(mine) else float(low)
    return {"k_map": {"population": population.shown, "k": int(k)},
            "delta_presence": {"population": population.shown, "delta_min": delta_min, "delta_max": float(high)}}
