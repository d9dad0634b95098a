"""The ``anonymizer`` command: a thin shell over the same API Python users call.

One module per user task: ``run`` (run, validate, demo), ``check``, ``report``,
``hierarchy``, ``macros``, ``sql``, ``bench``, ``reproduce``; ``params`` declares the options they
share; ``aliases`` turns the old spellings (``lgb``, ``ir``, ``msb``, ``lattice``,
``bench --bench X``, ``hierarchy --column X``) into the new ones. A command's module is
imported when the command runs (or its help is shown), and the modules import the engine
only inside their commands, so ``anonymizer --help`` loads neither duckdb nor pandas.

Exit status:

- 0: done;
- 1: a privacy check failed (nothing was published);
- 2: bad input, or the database cannot be opened (not a DuckDB file, a missing or
  read-only directory, a file in use by another process, ...), or a file cannot be read
  or written; one line on stderr says which and why;
- 3: an unexpected internal error (a bug: the traceback is printed; please report it).

Every command that opens ``--db`` goes through :func:`~anonymizer.cli.params.open_db`:
commands that only read open the file read-only and never create it; a database file a
command creates is removed again (with its ``.wal``) if the command fails.
"""

from __future__ import annotations

import importlib
import sys
import traceback

import click

from anonymizer.errors import AnonymizerError, PrivacyCheckFailed

#: exit statuses (see the module docstring).
EXIT_PRIVACY, EXIT_INPUT, EXIT_BUG = 1, 2, 3

#: the commands ``anonymizer --help`` lists, in this order: name -> module of this package
#: defining it (as the attribute of the same name, ``-`` read as ``_``).
COMMANDS = {"run": "run", "validate": "run", "check": "check", "report": "report", "hierarchy": "hierarchy",
            "macros": "macros", "sql": "sql", "bench": "bench", "demo": "run", "reproduce": "reproduce"}
#: where a group that met an old spelling leaves the note for the end of the command
NOTE = "anonymizer.cli.note"


def fail(exc: Exception) -> None:
    """One line on stderr, and exit status 1 (privacy check) or 2 (anything else)."""
    click.echo(f"error: {exc}", err=True)
    sys.exit(EXIT_PRIVACY if isinstance(exc, PrivacyCheckFailed) else EXIT_INPUT)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _environment_error(exc: Exception) -> bool:
    """Whether ``exc`` is a DuckDB error that comes from the environment (files, locks,
    memory), not from a bug."""
    duckdb = sys.modules.get("duckdb")   # not loaded: not raised by it
    return duckdb is not None and isinstance(exc, (duckdb.IOException, duckdb.PermissionException,
                                                   duckdb.OutOfMemoryException, duckdb.InterruptException))


class Group(click.Group):
    """A command group whose commands live in modules of this package, imported when first
    asked for (``lazy``: name -> module), listed in the order given; a first argument that
    is no command of the group is offered to :func:`anonymizer.cli.aliases.rewrite`, which
    turns an old spelling into the new one (and leaves a note saying so for the end)."""

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

    def parse_args(self, ctx, args):
        if args and args[0] not in self.list_commands(ctx) and args[0] not in ctx.help_option_names:
            from anonymizer.cli.aliases import note, rewrite
            path, root = [], ctx
            while root.parent is not None:   # this group's names below ``anonymizer``
                path, root = [root.info_name, *path], root.parent
            new = rewrite([*path, *args])
            if new is not None:
                root.meta[NOTE] = note([*path, *args], new)
                args = new[len(path):]
        return super().parse_args(ctx, args)


class _Commands(Group):
    """The top group: a known failure of any command is one line on stderr and exit status
    1 (privacy check) or 2 (input, files, database), never a traceback."""

    def invoke(self, ctx):
        try:
            done = super().invoke(ctx)
            if NOTE in ctx.meta:
                click.echo(ctx.meta[NOTE], err=True)
            return done
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except AnonymizerError as exc:
            fail(exc)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(AnonymizerError(f"{where}{exc.strerror or _one_line(exc)}"))
        except UnicodeError as exc:
            fail(AnonymizerError(f"a file is not UTF-8 text: {_one_line(exc)}"))
        except Exception as exc:
            if _environment_error(exc):
                fail(AnonymizerError(f"the database: {_one_line(exc)}"))
            traceback.print_exc()
            click.echo("error: an unexpected internal error (a bug; please report it with the traceback "
                       "above)", err=True)
            sys.exit(EXIT_BUG)


@click.group(cls=_Commands, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="anonymizer")
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
      anonymizer hierarchy show --table adult --column age --builder intervals --widths 5,10
                                           see a column's hierarchy before releasing with it
      anonymizer macros install --db d.duckdb
                                           SQL macros for analysts (anon_k, anon_l_diversity, ...)
      anonymizer sql --db d.duckdb         a SQL prompt (or -c, -f, stdin) on the library's own DuckDB
      anonymizer bench mondrian --rows 1000000
                                           time Mondrian against a plain GROUP BY scan
      anonymizer reproduce p004 --plots plots/
                                           a paper's experiment (p000 ... p004)

    Every release is checked again in SQL before it is published; a release that fails
    publishes nothing and exits with status 1. `anonymizer COMMAND --help` explains each
    command with examples.

    \b
    Exit status:
      0  done
      1  a privacy check failed (nothing was published)
      2  bad input, or the database or a file cannot be opened (one line on stderr says why)
      3  an unexpected internal error (a bug: please report the traceback)
    """
