"""Opening a DuckDB database file, with one clear message for every way it can fail.

:func:`open_database` is the one door through which the command line opens ``--db``. A
file that is not a DuckDB database, a missing or read-only directory, a read-only file, a
database another process holds, a file written by another DuckDB version: each becomes a
:class:`DatabaseOpenError` (a :class:`~anonymizer.errors.DatabaseError`, exit status 3 on
the command line) naming the file and the problem; a path that names no database file
(nothing there, a directory) is a :class:`NoSuchDatabase`, an input error (exit status 2). A database file the call creates is removed again (with its
``.wal`` journal) when the work inside fails, so a failed command leaves no empty
database behind. :func:`drop_stale_work` clears a database file of the work schemas that
killed runs left in it.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import duckdb

from anonymizer.errors import DatabaseError
from anonymizer.engine.names import ident

if TYPE_CHECKING:
    from anonymizer.engine.session import Engine

MEMORY = ":memory:"
#: the storage format of every database file this package creates: DuckDB 1.4's, which every
#: DuckDB from 1.4 on reads, the ``duckdb`` command line on PyPI among them (``duckdb-cli``, 1.4
#: and 1.5, no 2.0 yet; the dev extra installs it). DuckDB 2.0 writes its own newest format by
#: default, which DuckDB 1.x cannot open. A file that exists keeps the format it was written in.
STORAGE_VERSION = "v1.4.0"


class DatabaseOpenError(DatabaseError):
    """The database file cannot be opened (or created) as asked."""

    def __init__(self, path: str | Path, problem: str, label: str = "database"):
        super().__init__(f"{label} {path}", problem)
        self.path = str(path)


class NoSuchDatabase(DatabaseOpenError):
    """The path names no database file (nothing there, or a directory): an input error."""

    kind = "input"


@contextmanager
def open_database(path: str | Path | None, *, read_only: bool = False, must_exist: bool = False,
                  label: str = "database") -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the database file ``path`` (in memory for ``None`` or ``:memory:``),
    closed on exit.

    ``read_only``: open without writing (and never create the file; implies ``must_exist``).
    ``must_exist``: refuse a file that does not exist instead of creating it. If this call
    created the file and the block raises, the file and its ``.wal`` are removed.
    ``label`` starts the error message (the command line passes ``--db``).

    Raises:
        DatabaseOpenError: the file cannot be opened; the message says why and what to do.
    """
    if path is None or str(path) == MEMORY:
        with duckdb.connect(MEMORY) as con:
            _quiet(con)
            yield con
        return
    p = Path(path)
    existed = _exists(p)
    try:
        _precheck(p, read_only, must_exist or read_only, existed)
        try:
            con = (duckdb.connect(str(p), read_only=read_only) if existed
                   else duckdb.connect(str(p), config={"storage_compatibility_version": STORAGE_VERSION}))
        except duckdb.Error as exc:
            if not existed:
                _remove_created(p)
            raise DatabaseOpenError(p, explain(exc, p, read_only)) from None
    except DatabaseOpenError as exc:
        raise type(exc)(path, exc.problem, label) from None
    _quiet(con)
    try:
        yield con
    except BaseException:
        _close(con)
        if not existed:
            _remove_created(p)
        raise
    con.close()


def _quiet(con: duckdb.DuckDBPyConnection) -> None:
    """No DuckDB progress bar on a connection the command line opened: DuckDB prints it to
    standard output, piped or not, in the middle of ``--json`` output; the command's own
    progress (on standard error) reports long statements instead."""
    con.execute("SET enable_progress_bar = false")


@contextmanager
def attach_database(con: duckdb.DuckDBPyConnection, path: str | Path, *,
                    label: str = "output.database") -> Iterator[str]:
    """Attach the DuckDB file ``path`` to ``con`` for writing (created if missing) and yield
    its alias; detach it on exit. A release publishes there when its spec names
    ``output.database``, so raw and published data live apart.

    If ``con`` already holds the file (attached by the user, or open as its own database),
    its alias is yielded and it stays attached. A file this call created is removed again
    (with its ``.wal``) if the block raises. Attaching works on a read-only connection too.

    Raises:
        DatabaseOpenError: the file cannot be attached for writing (``label`` starts the
            message): not a DuckDB file, a missing or read-only directory, in use by
            another process, attached read-only on ``con``, ...
    """
    p = Path(path)
    held = attached_as(con, p)
    if held is not None:
        alias, read_only = held
        if read_only:
            raise DatabaseOpenError(p, f"is attached read-only on this connection (as {alias}); a release "
                                       "writes there: attach it with READ_WRITE or detach it", label)
        yield alias
        return
    existed = _exists(p)
    try:
        _precheck(p, False, False, existed)
    except DatabaseOpenError as exc:
        raise type(exc)(path, exc.problem, label) from None
    alias = f"_anon_output_{uuid.uuid4().hex[:10]}"
    try:
        storage = "" if existed else f", STORAGE_VERSION '{STORAGE_VERSION}'"   # a constant of ours
        con.execute(f"ATTACH $path AS {ident(alias)} (READ_WRITE{storage})", {"path": str(p)})
    except duckdb.Error as exc:
        if not existed:
            _remove_created(p)
        raise DatabaseOpenError(path, explain(exc, p), label) from None
    try:
        yield alias
    except BaseException:
        _detach(con, alias)
        if not existed:
            _remove_created(p)
        raise
    _detach(con, alias)


def attached_as(con: duckdb.DuckDBPyConnection, p: Path) -> tuple[str, bool] | None:
    """``(alias, read_only)`` of the database file ``p`` if ``con`` holds it, else ``None``."""
    try:
        target = p.resolve()
    except OSError:
        return None
    for alias, where, read_only in con.execute(
            "SELECT database_name, path, readonly FROM duckdb_databases() WHERE path IS NOT NULL").fetchall():
        try:
            if Path(where).resolve() == target:
                return alias, bool(read_only)
        except OSError:
            continue
    return None


def _detach(con: duckdb.DuckDBPyConnection, alias: str) -> None:
    try:
        con.execute(f"DETACH DATABASE IF EXISTS {ident(alias)}")
    except duckdb.Error:
        pass


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except OSError:
        return False


def _precheck(p: Path, read_only: bool, must_exist: bool, existed: bool) -> None:
    if p.is_dir():
        raise NoSuchDatabase(p, "is a directory, not a database file")
    parent = p.parent if str(p.parent) else Path(".")
    if not existed and not parent.is_dir():
        raise NoSuchDatabase(p, f"directory {parent} does not exist" if not must_exist
                             else "no such database file (and its directory does not exist)")
    if not existed and must_exist:
        raise NoSuchDatabase(p, "no such database file")
    if read_only:
        if not os.access(p, os.R_OK):
            raise DatabaseOpenError(p, "cannot be read (permission denied)")
        return
    if existed and not os.access(p, os.W_OK):
        raise DatabaseOpenError(p, "the file is read-only: this command writes to the database; "
                                   "make it writable or use a copy")
    if not os.access(parent, os.W_OK | os.X_OK):
        what = "create the database" if not existed else "write its .wal journal"
        raise DatabaseOpenError(p, f"directory {parent} is read-only: DuckDB needs to {what} there; "
                                   "use a writable directory")


def explain(exc: Exception, p: Path | str, read_only: bool = False) -> str:
    """One sentence for a DuckDB error met while opening ``p``."""
    text = str(exc).strip()
    text = re.sub(r"^[A-Za-z ]*Error: ", "", text)
    first = text.splitlines()[0] if text else type(exc).__name__
    low = text.lower()
    if "not a valid duckdb database" in low:
        return "is not a DuckDB database file"
    if "lock" in low and ("conflicting lock" in low or "could not set lock" in low):
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", text)
        who = f" (PID {holder.group(2)}, {Path(holder.group(1)).name})" if holder else ""
        return (f"is in use by another process{who}; DuckDB lets one process at a time open a file it "
                "writes: retry when that process ends")
    if "version" in low and ("storage" in low or "version number" in low or "created with" in low
                             or "serialized" in low):
        age = re.search(r"created with an? (?:\w+ )*?(newer|older)", low)
        which = {"newer": "a newer", "older": "an older"}[age.group(1)] if age else "another"
        writer = written_by(p)
        by = f"DuckDB {writer}" if writer else f"{which} version of DuckDB"
        with_it = f"DuckDB {writer} (pip install 'duckdb=={writer}')" if writer else "the DuckDB version that wrote it"
        return (f"was written by {by}, which this DuckDB ({duckdb.__version__}) cannot read "
                f"({first.rstrip('.')}); open it with {with_it}, or move the data with "
                "EXPORT DATABASE there and IMPORT DATABASE here")
    if "permission denied" in low or "read-only file system" in low:
        return ("cannot be read (permission denied)" if read_only
                else "cannot be written (permission denied): the file or its directory is read-only")
    if "no such file or directory" in low:
        return f"directory {Path(p).parent} does not exist"
    if "corrupt" in low or "checksum" in low:
        return f"is damaged or not a DuckDB database file ({first})"
    return f"cannot be opened: {first}"


def written_by(p: Path | str) -> str | None:
    """The version of DuckDB that wrote the database file ``p`` (``2.0.1``), read from its
    header (DuckDB 1.2 and later record it there), or ``None`` if it cannot be read."""
    try:
        with open(p, "rb") as f:
            head = f.read(_HEADER_END)
    except OSError:
        return None
    if len(head) < _HEADER_END or head[8:12] != b"DUCK":
        return None
    desc = head[_HEADER_DESC:_HEADER_END].split(b"\0", 1)[0].decode("ascii", "replace")
    found = re.fullmatch(r"v?(\d+\.\d+\.\d+\S*)", desc)
    return found.group(1) if found else None


#: where the main header of a DuckDB file holds the library version that wrote it: after the
#: checksum (8 bytes), the magic ``DUCK`` (4), the storage version (8) and four flags (32)
_HEADER_DESC, _HEADER_END = 52, 84


def _close(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.close()
    except duckdb.Error:
        pass


def _remove_created(p: Path) -> None:
    """Remove a database file this process created, with its journal and temporary folder."""
    for extra in (p, Path(f"{p}.wal")):
        try:
            extra.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass
    tmp = Path(f"{p}.tmp")
    if tmp.is_dir():
        shutil.rmtree(tmp, ignore_errors=True)


def drop_stale_work(engine: Engine) -> list[str]:
    """Drop the ``_anon_work_<id>`` schemas of the connected database file: work state (coded
    QIs, sensitive values, row ids) that killed runs of earlier versions left behind. No run
    of this version creates such a schema, so none is in use. A database opened read-only
    (the source of a release publishing into ``output.database``) is left as it is. Returns
    the dropped names."""
    if engine.execute("SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()"
                      ).fetchone()[0]:
        return []
    stale = [r[0] for r in engine.execute(
        "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database() "
        "AND regexp_full_match(schema_name, '_anon_work_[0-9a-f]{10}')").fetchall()]
    for name in stale:
        engine.execute(f"DROP SCHEMA {ident(name)} CASCADE")
        engine.say(f"dropped {name}, the work schema a killed run left behind")
    return stale
