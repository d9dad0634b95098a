"""The SQL macro library for analysts: ``anonymizer macros install | path | show``."""

from __future__ import annotations

import click

from anonymizer.cli import Group
from anonymizer.cli.params import db_option, echo_json, json_option, open_db


@click.group(cls=Group)
def macros() -> None:
    """The SQL macro library for analysts: measure and generalize tables in plain SQL.

    \b
    Install once into a database, then use it from any DuckDB client of the version that
    wrote the file, such as `anonymizer sql` (this package's DuckDB):
      anonymizer macros install --db anonymizer.duckdb
      anonymizer sql --db anonymizer.duckdb
        SELECT * FROM anon_k('published.adult', ['age', 'sex']);
        SELECT * FROM anon_l_diversity('published.adult', ['age', 'sex'], ['occupation']);
        SELECT anon_interval(age, 10), anon_bottom_code(age, 18) FROM main.adult;
    Or load the file yourself: `.read` the path that `anonymizer macros path` prints.
    """


@macros.command(name="install")
@db_option(help="DuckDB database file (created if missing).")
@click.option("--json", "as_json", is_flag=True, help="Print the installed macros as one JSON object.")
def macros_install(db: str, as_json: bool) -> None:
    """Create (or replace) every anon_* macro in the database's main schema.

    \b
    Example:
      anonymizer macros install --db warehouse.duckdb
    """
    from anonymizer.macros import install
    with open_db(db) as con:
        found = install(con)
    if as_json:
        echo_json({"database": db, "macros": [{"name": n, "kind": k, "parameters": p} for n, k, p in found]})
        return
    click.echo(f"installed {len(found)} macros into {db}:")
    for name, kind, params in found:
        click.echo(f"  {kind:<6} {name}({', '.join(params)})")


@macros.command(name="path")
def macros_path_command() -> None:
    """Print where the library file is (for `.read` in the DuckDB CLI or `anonymizer sql`).

    \b
    Example (in the DuckDB CLI):
      .read /path/printed/by/anonymizer/macros/path/anonymizer_macros.sql
    """
    from anonymizer.macros import macros_path
    click.echo(str(macros_path()))


@macros.command(name="show")
def macros_show() -> None:
    """Print the library's SQL (every macro is documented in it).

    \b
    Example:
      anonymizer macros show | grep -A3 'anon_release('
    """
    from anonymizer.macros import macros_sql
    click.echo(macros_sql(), nl=False)
