"""Hierarchies before a release: ``anonymizer hierarchy show | export | lattice``.

``show`` and ``export`` build one column's hierarchy (from a release spec, or ad hoc from a
file or a table with a builder) and print it level by level; ``export`` also writes it in
ARX's format. ``lattice`` evaluates every node of a spec's generalization lattice. The
hierarchies are built by :mod:`anonymizer.cli.hierarchy_show`; this module only presents them.
"""

from __future__ import annotations

import click

from anonymizer.errors import SpecError
from anonymizer.cli import Group
from anonymizer.cli.params import DEFAULT_DB, db_option, echo_json, json_option, open_db, progress, quiet_option, stack

BUILDERS = ("cgh", "dbgh", "cbgh", "iotf", "masking", "intervals", "dates", "ordered")


@click.group(cls=Group)
def hierarchy() -> None:
    """Build and show a column's generalization hierarchy, or evaluate a spec's lattice.

    \b
      show      a column's hierarchy level by level: nodes, distortion, example labels
      export    the same, also written as an ARX CSV file a spec reads back
      lattice   every node of a spec's lattice: k, classes, DCP, distortion (paper 001)

    \b
    Example (`anonymizer demo` loads UCI Adult into table adult of anonymizer.duckdb):
      anonymizer hierarchy show --table adult --column hours-per-week --builder cbgh --min-width 10 --range 1,100
    """


#: the options naming a column and its hierarchy, shared by ``show`` and ``export``
_column_options = stack(
    click.argument("spec", required=False, type=click.Path(dir_okay=False)),
    click.option("--column", required=True, help="The column whose hierarchy to build."),
    db_option(None, f"DuckDB database file holding the table (default {DEFAULT_DB})."),
    click.option("--data", type=click.Path(exists=True, dir_okay=False),
                 help="A CSV or Parquet file holding the column."),
    click.option("--table", help="A table or view of --db holding the column (schema.table allowed)."),
    click.option("--builder", type=click.Choice(BUILDERS), help="How to build the hierarchy (without a SPEC)."),
    click.option("--min-width", type=float, help="cgh/dbgh/cbgh: the narrowest interval width."),
    click.option("--range", "bounds", help="cgh/dbgh/cbgh/iotf: the root interval LOW,HIGH (default: the "
                                          "data's min, max)."),
    click.option("--nodes", help="iotf: nodes per level from level 1 up, decreasing (default 24,16,4: paper 001's "
                                 "Table 4)."),
    click.option("--widths", help="intervals: one width per level, e.g. 5,10,20."),
    click.option("--levels", type=click.IntRange(1), help="masking: characters masked (default: all but one)."),
    click.option("--units", help="dates: truncation units, e.g. month,quarter,year,decade."),
    click.option("--order", help="ordered: every value in order, comma separated."),
    click.option("--sizes", help="ordered: values per group at each level, e.g. 2,4."),
    click.option("--examples", type=click.IntRange(1, 50), default=3, show_default=True,
                 help="Labels shown per level."),
    json_option,
)


_BUILDERS_HELP = """
    \b
    Builders and their options:
      cgh, dbgh, cbgh   --min-width, --range (paper 001: halving, divisors, cardinalities)
      iotf              --nodes, --range (paper 001's baseline: values clustered on the fly)
      intervals         --widths          masking   --levels
      dates             --units           ordered   --order, --sizes
"""


@hierarchy.command()
@_column_options
def show(**options) -> None:
    """Build a column's generalization hierarchy and show it level by level: nodes,
    distortion range (paper 001, Definition 9) and example labels. Nothing is written.

    \b
    On the bundled UCI Adult data (`anonymizer demo` loads it into table adult of
    anonymizer.duckdb), paper 001's Table 4 for hours-per-week:
      anonymizer hierarchy show --table adult --column hours-per-week --builder cbgh --min-width 10 --range 1,100
    prints levels of 10, 5, 3, 2 and 1 nodes with distortions 0.45 up to 5. Other sources:
      anonymizer hierarchy show release.yml --column age      # the spec's source and hierarchy
      anonymizer hierarchy show --data people.csv --column zip --builder masking --levels 3
      anonymizer hierarchy show --data people.parquet --column born --builder dates --units month,year,decade
      anonymizer hierarchy show --table adult --column education-num --builder intervals --widths 2,4,8
    """
    _show(None, **options)


show.help += _BUILDERS_HELP


@hierarchy.command()
@_column_options
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="The ARX CSV file to write (value;level1;...;*).")
def export(output: str, **options) -> None:
    """Build a column's generalization hierarchy, show it, and write it to FILE in ARX's
    format (value;level1;...;*), which a spec reads back as `hierarchy: {csv: FILE}`.

    \b
    Example:
      anonymizer hierarchy export --data people.csv --column zip --builder masking --levels 3 -o zip.csv
    """
    _show(output, **options)


export.help += _BUILDERS_HELP


def _show(export: str | None, spec: str | None, column: str, db: str | None, data: str | None,
          table: str | None, builder: str | None, min_width: float | None, bounds: str | None, nodes: str | None,
          widths: str | None, levels: int | None, units: str | None, order: str | None, sizes: str | None,
          examples: int, as_json: bool) -> None:
    from anonymizer.cli.hierarchy_show import hierarchy_of, show_file_column, show_spec_column, show_table_column
    if spec is not None:
        shown = show_spec_column(spec, column, db or DEFAULT_DB, examples, export)
    elif builder is None or (data is None) == (table is None):
        raise SpecError("--builder", "without a SPEC, give --builder and one of --data FILE or --table T")
    else:
        built = hierarchy_of(builder, min_width=min_width, range=bounds, nodes=nodes, widths=widths, levels=levels,
                             units=units, order=order, sizes=sizes)
        shown = (show_file_column(data, column, built, examples, export) if data is not None
                 else show_table_column(db or DEFAULT_DB, table, column, built, examples, export))
    if as_json:
        echo_json(shown.to_dict())
        return
    click.echo(format_shown(shown))
    if export:
        click.echo(f"written to {export}")


def format_shown(shown) -> str:
    """The text ``anonymizer hierarchy show`` prints for a
    :class:`~anonymizer.cli.hierarchy_show.Shown`: one line per level."""
    lines = [f"{shown.column}: {shown.kind} hierarchy, {shown.values} values, height {shown.height}, "
             f"{'nested' if shown.nested else 'NOT nested (a node may straddle two nodes of the next level)'}",
             f"{'level':>5}  {'nodes':>6}  {'distortion':<12}  examples"]
    for lv in shown.levels:
        spread = f"{lv.min_distortion:.3g}" + ("" if lv.min_distortion == lv.max_distortion
                                               else f"..{lv.max_distortion:.3g}")
        more = ", ..." if lv.nodes > len(lv.examples) else ""
        lines.append(f"{lv.level:>5}  {lv.nodes:>6}  {spread:<12}  {', '.join(lv.examples)}{more}")
    return "\n".join(lines)


@hierarchy.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@db_option()
@click.option("--table-name", help="Keep the table in DB as _anon_lattice.TABLE_NAME (default: nothing is written "
                                   "to DB, which is opened read-only).")
@click.option("--plot", type=click.Path(dir_okay=False), metavar="PNG",
              help="Also plot k and DCP against cost.")
@json_option
@quiet_option()
def lattice(spec: str, db: str, table_name: str | None, plot: str | None, as_json: bool, quiet: bool) -> None:
    """Evaluate every node of the generalization lattice of SPEC's quasi-identifiers (one
    level per QI): its k, classes, discernibility penalty (DCP) and distortion ratio (paper
    001, Definition 9). DB is only read, unless --table-name keeps the table as
    _anon_lattice.<name> there. Each node also says whether the spec holds there (every
    model, failing rows suppressed within its suppression_limit). The summary names the
    cheapest nodes reaching the spec's k without suppression (paper 001) and the cheapest
    where the spec holds: apply one with algorithm {name: full-domain, levels: {age: 3, ...}}.

    \b
    Examples:
      anonymizer hierarchy lattice examples/adult_lattice.yml --plot adult_lattice.png
      anonymizer hierarchy lattice release.yml --db warehouse.duckdb --table-name ages_v2 --json
    Paper 001's experiment (three builders compared on Adult): anonymizer reproduce p001.
    """
    from anonymizer.families.generalized.lattice.evaluate import evaluate_spec, format_lattice
    from anonymizer.spec.parse import load_spec
    parsed = load_spec(spec)
    with open_db(db, read_only=table_name is None and db is not None) as con, progress(quiet or as_json) as say:
        found = evaluate_spec(con, parsed, table_name, say)
    if plot:
        from anonymizer.reproduce.p001_hierarchies.plots import plot_lattice
        plot_lattice({parsed.release: found.nodes}, plot)
    if as_json:
        echo_json(found.to_dict(parsed.k))
        return
    click.echo(format_lattice(found, parsed.k))
    if plot:
        click.echo(f"plot written to {plot}")
