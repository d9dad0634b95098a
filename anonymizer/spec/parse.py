"""The release spec: what to anonymize, how, and where to publish it.

A spec is a YAML file or a dict, validated completely before the first query: against its
JSON Schema first (:mod:`.validate`: every error at once, with "did you mean" for a misspelled
key or value), then by the checks below that a schema cannot state. Errors name the field
(``columns.age.role``) and the value. A spec looks like::

    release: adult_k5
    source: {table: adult}            # or {path: adult.csv, table: adult, delimiter: ';'}
    columns:
      age: {role: quasi, type: numeric, hierarchy: {intervals: [5, 10, 20]}}
      education: {role: quasi, hierarchy: {csv: hierarchies/education.csv}}
      sex: {role: quasi, order: [Female, Male]}
      occupation: {role: sensitive}
      fnlwgt: {role: identifier}      # dropped
      salary: {role: insensitive}     # passed through
      zip: {role: quasi, flag: zip_private}   # per-cell sensitivity (LGB, paper 000)
    models:
      - {type: k-anonymity, k: 5}
      - {type: distinct-l-diversity, l: 2, sensitive: occupation}
    algorithm: {name: mondrian}       # or {name: full-domain, levels: {age: 1}}
    suppression_limit: 0.0            # fraction of rows that may be suppressed
    nulls: error                      # or suppress: rows with a NULL QI are suppressed
    output: {view: adult, schema: published}
    history: {guarantee: invariant, person: pid}   # or independent; see anonymizer.versions.combination
    # or, publishing into another DuckDB file (the source's database is then only read)
    # and copying the verified snapshot to Parquet (or CSV) after publication:
    # output: {view: adult, database: published.duckdb, export: {path: out/adult.parquet}}

Every source column needs a role, unless ``default_role`` says what unlisted columns are.

Resources (optional): ``engine: {memory_limit: 8GB, threads: 2, temp_directory: spill/}``
bounds DuckDB's memory for the run (beyond it DuckDB spills to ``temp_directory``; relative
to the spec's folder; ``anonymizer run --memory-limit`` wins over it) and sets its threads.
``engine: {name: spark, master: "local[2]", conf: {...}, warehouse: DIR}`` runs the release
on Apache Spark instead (:mod:`anonymizer.engine.choice`). They change how a release runs,
never what it publishes: they are not part of its hash.

Personalized privacy (paper 000, LGB): a quasi column may name a ``flag``, a BOOLEAN column
of the source that is TRUE in the rows whose value on it is sensitive for that person. The
flag column needs no role of its own and is never published. An attribute is then a QI
attribute (no flag set), semi-sensitive (some) or sensitive (all), Definitions 1 to 3; a
column with role ``sensitive`` is sensitive in every row. Algorithms ``lgb-mdp`` and
``lgb-ncp`` read the flags, with models ``k-anonymity`` (local equivalence groups) and one
bucket principle per attribute holding sensitive values: ``l-unique`` (Corollary 2) or
``t-closeness`` (EMD, as the paper uses for sex).

Individuals with several records (paper 004): the column naming the person takes role
``individual`` (it is renumbered to Id_num and never published; every record of a person
must carry the same QI values). Algorithms ``danonyir`` and ``geneir`` (options ``seed``,
``renumber: random | appearance``) take one sensitive column and exactly one model among
``ir-k-anonymity``, ``ir-kl-anonymity``, ``ir-alpha-beta-anonymity`` (Definition 2.3),
``eir-l-diversity`` (Definition 3.3) and ``eir-alpha-beta-anonymity`` (Definition 3.4). A
numeric QI may declare ``domain: [L, U]`` when its domain is wider than the values present
(the losses of Eqs. 3 and 11 divide by U - L).

Differential privacy (SafePub, :mod:`anonymizer.families.generalized.lattice.safepub`):
``algorithm: {name: safepub, epsilon: 1, delta: 1.0e-5}`` (options ``search_epsilon``,
``steps``, ``score``, ``selection``; never a seed) derives its model, k-anonymity with SafePub's
k, so ``models:`` is left out; ``suppression_limit`` is 1 and ``history`` independent; its
``budget: {epsilon: 10, delta: 1.0e-4, recipient: NAME}`` is what its versions may spend
together (:mod:`.differential`, :mod:`anonymizer.dp.ledger`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import yaml

from anonymizer.engine.choice import ENGINES, OTHERS_SETTING, SETTINGS, SHOWN, EngineChoice
from anonymizer.engine.settings import Settings
from anonymizer.errors import SpecError
from anonymizer.numbers import number
from anonymizer.spec.algorithm import pair, parse_algorithm
from anonymizer.spec import differential
from anonymizer.spec.yaml_text import read_yaml
from anonymizer.spec.columns import parse_columns, parse_models
from anonymizer.fields import mapping_field, name_field, path_or_uri, relative_path, table_format
from anonymizer.spec.types import MAX_THREADS, ReleaseSpec, Source
from anonymizer.spec.validate import check
from anonymizer.target import EXPORT_FORMATS, GUARANTEES, Export, History, KeyMap, Output


# -- parsing ---------------------------------------------------------------------

def load_spec(source: str | Path | Mapping[str, Any], base_dir: str | Path | None = None) -> ReleaseSpec:
    """Read and validate a spec from a YAML file path, YAML text, or a dict.

    Relative paths inside the spec resolve against the spec file's folder (or
    ``base_dir``, or the working directory for dicts).

    Example:
        >>> s = load_spec({"release": "r", "source": {"table": "t"},
        ...     "columns": {"a": {"role": "quasi"}}, "models": [{"type": "k-anonymity", "k": 2}]})
        >>> s.algorithm.name, s.output.view, str(s.models[0])
        ('mondrian', 'r', '2-anonymity')
    """
    text = None
    if isinstance(source, Mapping):
        data, base = dict(source), Path(base_dir or ".")
    else:
        text, base = _read_text(source, base_dir)
        try:
            data = read_yaml(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"
            raise SpecError(where, f"malformed YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise SpecError("spec", "must be a mapping of fields (release, source, columns, models, ...)", data)
    return replace(parse_spec(data, base), text=text)


def _read_text(source: str | Path, base_dir) -> tuple[str, Path]:
    path = Path(source)
    if isinstance(source, Path) or (len(str(source)) < 4096 and "\n" not in str(source)):
        if not path.is_file():
            raise SpecError("spec", "no such file", str(source))
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = path.read_bytes()[:exc.start].count(b"\n") + 1
            raise SpecError(str(source), f"is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line {line}); "
                                         "save the spec as UTF-8") from None
        except OSError as exc:
            raise SpecError(str(source), f"cannot be read: {exc.strerror or exc}") from None
        return text, Path(base_dir or path.parent)
    return str(source), Path(base_dir or ".")


def parse_spec(data: dict, base: Path) -> ReleaseSpec:
    """Validate a spec dict (see the module docstring) and return a :class:`ReleaseSpec`:
    first against the spec's JSON Schema, every error at once (:mod:`.validate`), then the
    checks a schema cannot state, the first error found."""
    check(data)
    release = name_field(data.get("release"), "release")
    columns = parse_columns(data.get("columns"), base)
    default_role = data.get("default_role")
    if not any(c.role == "quasi" for c in columns):
        raise SpecError("columns", "at least one column must have role 'quasi'")
    algorithm = parse_algorithm(data.get("algorithm", {"name": "mondrian"}), columns, base)
    history = data.get("history")
    nulls = data.get("nulls", "error")
    if algorithm.name in differential.DIFFERENTIAL:   # its model derived, its suppression, history and NULLs fixed
        models, suppression = differential.derived_models(data, algorithm), differential.suppression(data)
        history, nulls = differential.history(history), differential.nulls(data)
        differential.published(algorithm, columns, default_role)
    else:
        models = parse_models(data.get("models"), columns)
        suppression = data.get("suppression_limit", 0.0)
        number(suppression, "suppression_limit", 0, 1, what="a fraction of rows between 0 and 1")
    pair(algorithm, models, columns)
    return ReleaseSpec(
        release=release,
        source=_source(data.get("source"), base, release),
        columns=columns,
        models=models,
        algorithm=algorithm,
        suppression_limit=float(suppression),
        nulls=nulls,
        default_role=default_role,
        output=_output(data.get("output", {}), release, base),
        raw=data,
        engine=_engine(data.get("engine", {}), base),
        backend=_backend(data.get("engine", {}), base),
        history=_history(history, columns),
        budget=differential.budget(data.get("budget"), release, algorithm),
    )


def _history(value: Any, columns: tuple) -> History:
    """``history: independent`` or ``history: {guarantee: invariant, person: pid}``
    (:class:`~anonymizer.spec.types.History`)."""
    if value is None:
        return History()
    if isinstance(value, str):
        value = {"guarantee": value}
    v = mapping_field(value, "history", {"guarantee", "person", "max_churn", "max_rekeyed", "key_map"})
    guarantee = v.get("guarantee", "invariant")
    if guarantee not in GUARANTEES:
        raise SpecError("history.guarantee", f"must be one of {', '.join(GUARANTEES)}", guarantee)
    person = v.get("person")
    if person is not None:
        person = name_field(person, "history.person")
        col = next((c for c in columns if c.name.lower() == person.lower()), None)
        if col is None or col.role not in ("identifier", "individual"):
            raise SpecError("history.person", "must name a column with role 'identifier' (or 'individual'): the key "
                                              "of a person in every version, never published", person)
        person = col.name
    shares = {name: float(number(v[name], f"history.{name}", 0, 1, what="a fraction of people between 0 and 1"))
              for name in ("max_churn", "max_rekeyed") if name in v}
    key_map = None
    if v.get("key_map") is not None:
        if person is None:
            raise SpecError("history.key_map", "maps old person keys to new ones: it needs history.person")
        m = mapping_field(v["key_map"], "history.key_map", {"table", "old", "new"})
        missing = sorted({"table", "old", "new"} - set(m))
        if missing:
            raise SpecError(f"history.key_map.{missing[0]}", "is required (key_map: {table: T, old: C, new: C})")
        key_map = KeyMap(*(name_field(m[f], f"history.key_map.{f}") for f in ("table", "old", "new")))
        if key_map.old == key_map.new:
            raise SpecError("history.key_map.new", "must be another column than history.key_map.old", key_map.new)
    return History(guarantee, person, **shares, key_map=key_map)


_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib|k|m|g|t|%)\s*", re.IGNORECASE)


def memory_limit(value: Any, where: str = "engine.memory_limit") -> str:
    """A DuckDB memory limit (``8GB``, ``512MB``, ``1.5GiB``, ``50%`` of the machine's memory),
    checked: a positive size with its unit. Returns it as given, trimmed.

    Example:
        >>> memory_limit("8GB"), memory_limit(" 50% ")
        ('8GB', '50%')
    """
    found = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if found is None or float(found.group(1)) <= 0 or (found.group(2) == "%" and float(found.group(1)) > 100):
        raise SpecError(where, "must be a memory size with its unit, such as 8GB, 512MB, 1.5GiB, or a share of "
                               "the machine's memory such as 50%", value)
    return value.strip()




def _backend(value: Any, base: Path) -> EngineChoice:
    """``engine: {name, master, conf, warehouse, remote}``: which engine runs the release."""
    v = mapping_field(value if value is not None else {}, "engine", {"name"}.union(*SETTINGS.values()))
    name = v.get("name", "duckdb")
    if name not in ENGINES:
        raise SpecError("engine.name", f"must be one of {', '.join(ENGINES)}", name)
    for key in sorted(set(v) - SETTINGS[name] - {"name"}):   # another engine's setting
        owner = next(shown for engine, shown in SHOWN.items() if key in SETTINGS[engine])
        raise SpecError(f"engine.{key}", f"is a setting of {owner}, not of {name}" + OTHERS_SETTING[name])
    conf = v.get("conf") or {}
    if not isinstance(conf, dict) or not all(isinstance(k, str) for k in conf):
        raise SpecError("engine.conf", "must be a mapping of Spark settings, e.g. {spark.driver.memory: 8g}", conf)
    for key in ("master", "warehouse", "remote"):
        if key in v and (not isinstance(v[key], str) or not v[key].strip()):
            raise SpecError(f"engine.{key}", "must be a non-empty string", v[key])
    if "remote" in v and not v["remote"].startswith("sc://"):
        raise SpecError("engine.remote", "must be a Spark Connect URL, sc://host:port", v["remote"])
    warehouse = v.get("warehouse")
    return EngineChoice(name, v.get("master"), tuple((k, str(c)) for k, c in conf.items()),
                        None if warehouse is None else str(relative_path(warehouse, base)), v.get("remote"))


def _engine(value: Any, base: Path) -> Settings:
    """``engine: {memory_limit, threads, temp_directory}``: DuckDB's resources for the run."""
    v = {k: c for k, c in (value if isinstance(value, dict) else {}).items() if k in SETTINGS["duckdb"]}
    limit = memory_limit(v["memory_limit"]) if "memory_limit" in v else None
    threads = v.get("threads")
    if threads is not None:
        number(threads, "engine.threads", 1, MAX_THREADS, whole=True,   # DuckDB would try to start them all
               what=f"a whole number of threads from 1 to {MAX_THREADS}")
    temp = v.get("temp_directory")
    if temp is not None:
        if not isinstance(temp, str) or not temp.strip():
            raise SpecError("engine.temp_directory", "must be a directory path", temp)
        path = Path(temp)
        temp = str(path if path.is_absolute() else base / path)
    return Settings(limit, None if threads is None else int(threads), temp)


def _source(value: Any, base: Path, release: str) -> Source:
    if isinstance(value, str):
        value = {"table": value}
    v = mapping_field(value, "source", {"table", "schema", "catalog", "path", "delimiter", "header", "null_string",
                                        "format", "options"})
    if "path" in v:
        return _files(v, base, release)
    if "table" not in v:
        raise SpecError("source", "needs a 'table' (or a 'path' to a CSV/Parquet file)")
    schema, catalog = v.get("schema"), v.get("catalog")
    if schema is not None:
        name_field(schema, "source.schema")
    if catalog is not None:
        name_field(catalog, "source.catalog")
        if schema is None:
            raise SpecError("source.catalog", "needs source.schema too: a table is named catalog.schema.table")
    return Source(table=name_field(v["table"], "source.table"), schema=schema, catalog=catalog)


def _files(v: dict, base: Path, release: str) -> Source:
    """A source of files: a local file or folder of parts (relative to the spec's folder; a
    ``file://`` URI names one too), or a URI of another scheme, which Spark reads."""
    path, uri = path_or_uri(str(v["path"]), base)
    if path is not None and not path.exists():
        raise SpecError("source.path", "no such file or folder", str(path))
    fmt = table_format(v.get("format"), "source.format")
    if fmt is None and path is not None and path.is_file() and not path.name.lower().endswith(
            (".csv", ".tsv", ".gz", ".parquet", ".pq", ".json", ".jsonl", ".ndjson", ".orc")):
        raise SpecError("source.format", f"is needed: {path.name} does not say its format by its ending "
                                         "(.csv, .tsv, .csv.gz, .parquet, .json, .orc)")
    options = mapping_field(v.get("options", {}), "source.options", set(v.get("options") or {}))
    return Source(table=name_field(v.get("table", release), "source.table"), schema=v.get("schema"), path=path,
                  delimiter=v.get("delimiter"), header=bool(v.get("header", True)), null_string=v.get("null_string"),
                  uri=uri, format=fmt, options={str(k): str(x) for k, x in options.items()})


def _output(value: Any, release: str, base: Path) -> Output:
    v = mapping_field(value or {}, "output", {"view", "schema", "snapshot_schema", "database", "export", "format",
                                              "partition_by"})
    database = None
    if v.get("database") is not None:
        if not isinstance(v["database"], str) or not v["database"].strip() or v["database"] == ":memory:":
            raise SpecError("output.database", "must be the path of a DuckDB database file", v["database"])
        database = relative_path(v["database"], base)
        if database.is_dir():
            raise SpecError("output.database", "is a directory, not a database file", str(database))
    out = Output(
        view=name_field(v.get("view", release), "output.view"),
        schema=name_field(v.get("schema", "published"), "output.schema"),
        snapshot_schema=name_field(v.get("snapshot_schema", "_anon_releases"), "output.snapshot_schema"),
        database=database,
        export=parse_export(v["export"], base) if v.get("export") is not None else None,
        format=table_format(v.get("format"), "output.format"),
        partition_by=_partition_by(v.get("partition_by", [])),
    )
    if out.schema == out.snapshot_schema:
        raise SpecError("output.snapshot_schema", "must differ from output.schema", out.snapshot_schema)
    return out


def _partition_by(value: Any) -> tuple[str, ...]:
    """``output.partition_by``: published column names, each once."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise SpecError("output.partition_by", "must be a published column name or a list of them", value)
    if len(set(names)) != len(names):
        raise SpecError("output.partition_by", "names a column twice", value)
    return tuple(names)


def parse_export(value: Any, base: Path, where: str = "output.export") -> Export:
    """``{path: out/adult.parquet}`` (or the path alone), with ``format: parquet | csv`` when
    the file name does not say it (``.parquet``, ``.pq``; ``.csv``, ``.csv.gz``, ``.csv.zst``,
    ``.tsv``). A relative path is relative to ``base`` (the spec file's folder)."""
    at = where if isinstance(value, str) else f"{where}.path"   # the field a path error names
    if isinstance(value, str):
        value = {"path": value}
    v = mapping_field(value, where, {"path", "format"})
    path = v.get("path")
    if not isinstance(path, str) or not path.strip():
        raise SpecError(at, "must be the path of the file to write", path)
    fmt = v.get("format")
    if fmt is None:
        name = path.lower()
        fmt = next((f for f, ends in EXPORT_FORMATS.items() if name.endswith(ends)), None)
        if fmt is None:
            raise SpecError(at, "says no format: end it in .parquet or .csv, or give format: parquet | csv",
                            path)
    elif fmt not in EXPORT_FORMATS:
        raise SpecError(f"{where}.format", f"must be one of {', '.join(EXPORT_FORMATS)}", fmt)
    resolved = relative_path(path, base)
    if resolved.is_dir() or path.endswith(("/", "\\")):
        raise SpecError(at, "is a directory; name the file to write", path)
    return Export(resolved, fmt)
