"""``anonymizer sql``: a SQL shell on the library's own DuckDB.

The DuckDB command line on PyPI (``duckdb-cli``) is DuckDB 1.5, which cannot open the files
DuckDB 2.0 (this package's engine) writes, and DuckDB's Python package has no shell. This
one runs on the ``duckdb`` module the library imports, so it opens every file a release
wrote. Statements come from ``-c``, ``-f FILE`` or stdin (a prompt on a terminal) and end
at a ``;`` outside strings and comments, as DuckDB's own tokenizer (``duckdb.tokenize``)
reads them; a query's result prints as DuckDB's box table, or with ``--json`` every result
goes into one JSON object. The anon_* macro library is loaded for the session (TEMP macros,
the file unchanged) when the database has none installed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from anonymizer.cli.params import db_option, echo_json, open_db
from anonymizer.errors import AnonymizerError

#: the dot-commands, for messages and the prompt's banner
DOT = ".tables (every table and view), .read FILE (run a file's statements), .quit"
#: ``.tables``: every table and view of the attached databases
TABLES = "SELECT database, schema, name FROM (SHOW ALL TABLES) ORDER BY ALL"
#: ``--json``: the rows of a result ``r`` as one JSON array of objects, in the result's order
ROWS_JSON = ("SELECT to_json(coalesce(list(j ORDER BY n), [])) "
             "FROM (SELECT to_json(r) AS j, row_number() OVER () AS n FROM r)")


class ShellError(AnonymizerError):
    """A statement or dot-command that failed: where it starts (``source line N``), its
    number among the statements run (``None`` for a dot-command) and DuckDB's message."""

    def __init__(self, where: str, problem: str, number: int | None = None):
        self.where, self.problem, self.number = where, problem, number
        what = f"statement {number} ({where})" if number is not None else where
        super().__init__(f"{what}: {problem}")


class Quit(Exception):
    """``.quit``: stop reading."""


def split(text: str) -> tuple[list[tuple[int, str]], str, int]:
    """The complete statements of ``text`` and what is left after the last ``;``.

    A statement ends at a ``;`` that DuckDB's tokenizer reads as an operator (not inside a
    string, a quoted name or a comment). Returns ``(statements, rest, rest_start)``: each
    statement as (character offset of its first token, its text from that token on, without
    the comments before it); statements of comments only are left out; ``rest_start`` is
    the character offset where ``rest`` begins.

    Example:
        >>> split("SELECT ';'; -- a; b\\nSELECT 2; SELECT")
        ([(0, "SELECT ';'"), (20, 'SELECT 2')], ' SELECT', 29)
    """
    import duckdb
    data = text.encode("utf-8")          # the tokenizer's offsets count bytes
    statements, begin, first = [], 0, None
    for offset, kind in duckdb.tokenize(text):
        if kind == duckdb.token_type.operator and data[offset:offset + 1] == b";":
            if first is not None:
                statements.append((len(data[:first].decode()), data[first:offset].decode()))
            begin, first = offset + 1, None
        elif kind != duckdb.token_type.comment and first is None:
            first = offset
    return statements, data[begin:].decode(), len(data[:begin].decode())


def code_start(text: str) -> int | None:
    """The character offset of ``text``'s first token that is no comment (``None``: there is none)."""
    import duckdb
    data = text.encode("utf-8")
    first = next((offset for offset, kind in duckdb.tokenize(text) if kind != duckdb.token_type.comment), None)
    return None if first is None else len(data[:first].decode())


class Shell:
    """Runs statements on ``con``: prints each query's result (box table), or keeps every
    statement's result for one JSON object (``as_json``); ``keep_going`` (the prompt) prints
    a failure and reads on, otherwise the first failure stops (:class:`ShellError`)."""

    def __init__(self, con, as_json: bool, keep_going: bool):
        self.con, self.as_json, self.keep_going = con, as_json, keep_going
        self.done: list[dict] = []    # with --json: each statement run
        self.number = 0
        self.pending = False           # a statement begun and not yet ended by `;` (the prompt shows it)

    def feed(self, lines, source: str) -> None:
        """Run the statements of ``lines`` (named ``source`` in messages); a line starting
        with ``.`` between statements is a dot-command; a last statement may lack its ``;``."""
        buffer, start = "", 1          # the statement being read, and its first line's number

        def at(offset: int) -> str:    # where the buffer's character ``offset`` is
            return f"{source} line {start + buffer.count(chr(10), 0, offset)}"

        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith(".") and code_start(buffer) is None:
                buffer, self.pending = "", False
                self.guarded(self.dot, line.strip(), f"{source} line {number}")
                continue
            if not buffer:
                start = number
            buffer += line if line.endswith("\n") else line + "\n"
            statements, rest, rest_start = split(buffer)
            for offset, text in statements:
                self.guarded(self.statement, text, at(offset))
            if statements:
                start += buffer.count("\n", 0, rest_start)
                buffer = rest if rest.strip() else ""
            self.pending = code_start(buffer) is not None
        if (offset := code_start(buffer)) is not None:      # the last statement, without its `;`
            self.guarded(self.statement, buffer[offset:], at(offset))
        self.pending = False

    def guarded(self, step, text: str, where: str) -> None:
        """``step(text, where)``; at the prompt a failure is printed and reading goes on."""
        try:
            step(text, where)
        except ShellError as exc:
            if not self.keep_going:
                raise
            click.echo(f"error: {exc}", err=True)

    def statement(self, text: str, where: str) -> None:
        """Run one statement: a query's result is printed (or kept for ``--json``)."""
        import duckdb
        self.number += 1
        try:
            parsed = self.con.extract_statements(text)
            result = self.con.sql(text)
            if self.as_json:
                rows = None if result is None else json.loads(result.query("r", ROWS_JSON).fetchall()[0][0])
                self.done.append({"statement": self.number, "at": where, "sql": text.strip(),
                                  "columns": None if result is None else result.columns, "rows": rows})
            elif result is not None and parsed[-1].expected_result_type[0] == duckdb.ExpectedResultType.QUERY_RESULT:
                click.echo(str(result), nl=False)
        except duckdb.Error as exc:
            raise ShellError(where, str(exc).strip(), self.number) from None

    def dot(self, line: str, where: str) -> None:
        """``.tables``, ``.read FILE``, ``.quit`` / ``.exit``."""
        command, _, argument = line.partition(" ")
        if command in (".quit", ".exit"):
            raise Quit
        if command == ".tables" and not argument.strip():
            self.statement(TABLES, where)
        elif command == ".read" and argument.strip():
            path = Path(argument.strip().strip("'\""))
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeError) as exc:
                raise ShellError(where, f".read {path}: {getattr(exc, 'strerror', None) or exc}") from None
            self.feed(text.splitlines(), str(path))
        else:
            raise ShellError(where, f"unknown command {line!r}; this shell knows {DOT}")


def prompt_lines(shell: Shell):
    """Lines typed at the prompt (with readline's line editing and history), until end of
    input (Ctrl-D) or Ctrl-C."""
    from anonymizer.cli.interrupts import at_a_prompt
    import readline  # noqa: F401  (imported for its side effect: input() edits lines and keeps history)
    while True:
        try:
            with at_a_prompt():   # a Ctrl-C while a statement runs stops the statement (cli/interrupts.py)
                line = input("   ...> " if shell.pending else "anon D> ")
            yield line
        except (EOFError, KeyboardInterrupt):
            click.echo("", err=True)
            return


@click.command()
@db_option(help="DuckDB database file; it must exist (:memory: for an empty database in memory).")
@click.option("-c", "--command", "commands", metavar="SQL", multiple=True,
              help="Run these statements and stop (repeat for more).")
@click.option("-f", "--file", "file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Run the statements of FILE and stop.")
@click.option("--read-only", is_flag=True,
              help="Open the database read-only: nothing changes it, and other processes may read it too.")
@click.option("--macros/--no-macros", default=True, show_default=True,
              help="Load the anon_* macro library for the session if the database has none installed "
                   "(TEMP macros: the file is not changed).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: each statement with its columns and rows (a statement that writes: "
                   "DuckDB's Count of rows), and the error that stopped them (null if none).")
def sql(db: str, commands: tuple[str, ...], file: str | None, read_only: bool, macros: bool, as_json: bool) -> None:
    """Run SQL on a database with the library's own DuckDB (it opens what releases wrote).

    Statements come from -c, -f FILE or stdin, and end with `;`. On a terminal, stdin is a
    prompt (Ctrl-D ends it). Dot-commands: .tables, .read FILE, .quit. Each query's result
    prints as a table. The anon_* macros (`anonymizer macros show`) are there: the ones
    installed in the database, or else the library's, loaded for this session only.

    The first failing statement stops the run: its number, line and DuckDB's message go to
    stderr, and the exit status is 2 (at the prompt, the error is printed and you go on).
    The database is opened read-write, as the DuckDB CLI does (--read-only to only read).

    \b
    Examples:
      anonymizer sql --db anonymizer.duckdb
      anonymizer sql --db anonymizer.duckdb -c "SELECT * FROM anon_k('published.adult', ['age', 'sex'])"
      anonymizer sql --db anonymizer.duckdb --read-only < queries.sql
      anonymizer sql --db anonymizer.duckdb -f queries.sql --json
    """
    if commands and file:
        raise click.UsageError("give either -c or -f, not both")
    interactive = not commands and file is None and sys.stdin.isatty()
    with open_db(db, read_only=read_only, must_exist=True) as con:
        library = load_macros(con, macros)
        shell = Shell(con, as_json, keep_going=interactive)
        if interactive:
            import duckdb
            click.echo(f"anonymizer sql on {db} (DuckDB {duckdb.__version__}); anon_* macros {library}. "
                       f"Statements end with ';'. {DOT}.", err=True)
        try:
            if commands:
                for text in commands:
                    shell.feed(text.splitlines(), "-c")
            elif file is not None:
                shell.feed(Path(file).read_text(encoding="utf-8").splitlines(), file)
            else:
                shell.feed(prompt_lines(shell) if interactive else sys.stdin, "<stdin>")
        except Quit:
            pass
        except ShellError as exc:
            if not as_json:
                raise
            finish(shell, db, library, exc)
        if as_json:
            finish(shell, db, library, None)


def load_macros(con, wanted: bool) -> str:
    """Make the anon_* macros available on ``con``; say where they come from."""
    from anonymizer.macros import install, installed
    if installed(con):
        return "installed in the database"
    if not wanted:
        return "not loaded (--no-macros)"
    install(con, temporary=True)
    return "loaded for this session"


def finish(shell: Shell, db: str, library: str, error: ShellError | None) -> None:
    """``--json``: print the one object (``"ok": false`` with the failure's exit status and
    error, as every command's failure object, when a statement failed), and exit with status 2
    after a failure."""
    done = {"database": db, "macros": library, "statements": shell.done}
    if error is None:
        echo_json({**done, "error": None})
        return
    from anonymizer.cli import EXIT_INPUT
    from anonymizer.cli.failure import echo_failure
    echo_failure(EXIT_INPUT, error.problem, {"statement": error.number, "at": error.where}, **done)
    sys.exit(EXIT_INPUT)
