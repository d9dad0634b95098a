"""How a command fails: which exit status an error gives, the line on stderr, and with
``--json`` the one JSON object on stdout.

Every exception a command lets through is sorted by :func:`known` into the package's
error classes (:mod:`anonymizer.errors`): a DuckDB error from the environment (I/O,
permissions, memory, a lost connection), a Spark or Py4J failure, a full disk become a
:class:`~anonymizer.errors.DatabaseError`, also when the engine wrapped them in a
:class:`~anonymizer.errors.TemplateError`; any other TemplateError (our SQL failed on input
already checked) and anything that is no :class:`~anonymizer.errors.AnonymizerError` is a bug. :func:`status` gives the exit
status (the table in :mod:`anonymizer.cli`) from the error's ``kind``. Neither duckdb nor pyspark is imported here:
an error of a library that is not loaded was not raised by it.
"""

from __future__ import annotations

import errno
import json
import sys
import traceback
from typing import NoReturn

import click

from anonymizer.cli import logs
from anonymizer.errors import AnonymizerError, DatabaseError, SpecError, TemplateError

#: exit statuses (see :mod:`anonymizer.cli`).
EXIT_OK, EXIT_PRIVACY, EXIT_INPUT, EXIT_DATABASE, EXIT_BUG = 0, 1, 2, 3, 4
#: stopped by Ctrl-C (SIGINT): 128 + 2, as shells report it; by SIGTERM: 128 + 15
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
#: exit status -> the ``error.kind`` of the ``--json`` object
KINDS = {EXIT_PRIVACY: "privacy", EXIT_INPUT: "input", EXIT_DATABASE: "database", EXIT_BUG: "internal",
         EXIT_INTERRUPTED: "interrupted", EXIT_TERMINATED: "interrupted"}
STATUSES = {kind: code for code, kind in KINDS.items()}
#: the DuckDB exceptions that come from the environment (files, locks, memory), not from a bug
_DUCKDB_ENVIRONMENT = ("IOException", "PermissionException", "OutOfMemoryException", "InterruptException",
                       "ConnectionException", "FatalException")
#: OSError numbers that say the machine, not the input, is at fault
_OS_ENVIRONMENT = {errno.ENOSPC, errno.EIO, errno.EDQUOT}
BUG = "an unexpected internal error (a bug; please report it with the traceback above)"


def _chain(exc: BaseException):
    """``exc`` and the exceptions it was raised from or while handling (not those it was
    raised ``from None`` over: its raiser judged them)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _environment(exc: BaseException) -> DatabaseError | None:
    """The :class:`DatabaseError` an engine's environment failure ``exc`` is, or ``None``."""
    duckdb = sys.modules.get("duckdb")
    if duckdb is not None and isinstance(exc, tuple(getattr(duckdb, n) for n in _DUCKDB_ENVIRONMENT)):
        return DatabaseError("the database", _one_line(exc))
    if duckdb is not None and isinstance(exc, duckdb.TransactionException) and "Failed to commit" in str(exc):
        return DatabaseError("the database", _one_line(exc))   # a write at COMMIT: a full disk, a lost file
    protocol = sys.modules.get("py4j.protocol")
    if protocol is not None and isinstance(exc, protocol.Py4JError):
        return DatabaseError("Spark", _one_line(exc))
    spark = sys.modules.get("pyspark.errors")
    if spark is not None and isinstance(exc, spark.PySparkException) and not isinstance(exc, spark.AnalysisException):
        return DatabaseError("Spark", _one_line(exc))
    if isinstance(exc, OSError) and exc.errno in _OS_ENVIRONMENT:
        return DatabaseError(exc.filename or "a file", exc.strerror or _one_line(exc))
    return None


def known(exc: BaseException) -> AnonymizerError | None:
    """``exc`` as one of the package's errors, or ``None`` for a bug."""
    if isinstance(exc, DatabaseError):
        return exc
    found = next((e for e in map(_environment, _chain(exc)) if e is not None), None)
    if found is not None:
        return found
    if isinstance(exc, TemplateError):   # our SQL failed where the input was checked already: a bug
        return None
    if isinstance(exc, AnonymizerError):
        return exc
    if isinstance(exc, OSError):
        return AnonymizerError(f"{exc.filename}: {exc.strerror or _one_line(exc)}" if exc.filename
                               else exc.strerror or _one_line(exc))
    if isinstance(exc, UnicodeError):
        return AnonymizerError(f"a file is not UTF-8 text: {_one_line(exc)}")
    return None


def status(err: AnonymizerError | None) -> int:
    """The exit status of a known error: its :attr:`~anonymizer.errors.AnonymizerError.kind`'s
    (``None``: a bug)."""
    return EXIT_BUG if err is None else STATUSES[err.kind]


def fields(err: BaseException) -> dict:
    """The public fields an error was built from (``model``, ``achieved``, ``field``, ...); a
    spec's several errors as ``errors``, a list of their fields."""
    found = {k: v for k, v in vars(err).items() if not k.startswith("_") and v is not ...}
    if isinstance(err, SpecError) and len(err.errors) > 1:
        found["errors"] = [fields(e) for e in err.errors]
    return found


def echo_failure(code: int, message: str, details: dict | None = None, **done) -> None:
    """The one ``--json`` object of a failed command, on stdout; ``done``: what the command did
    before it failed (``anonymizer sql``: the statements that ran), beside the error."""
    error = {"kind": KINDS[code], "message": message, **(details or {})}
    click.echo(json.dumps({"ok": False, "exit_status": code, **done, "error": error}, default=str))


def fail(exc: BaseException, as_json: bool = False) -> NoReturn:
    """End the command for ``exc``: one line on stderr (a bug: its traceback first), with
    ``as_json`` the failure object on stdout, and the exit status of :func:`status`."""
    err = known(exc)
    code = status(err)
    if err is None:
        traceback.print_exception(exc)
        message, details = BUG, {"type": type(exc).__name__, "detail": _one_line(exc)}
    else:
        message, details = str(err), fields(err)
    if code != EXIT_PRIVACY:
        message, details = _untested(message, details)
    logs.problem(message)
    if as_json:
        echo_failure(code, message, details)
    sys.exit(code)


def _untested(message: str, details: dict) -> tuple[str, dict]:
    """``message`` with a note naming each runtime dependency whose version is outside the
    range CI has tested (forced there by hand: pip keeps an install inside), the likely cause
    of a parser or engine error (``details["untested"]`` with ``--json``)."""
    from anonymizer.dependencies import outside as untested
    outside = untested()
    if not outside:
        return message, details
    names = "; ".join(f"{d.name} {d.installed} is outside the tested range {d.tested}" for d in outside)
    fix = " ".join(f"'{d.name}{d.tested}'" for d in outside)
    return (f"{message} (note: {names}: pip install {fix})",
            {**details, "untested": {d.name: {"installed": d.installed, "tested": d.tested} for d in outside}})


def interrupted(as_json: bool = False, signum: int | None = None) -> NoReturn:
    """End a command stopped by Ctrl-C (or ``signum``, SIGTERM): one line on stderr (with
    ``as_json`` the failure object on stdout) and status 128 + the signal's number, 130 for
    Ctrl-C, as shells report it. A release publishes its snapshots, views and audit row in one
    transaction, so an interrupted run has published all of it or nothing."""
    code = EXIT_INTERRUPTED if signum is None else 128 + signum
    message = (f"interrupted{' (SIGTERM)' if code == EXIT_TERMINATED else ''}: the command stopped before it "
               "finished (a release publishes in one transaction: all of it or nothing)")
    logs.problem(message)
    if as_json:
        echo_failure(code, message)
    sys.exit(code)
