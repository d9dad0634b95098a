"""Export a published release to Parquet or CSV files, after it is verified and published.

A spec's ``output.export`` (or ``anonymizer run --export PATH``) copies the release's
current snapshot, the exact rows its view shows in their published order, to ``PATH``
with DuckDB's ``COPY`` (for a generalized release, its view: the rows with their class's
labels, class by class). The further tables of a release (anatomy's ``sensitive``, a class
table, ...) go next to it: ``out/adult.parquet`` and ``out/adult_sensitive.parquet``.
The tables exported are the ones the release's latest audit row names, so an unchanged
re-run exports the current snapshot again.

Every file is written under a temporary name in its folder and renamed when all of them are
written, so a failure leaves no half-written file and keeps what was there before. A path
that cannot be written is refused before the release does any work (:func:`check_writable`);
a failure while writing (a full disk) comes after publication: the release stands, and a
re-run exports it.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import duckdb

from anonymizer.engine.session import Engine
from anonymizer.errors import ExportError, TemplateError
from anonymizer.release.publish import EQ_CLASS, latest, snapshot_name
from anonymizer.engine.names import ident, in_catalog
from anonymizer.target import EXPORT_FORMATS, Export, Target


def check_writable(export: Export) -> None:
    """Refuse an export path that cannot be written, before any work: a directory, or a
    folder (or the nearest existing one, if folders are to be created) that is not a
    writable directory.

    Raises:
        ExportError: naming the path and the problem.
    """
    path = export.path
    if path.is_dir():
        raise ExportError(path, "is a directory; name the file to write")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ExportError(path, f"{folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(path, f"directory {folder} is not writable")


def part_path(path: Path, part: str) -> Path:
    """Where a release's further table ``part`` goes: ``adult.csv.gz`` -> ``adult_<part>.csv.gz``."""
    name = path.name
    ends = [end for known in EXPORT_FORMATS.values() for end in known if name.lower().endswith(end)]
    ext = max(ends, key=len) if ends else path.suffix
    return path.with_name(f"{name[:len(name) - len(ext)]}_{part}{ext}")


def published_tables(engine: Engine, target: Target, path: Path) -> list[tuple[str, Path, bool]]:
    """``(quoted relation, file, is a snapshot)`` for every table of the release's latest
    version: its main snapshot to ``path`` (its view, for a view that joins the snapshot with
    the class table: what a reader sees, written class by class) and each further view the
    audit row lists (``<view>_<part>``, snapshot ``<snapshot>__<part>``) to
    :func:`part_path`."""
    last = latest(engine, target)
    if last is None:
        raise ExportError(path, f"release {target.release} has nothing published to export")
    out, snap = target.output, snapshot_name(target.output, last)   # a rollback's names an earlier one
    figures = json.loads(last["figures"]) if last["figures"] else {}
    prefix = f"{out.schema}.{out.view}_".lower()
    parts = [v[len(prefix):] for v in figures.get("views", []) if v.lower().startswith(prefix)]
    main = ((in_catalog(out.catalog, out.schema, out.view), path, False) if "view_sql" in figures else
            (in_catalog(out.catalog, out.snapshot_schema, snap), path, True))
    return [main] + [(in_catalog(out.catalog, out.snapshot_schema, f"{snap}__{p}"), part_path(path, p), True)
                     for p in parts]


def export_release(engine: Engine, target: Target, export: Export) -> list[str]:
    """Write the release's current snapshot (and its further tables) to ``export``; return
    the paths written, main file first (see the module docstring).

    Raises:
        ExportError: a file cannot be written; none of them is left half-written.
    """
    tables = published_tables(engine, target, export.path)
    by_rowid = not engine.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]
    eq_class = ident(EQ_CLASS)
    written: list[tuple[Path, Path]] = []
    path = export.path
    try:
        for relation, path, snapshot in tables:
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:10]}.tmp")
            written.append((temp, path))
            name = path.name.lower()
            engine.run("publish/export.sql.j2", {"path": str(temp)}, relation=relation, format=export.format,
                       order=("rowid" if by_rowid else None) if snapshot else eq_class, tab=name.endswith(".tsv"),
                       compression="gzip" if name.endswith(".gz") else "zstd" if name.endswith(".zst") else "")
        for temp, path in written:
            os.replace(temp, path)
    except (OSError, duckdb.Error, TemplateError) as exc:
        for temp, _ in written:
            temp.unlink(missing_ok=True)
        problem = (exc.problem if isinstance(exc, TemplateError) else   # a duckdb.Error has no strerror
                   (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc))
        raise ExportError(path, f"cannot be written ({problem}); the release stays published, "
                                "run it again to export it") from None
    for _, path in written:
        engine.say(f"release {target.release}: exported {path}")
    return [str(path) for _, path in written]
