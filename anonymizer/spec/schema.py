"""The release spec's JSON Schema (draft 2020-12): what editors complete and check, and what
:func:`anonymizer.spec.validate.check` validates every spec against before the parser
(:mod:`.parse`) runs its checks a schema cannot state (a column named twice, a model's
sensitive column, the pairing of an algorithm with its models).

It is built from the declarations the parser reads: the roles and types
(:mod:`.types`), each model type with its parameters (:mod:`anonymizer.models.catalog`,
each family's ``models`` module), each family's algorithms with their options (the
``SCHEMA`` of its ``options`` module), the hierarchy kinds (:mod:`anonymizer.hierarchy.spec`),
the engines, history guarantees and export formats. ``anonymizer schema`` prints it.

Example:
    >>> s = spec_schema()
    >>> s["required"], s["then"]["required"], "mondrian" in s["properties"]["algorithm"]["anyOf"][0]["enum"]
    (['release', 'source', 'columns'], ['models'], True)

``models`` is required unless the algorithm is differentially private (it derives its own).
"""

from __future__ import annotations

import functools
from typing import Any

from anonymizer import families
from anonymizer.engine.choice import ENGINES
from anonymizer.hierarchy.spec import DATE_UNITS, IOTF_NODES, KINDS
from anonymizer.models.catalog import PARAMETERS
from anonymizer.randomness import SEED_LIMIT
from anonymizer.spec.differential import DIFFERENTIAL
from anonymizer.spec.types import MAX_THREADS, NULL_POLICIES, ROLES, TYPES
from anonymizer.target import EXPORT_FORMATS, GUARANTEES

#: where the schema says it lives (its ``$id``)
SCHEMA_ID = "https://github.com/anonymizer/anonymizer/spec.schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _text(description: str, **schema: Any) -> dict:
    """``schema`` with its description (what an editor shows beside the field)."""
    return {**schema, "description": description}


def _name(description: str) -> dict:
    """A name: a non-empty string of at most 120 characters."""
    return _text(description, type="string", minLength=1, maxLength=120)


def _either(description: str, short: dict, full: dict) -> dict:
    """A field written short (a string, a number) or in full (a mapping)."""
    return _text(description, anyOf=[short, full])


def _mapping(properties: dict, required: tuple[str, ...] = (), **more: Any) -> dict:
    """A mapping of known keys (any other key is an error)."""
    return {"type": "object", "properties": properties, "additionalProperties": False,
            **({"required": list(required)} if required else {}), **more}


def _pair(description: str) -> dict:
    """Two numbers, ``[low, high]``."""
    return _text(description, type="array", items={"type": "number"}, minItems=2, maxItems=2)


# -- columns ------------------------------------------------------------------------------------
def _hierarchy() -> dict:
    paper = _mapping({"min_width": _text("the narrowest interval width", type="number", exclusiveMinimum=0),
                      "range": _pair("[low, high] (default: the data's min and max)")}, ("min_width",))
    kinds = {
        "csv": _text("an ARX hierarchy file value;level1;...;* (relative to the spec's folder) or a URI",
                     type="string", minLength=1),
        "delimiter": _text("the csv file's delimiter", type="string", minLength=1, maxLength=1, default=";"),
        "intervals": _text("fixed interval widths, one per level, increasing", type="array", minItems=1,
                           items={"type": "number", "exclusiveMinimum": 0}),
        "masking": _text("true: mask up to the longest value; or the number of levels masked",
                         anyOf=[{"const": True}, {"type": "integer", "minimum": 1}]),
        "ordered": _text("the values in generalization order", type="array", minItems=2, uniqueItems=True),
        "sizes": _text("values per group at each level of an ordered hierarchy", type="array",
                       items={"type": "integer", "minimum": 2}),
        "dates": _text("increasing truncation units", type="array", uniqueItems=True, minItems=1,
                       items={"enum": list(DATE_UNITS)}),
        "cgh": _text("paper 001, section III.A", **paper),
        "dbgh": _text("paper 001, Algorithm 1", **paper),
        "cbgh": _text("paper 001, Algorithm 2", **paper),
        "iotf": _text("paper 001's baseline, Table 4", **_mapping(
            {"nodes": _text("nodes per level, bottom up, decreasing", type="array", minItems=1,
                            items={"type": "integer", "minimum": 2}, default=list(IOTF_NODES)),
             "range": _pair("[low, high] (default: the data's min and max)")})),
    }
    full = _mapping(kinds, minProperties=1)
    return _either(f"a generalization hierarchy: a CSV file, or one of {', '.join(KINDS)}",
                   {"type": "string", "minLength": 1}, full)


def _column() -> dict:
    role = _text("what the column is: " + ", ".join(ROLES), type="string", enum=list(ROLES))
    level = _text("a security level: 0 (none), 1 (low) or 2 (high)", type="integer", minimum=0, maximum=2)
    security = _either("security levels of a sensitive column's values (paper 002): 0 none, 1 low, 2 high",
                       level, _mapping({"default": level, "values": _text("each sensitive value's security level", type="object",
                                                     additionalProperties=level)}))
    entry = _mapping({
        "role": role,
        "type": _text("numeric or categorical (default: from the table)", enum=list(TYPES)),
        "hierarchy": _hierarchy(),
        "order": _text("a quasi column's values in order", type="array", minItems=1, uniqueItems=True),
        "security": security,
        "flag": _name("a BOOLEAN column, TRUE where this quasi column's value is sensitive (paper 000)"),
        "domain": _pair("[low, high]: a numeric quasi column's domain, when wider than its values"),
    }, ("role",))
    return _either("the column's role, or its role with its settings", role, entry)


# -- models and algorithm ------------------------------------------------------------------------
def _models() -> dict:
    types = families.model_types()
    branches = []
    for kind, how in types.items():
        params = {key: how.params.get(key, PARAMETERS[key]) for key in sorted(how.keys)}
        then = _mapping({"type": {}, **params}, tuple(sorted(how.keys - how.optional)))
        branches.append({"if": {"properties": {"type": {"const": kind}}},
                         "then": _text(how.doc or kind, title=kind, **then)})
    item = {"type": "object", "required": ["type"], "allOf": branches,
            "properties": {"type": _text("the privacy model", enum=list(types))}}
    return _text("the privacy models the release must satisfy (each is verified before publishing)",
                 type="array", minItems=1, items=item)


def _seed() -> dict:
    secret = {"type": "string", "minLength": 1}
    return _text("{env: NAME} or {file: PATH} (a secret key), or a whole number in [0, 2**63) (a public seed, "
                 "for tests)",
                 anyOf=[{"type": "integer", "minimum": 0, "maximum": SEED_LIMIT - 1},
                        _mapping({"env": secret}, ("env",)), _mapping({"file": secret}, ("file",))])


def _algorithm() -> dict:
    options: dict[str, dict] = {}
    branches = []
    for family in families.FAMILIES:
        options.update(family.options().SCHEMA)
        for name, reads in family.algorithms.items():
            allowed: dict[str, dict] = {"name": {}, **{o: {} for o in sorted(reads)}}
            branches.append({"if": {"properties": {"name": {"const": name}}},
                             "then": {"title": name, "properties": allowed, "additionalProperties": False}})
    names = _text("the algorithm", type="string", enum=list(families.ALGORITHMS))
    full = {"type": "object", "allOf": branches,
            "properties": {"name": {**names, "default": "mondrian"}, "seed": _seed(), **options}}
    return _either("the algorithm (default mondrian) and its options", names, full)


# -- where the data comes from and goes ----------------------------------------------------------
def _source() -> dict:
    table = _name("the table (of the database, or the name the files are loaded as)")
    files = _mapping({
        "table": table, "schema": _name("the table's schema"),
        "catalog": _name("the schema's catalog (Spark) or attached database (DuckDB); default: the session's"),
        "path": _text("a CSV or Parquet file or a folder of parts (relative to the spec's folder), or a URI",
                      type="string", minLength=1),
        "delimiter": {"type": "string"}, "header": {"type": "boolean", "default": True},
        "null_string": {"type": "string"}, "format": _text("the files' format: parquet, csv, json, orc, ...",
                                                           type="string"),
        "options": _text("Spark reader options", type="object")})
    return _either("the table to anonymize, or files to load", table, files)


def _output() -> dict:
    export = _mapping({"path": {"type": "string", "minLength": 1},
                       "format": _text("default: from the file name", enum=list(EXPORT_FORMATS))}, ("path",))
    columns = _text("a published column name", type="string", minLength=1)
    return _text("where the release is published", **_mapping({
        "view": _name("the published view (default: the release's name)"),
        "schema": _name("the schema of the published view (default: published)"),
        "snapshot_schema": _name("the schema of the snapshots (default: _anon_releases)"),
        "database": _text("another DuckDB file to publish into (relative to the spec's folder)", type="string"),
        "export": _either("a Parquet or CSV copy of the verified snapshot", {"type": "string", "minLength": 1}, export),
        "format": _text("the snapshot table's format (Spark: delta, iceberg, ...)", type="string"),
        "partition_by": _either("published columns the snapshot is partitioned by", columns,
                                {"type": "array", "items": columns}),
    }))


def _engine() -> dict:
    text = {"type": "string", "minLength": 1}
    return _text("which engine runs the release and its resources (not part of the release's hash)", **_mapping({
        "name": _text("the engine", enum=list(ENGINES), default="duckdb"),
        "memory_limit": _text("DuckDB: a memory size (8GB, 512MB, 50%)", **text),
        "threads": _text("DuckDB: its threads", type="integer", minimum=1, maximum=MAX_THREADS),
        "temp_directory": _text("DuckDB: where it spills (relative to the spec's folder)", **text),
        "master": _text("Spark: the master URL, e.g. local[2]", **text),
        "conf": _text("Spark settings, e.g. {spark.driver.memory: 8g}", type="object"),
        "warehouse": _text("Spark: the warehouse folder", **text),
        "remote": _text("Spark: a Spark Connect server, sc://host:port (its master and catalog)", type="string",
                        pattern="^sc://"),
    }))


def _history() -> dict:
    guarantee = _text("invariant: re-publications are checked against earlier versions; independent: not",
                      type="string", enum=list(GUARANTEES))
    return _either("how a release's versions relate", guarantee, _mapping({
        "guarantee": {**guarantee, "default": "invariant"},
        "person": _name("the column with role identifier (or individual) keying a person in every version"),
        "max_churn": _text("the largest share of the previous version's people whose key may be gone (else refused)",
                           type="number", minimum=0, maximum=1, default=0.5),
        "max_rekeyed": _text("the largest share of the previous version's people who may be found again, by their "
                             "QI and sensitive values, under another key (else refused)",
                             type="number", minimum=0, maximum=1, default=0.1),
        "key_map": _text("a table mapping each person's old key to their new one (keys changed on purpose)",
                         **_mapping({"table": _name("the table, schema.table or table"),
                                     "old": _name("its column of old keys"), "new": _name("its column of new keys")},
                                    ("table", "old", "new")))}))


@functools.cache
def spec_schema() -> dict:
    """The JSON Schema of a release spec (built once: do not modify it)."""
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": "anonymizer release spec",
        "description": "What to anonymize, how, and where to publish it (anonymizer run SPEC --db FILE).",
        "type": "object",
        "required": ["release", "source", "columns"],
        # models: required, but for a differentially private algorithm, which derives its own
        "if": {"not": {"properties": {"algorithm": {"anyOf": [
            {"enum": list(DIFFERENTIAL)}, {"type": "object", "required": ["name"],
                                           "properties": {"name": {"enum": list(DIFFERENTIAL)}}}]}},
                       "required": ["algorithm"]}},
        "then": {"required": ["models"]},
        "additionalProperties": False,
        "properties": {
            "release": _name("the release's name"),
            "description": _text("what the release is for", type="string"),
            "source": _source(),
            "columns": _text("each source column's role (and settings); default_role covers the rest",
                             type="object", minProperties=1, additionalProperties=_column()),
            "default_role": _text("the role of the source columns not listed", enum=list(ROLES)),
            "models": _models(),
            "algorithm": _algorithm(),
            "suppression_limit": _text("the fraction of rows that may be suppressed", type="number",
                                       minimum=0, maximum=1, default=0),
            "nulls": _text("error: a NULL quasi-identifier stops the release; suppress: its rows are suppressed",
                           enum=list(NULL_POLICIES), default="error"),
            "output": _output(),
            "engine": _engine(),
            "history": _history(),
            "budget": _text("a differentially private release's budget: the total epsilon and delta its versions may "
                            "spend, renewed only by `anonymizer budget refresh`", type="object",
                            additionalProperties=False, required=["epsilon", "delta"],
                            properties={"epsilon": {"type": "number", "exclusiveMinimum": 0},
                                        "delta": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                                        "recipient": {"type": "string", "minLength": 1,
                                                      "description": "who receives the releases: one budget "
                                                                     "for every release naming them"}}),
        },
    }
