"""The ``anonymizer`` command: a thin shell over the same API Python users call.

One module per user task: ``run`` (run, validate, demo), ``check``, ``report``,
``history`` (history, rollback, prune),
``hierarchy``, ``macros``, ``sql``, ``bench``, ``reproduce``; ``params`` declares the options they
share. A command's module is
imported when the command runs (or its help is shown), and the modules import the engine
only inside their commands, so ``anonymizer --help`` loads neither duckdb nor pandas.

Exit status (:mod:`anonymizer.cli.failure` sorts the errors):

===  ==========================  ==========================================================
 0   done
 1   a privacy check failed      :class:`~anonymizer.errors.PrivacyCheckFailed`: a model or
                                 the suppression limit does not hold; nothing was published
 2   spec or input error         any other :class:`~anonymizer.errors.AnonymizerError`
                                 (``SpecError``, ``DataError``, ...), a bad option, an
                                 unknown table, column, release or version, a file that
                                 cannot be read, a --db path with no database file there
 3   database or engine error    :class:`~anonymizer.errors.DatabaseError`: the database
                                 file cannot be opened (not a DuckDB file, another DuckDB
                                 version, locked by another process, read-only), I/O,
                                 out of memory, a full disk, a Spark or Py4J failure
 4   internal error              a statement of ours that failed
                                 (:class:`~anonymizer.errors.TemplateError`, but for the
                                 environment's failures above), anything else: a bug (the
                                 traceback is printed; please report it)
130  interrupted                 Ctrl-C (143: SIGTERM): the running statement stops at
                                 once; a release publishes in one transaction, so all of
                                 it or nothing
===  ==========================  ==========================================================

Apart from status 4, a failure is one line on stderr. With ``--json`` a command prints
exactly one JSON object on stdout, also when it fails: ``{"ok": true, ...}`` on success,
``{"ok": false, "exit_status": N, "error": {"kind": "privacy" | "input" | "database" |
"internal", "message": ..., ...}}`` on failure, the error's fields beside its message
(``model``, ``achieved``, ``classes`` of a privacy failure; ``field``, ``value`` of a spec
error; ``where``, ``problem`` of a database error).

Every command that opens ``--db`` goes through :func:`~anonymizer.cli.params.open_db`:
commands that only read open the file read-only and never create it; a database file a
command creates is removed again (with its ``.wal``) if the command fails.
"""

from __future__ import annotations

import importlib

import click

from anonymizer.cli import logs
from anonymizer.cli.failure import EXIT_INPUT, echo_failure, fail, interrupted
from anonymizer.cli.interrupts import stoppable

#: the commands ``anonymizer --help`` lists, in this order: name -> module of this package
#: defining it (as the attribute of the same name, ``-`` read as ``_``).
COMMANDS = {"run": "run", "validate": "run", "check": "check", "report": "report",
            "history": "history", "rollback": "history", "prune": "history", "hierarchy": "hierarchy",
            "macros": "macros", "sql": "sql", "bench": "bench", "demo": "run", "reproduce": "reproduce",
            "schema": "schema", "budget": "budget", "dp": "dp"}
#: whether the command line asked for ``--json`` (so a failure prints its JSON object too)
JSON = "anonymizer.cli.json"


class Group(click.Group):
    """A command group whose commands live in modules of this package, imported when first
    asked for (``lazy``: name -> module), listed in the order given."""

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return [*self.lazy, *(name for name in self.commands if name not in self.lazy)]

    def get_command(self, ctx, name):
        if name not in self.commands and name in self.lazy:
            module = importlib.import_module(f"{__name__}.{self.lazy[name]}")
            self.add_command(getattr(module, name.replace("-", "_")), name)
        return self.commands.get(name)


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from anonymizer.dependencies import version_text
        click.echo(version_text())
        ctx.exit()


class _Commands(Group):
    """The top group: a failure of any command is one line on stderr (a bug: its traceback)
    and the exit status of :mod:`anonymizer.cli.failure`; with ``--json`` also one JSON
    object on stdout."""

    def parse_args(self, ctx, args):
        ctx.meta[JSON] = "--json" in args
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        with stoppable() as stop:
            try:
                return super().invoke(ctx)
            except click.exceptions.ClickException as exc:   # a bad option or argument: an input error
                exc.exit_code = EXIT_INPUT
                if ctx.meta.get(JSON):
                    exc.show()
                    echo_failure(EXIT_INPUT, exc.format_message())
                    ctx.exit(EXIT_INPUT)
                raise
            except (click.exceptions.Exit, click.exceptions.Abort):
                raise
            except KeyboardInterrupt:
                interrupted(ctx.meta.get(JSON, False), stop.signum)
            except Exception as exc:   # a statement a signal stopped fails as interrupted, not as itself
                if stop.signum is not None:
                    interrupted(ctx.meta.get(JSON, False), stop.signum)
                fail(exc, ctx.meta.get(JSON, False))


@click.group(cls=_Commands, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version, and the versions of DuckDB, sqlglot, jinja2, pandas, numpy and pyspark "
                   "in use, each against the range CI has tested; then exit.")
@logs.option
def main() -> None:
    """Anonymize tables inside DuckDB and publish them as verified views.

    \b
    Start here:
      anonymizer demo                      anonymize the bundled UCI Adult table
      anonymizer run release.yml --db d.duckdb
                                           run a release spec (see examples/)
      anonymizer check --db d.duckdb --table t --qi age,sex --sensitive disease
                                           measure k, l, t and risk of any table
      anonymizer report --db d.duckdb      what was published: versions, figures, timings
      anonymizer report RELEASE --db d.duckdb --html r.html
                                           one HTML page for a privacy officer: models, risk, plots
      anonymizer history RELEASE --db d.duckdb
                                           a release's versions; then rollback --to N, prune --keep N
      anonymizer hierarchy show --table adult --column age --builder intervals --widths 5,10
                                           see a column's hierarchy before releasing with it
      anonymizer macros install --db d.duckdb
                                           SQL macros for analysts (anon_k, anon_l_diversity, ...)
      anonymizer sql --db d.duckdb         a SQL prompt (or -c, -f, stdin) on the library's own DuckDB
      anonymizer bench mondrian --rows 1000000
                                           time Mondrian against a plain GROUP BY scan
      anonymizer reproduce p004 --plots plots/
                                           a paper's experiment (p000 ... p004)
      anonymizer schema --output anonymizer.schema.json
                                           the spec's JSON Schema, for editors

    Every release is checked again in SQL before it is published; a release that fails
    publishes nothing and exits with status 1. `anonymizer COMMAND --help` explains each
    command with examples.

    \b
    Exit status:
      0  done
      1  a privacy check failed (nothing was published)
      2  spec or input error: a bad spec or option, an unknown table, column,
         release or version, no database file at --db (one line on stderr names it)
      3  database or engine error: the database file cannot be opened (locked by
         another process, read-only, not a DuckDB file), I/O, out of memory, Spark failed
      4  an unexpected internal error (a bug: please report the traceback)
    130  interrupted by Ctrl-C (a release publishes all of it or nothing)
    With --json a command prints one JSON object on stdout, also when it fails:
    {"ok": false, "exit_status": N, "error": {"kind": ..., "message": ...}}.
    With --log-format json (before the command) progress, warnings and the failure
    line on stderr are JSON lines: {"time", "level", "logger", "message"}.
    """
