"""What several commands share: their common options, declared once, and small helpers.

Options are decorators (``@db_option()``, ``@json_option``, ...); the ones whose help
depends on the command take it as an argument, the rest of their declaration (name, type,
default) is the same everywhere. Nothing here imports the engine, duckdb or pandas: the
helpers import what they need when they run.
"""

from __future__ import annotations

import json
import math
import sys
from contextlib import contextmanager

import click

DEFAULT_DB = "anonymizer.duckdb"


# -- options ------------------------------------------------------------------------------------
def stack(*options):
    """One decorator applying ``options`` as if written one above the other, in this order."""
    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def db_option(default: str | None = DEFAULT_DB, help: str = "DuckDB database file."):
    """``--db FILE``: the database a command reads or writes (``None``: in memory unless said)."""
    return click.option("--db", default=default, show_default=default is not None, metavar="FILE", help=help)


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")


def quiet_option(help: str = "No progress messages."):
    return click.option("--quiet", "-q", is_flag=True, help=help)


def seed_option(help: str):
    return click.option("--seed", type=int, default=0, show_default=True, help=help)


def plots_option(help: str = "Also write PNG plots into this folder."):
    return click.option("--plots", type=click.Path(file_okay=False), metavar="DIR", help=help)


def rows_option(help: str = "Synthetic table sizes (repeat the option for several)."):
    return click.option("--rows", "rows", multiple=True, type=click.IntRange(1), default=[1_000_000],
                        show_default=True, help=help)


def repeat_option(help: str = "Runs per size.", default: int = 3):
    return click.option("--repeat", type=click.IntRange(1, 20), default=default, show_default=True, help=help)


def k_option(default: int = 10, help: str = "k of k-anonymity."):
    return click.option("--k", type=click.IntRange(1), default=default, show_default=True, help=help)


def qis_option(help: str = "Number of QIs."):
    return click.option("--qis", type=click.IntRange(1, 8), default=6, show_default=True, help=help)


def memory_limit_option(help: str):
    """``--memory-limit SIZE``: DuckDB's memory limit (checked by the spec's own rule when used)."""
    return click.option("--memory-limit", metavar="SIZE", default=None, help=help)


def batch_option(default: str, help: str = "The MSB greedy's steps: 'exact' (one record at a time, as "
                                           "paper 002) or a fraction in (0, 1]."):
    return click.option("--batch", default=default, show_default=True, callback=_batch, help=help)


def engine_options(command):
    """``--engine`` and Spark's ``--spark-master``, ``--spark-conf``, ``--spark-remote``, ``--spark-warehouse``
    (:mod:`anonymizer.engine.choice`; read them with :func:`engine_choice`)."""
    return stack(
        click.option("--engine", type=click.Choice(["duckdb", "spark"]), default=None,
                     help="Where the work runs: duckdb (default: the --db file) or spark (a Spark session: "
                          "tables are read from and published to its catalog, --db is not used). Replaces "
                          "the spec's engine.name."),
        click.option("--spark-master", metavar="URL", default=None,
                     help="Spark's master: local[2], spark://host:7077, yarn, ... (default: spark-submit's "
                          "--master, else spark-defaults.conf's, else local[*]). Under spark-submit leave it out."),
        click.option("--spark-conf", metavar="KEY=VALUE", multiple=True,
                     help="A Spark setting, e.g. spark.driver.memory=8g (repeat for several)."),
        click.option("--spark-remote", metavar="sc://HOST:PORT", default=None,
                     help="Run on a Spark Connect server (its master and catalog; default: $SPARK_REMOTE when "
                          "set). Instead of --spark-master and --spark-warehouse."),
        click.option("--spark-warehouse", metavar="DIR", default=None,
                     help="Keep Spark's catalog (a Derby metastore and the tables as Parquet) in DIR, so the "
                          "next command finds what this one published (default on a local master whose "
                          "catalog spark-defaults.conf does not set: ./anonymizer-spark)."),
    )(command)


def engine_choice(base=None, *, engine: str | None, spark_master: str | None, spark_conf: tuple[str, ...],
                  spark_warehouse: str | None, spark_remote: str | None = None, db_given: bool = False):
    """The :class:`~anonymizer.engine.choice.EngineChoice` of a command: the spec's
    (``base``) with the command line's options in its place."""
    from dataclasses import replace
    from anonymizer.engine.choice import EngineChoice
    from anonymizer.errors import SpecError
    choice = base or EngineChoice()
    if engine is not None:
        choice = replace(choice, name=engine)
    conf = []
    for item in spark_conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError("--spark-conf", "must be KEY=VALUE, e.g. spark.driver.memory=8g", item)
        conf.append((key.strip(), value.strip()))
    if spark_remote is not None and not spark_remote.startswith("sc://"):
        raise SpecError("--spark-remote", "must be a Spark Connect URL, sc://host:port", spark_remote)
    spark_given = spark_master is not None or conf or spark_warehouse is not None or spark_remote is not None
    if not choice.spark and spark_given:
        raise SpecError("--engine", "the --spark-* options need --engine spark (or engine: {name: spark} in the spec)")
    if choice.spark and db_given:
        raise SpecError("--db", "is a DuckDB file: with Spark the tables live in the Spark catalog "
                                "(--spark-warehouse); leave out one of them")
    return replace(choice, master=spark_master or choice.master, conf=choice.conf + tuple(conf),
                   warehouse=spark_warehouse or choice.warehouse, remote=spark_remote or choice.remote)


def given(name: str) -> bool:
    """Whether the running command's option ``name`` was given on the command line (not its default)."""
    from click.core import ParameterSource
    return click.get_current_context().get_parameter_source(name) is ParameterSource.COMMANDLINE


# -- parameter types ----------------------------------------------------------------------------
class Finite(click.ParamType):
    """A finite number (NaN and infinities refused), optionally in [low, high]."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            self.fail(f"{value!r} is not in [{self.low:g}, {self.high:g}]", param, ctx)
        return number


class ListOf(click.ParamType):
    """Comma separated values of ``kind``: finite ``int`` or ``float`` numbers, or ``str``
    (``""`` is the empty list).

    Example:
        >>> ListOf(int).convert("5, 8,10", None, None)
        [5, 8, 10]
    """

    def __init__(self, kind: type):
        self.kind = kind
        self.name = {int: "integers", float: "numbers"}.get(kind, "names")

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        try:
            values = [self.kind(v) for v in csv_list(value)]
        except ValueError:
            values = None
        if values is None or (self.kind is not str and not all(math.isfinite(v) for v in values)):
            self.fail(f"must be comma separated finite {'whole ' if self.kind is int else ''}numbers: {value!r}",
                      param, ctx)
        return values


def _batch(ctx, param, value: str):
    """``--batch``: ``exact`` or a fraction in (0, 1] (the MSB greedy's batch, paper 002)."""
    if value == "exact":
        return value
    try:
        fraction = float(value)
    except ValueError:
        fraction = None
    if fraction is None or not 0 < fraction <= 1:
        raise click.BadParameter("must be 'exact' or a fraction in (0, 1], e.g. 0.2", ctx, param)
    return fraction


# -- helpers ------------------------------------------------------------------------------------
def csv_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


@contextmanager
def open_engine(choice, db: str | None, read_only: bool = False, must_exist: bool = False):
    """The connection of a command that may run on either engine (:func:`engine_choice`):
    ``--db`` opened as :func:`open_db` does, or a Spark session, stopped at the end."""
    from anonymizer.engine.choice import connect
    with connect(choice, db, read_only=read_only, must_exist=must_exist) as con:
        yield con


@contextmanager
def open_db(db: str | None, read_only: bool = False, must_exist: bool = False):
    """The one way a command opens ``--db`` (``None``: in memory). Every opening problem is a
    one-line :class:`~anonymizer.engine.database.DatabaseOpenError` (exit status 3; 2 for no such file); ``read_only``
    never creates the file; a file created here is removed if the command fails."""
    from anonymizer.engine.database import open_database
    with open_database(db, read_only=read_only, must_exist=must_exist, label="--db") as con:
        yield con


@contextmanager
def progress(quiet: bool, phases: tuple[str, ...] | dict[str, float] = ()):
    """``with progress(quiet) as say:`` a progress callback for the library's ``progress=``
    (:class:`anonymizer.cli.progress.Progress`: a bar in a terminal, timestamped lines on
    stderr elsewhere), or ``None`` when quiet. ``phases``: the steps a bar counts, with their
    shares of the work."""
    if quiet:
        yield None
        return
    from anonymizer.cli.progress import Progress
    with Progress(phases=phases) as say:
        yield say


def echo_json(value: dict) -> None:
    """A command's one ``--json`` object on success: ``value`` with ``"ok": true`` (a failure's
    is :func:`anonymizer.cli.failure.echo_failure`'s)."""
    click.echo(json.dumps({"ok": True, **value}, default=str))


def emit(result, as_json: bool) -> None:
    """Print a release's result: its summary, or one JSON object."""
    if as_json:
        echo_json(result.to_dict())
        return
    from anonymizer.cli.summary import format_release
    click.echo(format_release(result))


def stream(lines, formatter=None) -> None:
    """Print each benchmark run as a JSON line as it ends, then (with ``formatter``) a
    readable table of them on stderr."""
    runs = []
    for line in lines:
        runs.append(line)
        click.echo(json.dumps(line))
        sys.stdout.flush()
    if formatter is not None:
        click.echo(formatter(runs), err=True)
