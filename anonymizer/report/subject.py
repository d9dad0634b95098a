"""What a report is about: a release version's spec, the relation its reader sees, and its
source as it is now.

The spec comes from the version's audit row (``spec_text``, recorded since the audit trail
keeps it), else from the file given with ``--spec``. The released rows are read through a
temporary view (``report/released_view.sql.j2``, :data:`~anonymizer.report.gather.VIEW`, :func:`~anonymizer.report.gather.view_parts`):
the version's snapshot as it is, or, for a release whose view joins its rows with its class
table, the definition DuckDB stored for that version's view (recorded in the audit row's
``figures.view_sql``, and checked to read nothing but that version's snapshots). The source
is the table the spec names, compared with the version's ``source_fingerprint``
(:func:`anonymizer.source_profile.fingerprint`) to say whether it changed since.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from anonymizer.engine.names import ident, in_catalog, table
from anonymizer.engine.session import Engine
from anonymizer.errors import SpecError
from anonymizer.plan import source_relation, spec_fingerprint
from anonymizer.source_profile import fingerprint
from anonymizer.release.publish import Join
from anonymizer.report.gather import view_parts
from anonymizer.spec.parse import load_spec
from anonymizer.spec.types import ReleaseSpec
from anonymizer.spec.yaml_text import read_yaml


def release_spec(row: dict[str, Any], given: str | None) -> tuple[ReleaseSpec, str, list[str]]:
    """The spec of the audit ``row``'s version, its text, and notes for the page.

    ``given`` (``--spec``) wins; without it the row's ``spec_text``, read for its roles and
    source only (its hierarchy files are left out: they may not be where the spec was).

    Raises:
        SpecError: neither is there, or the given spec is another release's.
    """
    notes: list[str] = []
    if given is not None:
        spec, text = load_spec(given), Path(given).read_text(encoding="utf-8")
        if spec.release != row["release"]:
            raise SpecError("--spec", f"is the spec of release {spec.release!r}, not {row['release']!r}", given)
        if row.get("spec_hash") and spec_fingerprint(spec) != row["spec_hash"]:
            notes.append(f"The spec given ({given}) differs from the one version {row.get('version')} was published "
                         f"with (spec hash {spec_fingerprint(spec)}, published {row['spec_hash']}).")
        return spec, text, notes
    text = row.get("spec_text")
    if not text:
        raise SpecError("--spec", f"is needed: the audit row of release {row['release']!r} version "
                                  f"{row.get('version')} does not hold its spec text (it was published before the "
                                  "audit recorded it); give the release's spec file")
    raw = read_yaml(text)
    columns = {name: {k: v for k, v in col.items() if k != "hierarchy" or _readable(v)} if isinstance(col, dict)
               else col for name, col in (raw.get("columns") or {}).items()}
    return load_spec({**raw, "columns": columns}), text, notes


def source_state(engine: Engine, spec: ReleaseSpec, row: dict[str, Any],
                 catalog: str | None = None) -> tuple[str | None, str]:
    """The quoted source table (``None`` if it is not in the database) and a sentence on it.
    ``catalog``: the attached database that holds it (``--source-db``), when the release was
    written apart from its source."""
    source = source_relation(spec) if catalog is None else in_catalog(catalog, spec.source.schema or "main",
                                                                      spec.source.table)
    shown = ".".join(filter(None, [spec.source.catalog, spec.source.schema, spec.source.table]))
    try:
        engine.columns(source, shown)
    except Exception:   # any DataError or catalog error: the source is not readable here
        where = "the --source-db database" if catalog is not None else "this database"
        return None, (f"The source table {shown} is not in {where}: the distributions before anonymization are not "
                      "shown" + ("." if catalog is not None else " (--source-db names the database that holds it)."))
    _, now = fingerprint(engine, spec.columns, source)
    if now == row.get("source_fingerprint"):
        return source, f"The source table {shown} is unchanged since this version was published."
    return source, (f"The source table {shown} has changed since this version was published (fingerprint "
                    f"{row.get('source_fingerprint')}, now {now}): the distributions before anonymization are "
                    "today's.")


def published_view(engine: Engine, row: dict[str, Any]) -> str:
    """Create the temporary view over what a reader of the audit ``row``'s version sees;
    return it quoted."""
    schema, snapshot = row["snapshot"].split(".", 1)
    recorded = (row.get("figures") or {}).get("view_sql")
    query = _version_query(recorded, schema, snapshot) if recorded else None
    view = table(*view_parts(engine))
    engine.run("report/released_view.sql.j2", view=view, query=query, join=None, table=table(schema, snapshot))
    return view


def candidate_view(engine: Engine, candidate: str, parts: tuple, join: Join | None) -> str:
    """Create the temporary view over a dry run's verified candidate (``candidate``, quoted,
    with its ``parts`` and ``join`` as :func:`anonymizer.release.publish.publish` takes
    them); return it quoted."""
    joined = None
    if join is not None:
        part = next(cand for name, cand, _ in parts if name == join.part)
        joined = {"table": candidate, "part": part, "key": ident(join.key),
                  "columns": [("c" if side == join.part else "r", ident(c)) for side, c in join.columns]}
    view = table(*view_parts(engine))
    engine.run("report/released_view.sql.j2", view=view, query=None, join=joined, table=candidate)
    return view


def _version_query(view_sql: str, schema: str, snapshot: str) -> str:
    """The query of a recorded view definition, if it reads only ``schema.snapshot`` and its
    parts (``snapshot__<part>``)."""
    try:
        parsed = sqlglot.parse_one(view_sql, read="duckdb")
    except sqlglot.errors.SqlglotError:
        parsed = None
    query = parsed.expression if isinstance(parsed, exp.Create) else parsed
    tables = list(query.find_all(exp.Table)) if isinstance(query, exp.Query) else []
    own = all(t.db.casefold() == schema.casefold() and (t.name == snapshot or t.name.startswith(f"{snapshot}__"))
              for t in tables)
    if not tables or not own:
        raise SpecError("figures.view_sql", f"of {schema}.{snapshot} does not read that version's snapshots only; "
                                            "the report cannot show it", view_sql)
    return query.sql(dialect="duckdb", identify=True)


def _readable(hierarchy: Any) -> bool:
    """Whether a column's hierarchy is kept when the report reads a spec back from the audit: a
    hierarchy file found from here (SafePub refuses a quasi-identifier without one); any other
    hierarchy is left out, as the report draws no hierarchy."""
    return isinstance(hierarchy, dict) and isinstance(hierarchy.get("csv"), str) and Path(hierarchy["csv"]).is_file()

