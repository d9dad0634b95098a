"""Measuring any table: ``anonymizer check`` and the text it prints
(:func:`anonymizer.measure.measure_table` computes the figures)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import click

from anonymizer.cli.params import (Finite, csv_list, db_option, echo_json, engine_choice, engine_options, given,
                                   json_option, open_engine)


@click.command()
@db_option()
@click.option("--table", required=True, help="Table or view to measure (schema.table allowed).")
@click.option("--qi", required=True, help="Quasi-identifier columns, comma separated.")
@click.option("--sensitive", multiple=True, help="A sensitive column (repeat for several, or comma separate).")
@click.option("--c", "c", type=Finite(), default=2.0, show_default=True, help="c of recursive (c,l)-diversity.")
@click.option("--reference", default=None, metavar="TABLE",
              help="Table whose sensitive distribution t-closeness compares with (default: the measured table; "
                   "give a release's input to measure it as the release's gate does).")
@click.option("--population", default=None, metavar="TABLE",
              help="Population table of journalist and marketer risk: the table the measured one was drawn "
                   "from, with the same QI columns and labels (default: the measured table itself).")
@click.option("--population-size", type=click.IntRange(1), default=None, metavar="N",
              help="Size of the population the measured table was sampled from: estimate how many population "
                   "records are unique on the QIs (ARX's Pitman, Zayatz and SNB models, Dankar's rule).")
@click.option("--sampling-fraction", type=Finite(0, 1), default=None, metavar="F",
              help="The same estimates, the population given as the table's share of it (0 < F <= 1; "
                   "population = rows / F). Give this or --population-size.")
@click.option("--risk-threshold", type=Finite(0, 1), default=0.2, show_default=True,
              help="A record is at risk when its re-identification risk is above this.")
@click.option("--risky-classes", type=click.IntRange(0), default=0, show_default=True, metavar="N",
              help="List at most N classes above the risk threshold, the riskiest first.")
@json_option
@engine_options
def check(db: str, table: str, qi: str, sensitive: tuple[str, ...], c: float, reference: str | None,
          population: str | None, population_size: int | None, sampling_fraction: float | None,
          risk_threshold: float, risky_classes: int, as_json: bool, **engine: str | None) -> None:
    """Measure any table: k, l-diversity (distinct, entropy, recursive), t-closeness,
    re-identification risk and class sizes, grouping by the QI columns.

    Works on tables anonymized elsewhere too. Nothing is written (DB is opened read-only).
    t-closeness compares each class with the measured table's distribution, or with
    --reference's: a release checks its classes against its input (the source before
    suppression), so `--table published.adult --reference adult` reproduces the release's
    figure.

    Re-identification risk is ARX's (RiskModelSampleSummary): prosecutor (a record's risk
    1/f, f = its class's rows), journalist (1/F, F = the rows of --population with its QI
    values; the prosecutor's without a population) and marketer (the expected share of
    records re-identified, sum f/F over rows). --risky-classes N lists the classes above
    --risk-threshold. With --population, k-map (the smallest F: every class is among at
    least that many population records) and delta-presence (the range of f/F over the
    population's classes: how sure an attacker is that a population record is in the table).

    Population uniqueness (--population-size or --sampling-fraction): the table is a sample;
    how many records of the whole population are unique on the QIs? ARX's estimators from
    the sample's class sizes: Zayatz (1991), Pitman (Hoshino 2001), SNB (Chen and
    Keller-McNulty 1998), and Dankar et al.'s (2012) choice among them (Pitman up to a 10%
    sample, else the smaller of Zayatz and SNB); 0 where a model finds no estimate.

    With --engine spark the table is one of Spark's catalog and the figures are computed
    by Spark.

    \b
    Examples:
      anonymizer check --db d.duckdb --table published.adult --qi age,sex,race --sensitive occupation
      anonymizer check --db d.duckdb --table sample --qi age,zip --population everyone --risky-classes 10
      anonymizer check --db d.duckdb --table adult --qi age,sex,race --sampling-fraction 0.01
      anonymizer check --engine spark --spark-warehouse wh/ --table published.adult --qi age,sex,race
    """
    from anonymizer.measure import measure_table
    sens = [s for item in sensitive for s in csv_list(item)]
    with open_engine(engine_choice(**engine, db_given=given("db")), db, read_only=True) as con:
        result = measure_table(con, table, csv_list(qi), sens, c=c, reference=reference, population=population,
                               threshold=risk_threshold, risky_classes=risky_classes,
                               population_size=population_size, sampling_fraction=sampling_fraction)
    if as_json:
        echo_json(result)
    else:
        click.echo(format_measure(result))



def _fmt(x: float) -> str:
    return f"{x:.4g}" if isinstance(x, float) and math.isfinite(x) else str(x)


def format_measure(result: Mapping[str, Any]) -> str:
    """A readable multi-line summary of :func:`~anonymizer.measure.measure_table`'s result."""
    risk = result["risk"]
    qis = ", ".join(result.get("qis", [])) or "(none: one class)"
    lines = [
        f"table {result.get('table', '?')}: {result['rows']} rows in {result['classes']} "
        f"equivalence classes over {qis}",
        f"  k-anonymity: k = {result['k']} (smallest class)",
        *_risk_lines(risk),
        "  class sizes:",
    ]
    for entry in result["class_sizes"]:
        lo, hi = entry["min_size"], entry["max_size"]
        size = f"{lo}" if lo == hi else f"{lo}-{hi}"
        lines.append(f"    size {size:>11}: {entry['classes']} classes, {entry['rows']} rows")
    for name, m in result.get("sensitive", {}).items():
        lines.append(f"  sensitive {name!r}: distinct l = {m['distinct_l']}, "
                     f"entropy l = {_fmt(m['entropy_l'])}, recursive ({_fmt(m['c'])},l) l = "
                     f"{m['recursive_l']}, t = {_fmt(m['t'])} ({m['distance']} distance"
                     + (f", against {m['reference']}" if m.get("reference", result.get("table")) != result.get("table")
                        else "") + "), "
                     f"alpha = {_fmt(m['alpha'])}")
    return "\n".join(lines)


def _count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun in the number it takes: 1 record, 2 records."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def _risk_lines(risk: Mapping[str, Any]) -> list[str]:
    """The risk lines of :func:`format_measure`: one per attacker model, then the risky
    classes when listed."""
    above = f"above {_fmt(risk['threshold'])}"
    lines = []
    for model in ("prosecutor", "journalist"):
        m = risk[model]
        named = f" (population {m['population']})" if model == "journalist" else ""
        lines.append(f"  {model} risk{named}: highest {_fmt(m['highest'])}, average {_fmt(m['average'])}; "
                     f"{_count(m['records_at_risk'], 'record')} ({m['share_at_risk']:.1%}) in "
                     f"{_count(m['classes_at_risk'], 'class', 'classes')} with risk {above}")
    lines.append(f"  marketer risk (population {risk['marketer']['population']}): "
                 f"{_fmt(risk['marketer']['average'])} (expected share of records re-identified)")
    if "k_map" in risk:
        kmap, delta = risk["k_map"], risk["delta_presence"]
        lines.append(f"  k-map (population {kmap['population']}): k = {kmap['k']} (smallest population class); "
                     f"delta-presence: delta from {_fmt(delta['delta_min'])} to {_fmt(delta['delta_max'])}")
    if "population_uniqueness" in risk:
        u = risk["population_uniqueness"]
        lines.append(f"  population uniques (population {u['population_size']}, sampling fraction "
                     f"{_fmt(u['sampling_fraction'])}, {_count(u['sample_uniques'], 'sample unique')}): "
                     + ", ".join(f"{name} {_fmt(u[name + '_share'])}" for name in ("pitman", "zayatz", "snb"))
                     + f"; Dankar's rule ({u['dankar_model']}) {_fmt(u['dankar_share'])} of the population"
                     f" ({u['dankar']:.1f} records)")
    if "risky_classes" in risk:
        shown = risk["risky_classes"]
        lines.append(f"  classes with prosecutor risk {above}: {risk['prosecutor']['classes_at_risk']}"
                     + (f", the riskiest {len(shown)}:" if shown else ""))
        for entry in shown:
            values = ", ".join(f"{name}={value!r}" for name, value in entry["class"].items()) or "(all rows)"
            lines.append(f"    {values}: {entry['size']} rows (population {entry['population_size']}), "
                         f"prosecutor {_fmt(entry['prosecutor_risk'])}, journalist {_fmt(entry['journalist_risk'])}")
    return lines
