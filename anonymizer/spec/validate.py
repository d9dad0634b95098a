"""A spec checked against its JSON Schema (:mod:`.schema`) with ``jsonschema``: every error at
once, each naming its field (``columns.age.hierarchy.intervals[1]``), with a suggestion for a
misspelled key or value ("did you mean 'mondrian'?").

Example:
    >>> try:
    ...     check({"release": "r", "source": "t", "columns": {"a": "quasi"},
    ...            "models": [{"type": "k-anonimity", "k": 2}], "suppresion_limit": 0.1})
    ... except SpecError as err:
    ...     for e in err.errors:
    ...         print(e.field, "|", e.problem.rsplit("; ", 1)[-1])
    models[0].type | did you mean 'k-anonymity'?
    suppresion_limit | did you mean 'suppression_limit'?
"""

from __future__ import annotations

import difflib
import math
from typing import Any, Iterable, Iterator

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from anonymizer.errors import SpecError
from anonymizer.spec.schema import spec_schema

#: how a JSON type is said in a message
_TYPES = {"string": "a string", "integer": "a whole number", "number": "a number", "object": "a mapping",
          "array": "a list", "boolean": "true or false", "null": "empty"}
#: at most this many allowed names are listed in a message
_LISTED = 20


def check(data: dict) -> None:
    """Validate a spec dict against the schema; a :class:`SpecError` lists every error
    (``errors``; ``field``, ``problem`` and ``value`` are the first's)."""
    spec = _canonical(data)
    found = [e for error in Draft202012Validator(spec_schema()).iter_errors(spec) for e in _explain(error)]
    unique = {(e.field, e.problem): (at, e) for at, e in found}.values()
    if unique:
        raise SpecError.of([e for _, e in sorted(unique, key=lambda found: _position(spec, found[0]))])


def _position(spec: Any, path: list[Any]) -> tuple[int, ...]:
    """Where a field is in the spec as written (its keys' and items' places), so that the
    errors are listed top to bottom; a missing key comes after its mapping's keys."""
    out, node = [], spec
    for step in path:
        items = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        out.append(items.index(step) if step in items else len(items))
        node = node[step] if step in items else None
    return tuple(out)


def _present(value: Any) -> Any:
    """``value`` without the keys given no value (``key:`` alone, YAML's null): the parser
    reads them as left out (and says so where a value is needed)."""
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_present(v) for v in value]
    return value


def _canonical(data: dict) -> dict:
    """The spec as the parser reads it: a key given no value left out (:func:`_present`), a
    model ``type`` in any case and with ``_`` for ``-``, an algorithm ``name`` with ``_`` for ``-``."""
    out = _present(data)
    if isinstance(out.get("models"), list):
        out["models"] = [{**m, "type": m["type"].replace("_", "-").lower()}
                         if isinstance(m, dict) and isinstance(m.get("type"), str) else m for m in out["models"]]
    algorithm = out.get("algorithm")
    if isinstance(algorithm, str):
        out["algorithm"] = algorithm.replace("_", "-")
    elif isinstance(algorithm, dict) and isinstance(algorithm.get("name"), str):
        out["algorithm"] = {**algorithm, "name": algorithm["name"].replace("_", "-")}
    return out


def where(path: Iterable[Any]) -> str:
    """A field path as the spec's messages write it: ``columns.age.hierarchy.intervals[1]``.

    Example:
        >>> where(["models", 0, "k"]), where([])
        ('models[0].k', 'spec')
    """
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or "spec"


def _suggest(value: Any, allowed: Iterable[Any]) -> str:
    """``"; did you mean 'X'?"`` for the allowed name closest to ``value``, or ``""``."""
    names = [str(a) for a in allowed]
    close = difflib.get_close_matches(str(value), names, n=1, cutoff=0.6) if isinstance(value, str) else []
    return f"; did you mean {close[0]!r}?" if close else ""


def _listed(names: list[Any]) -> str:
    shown = ", ".join(map(str, names[:_LISTED]))
    return shown + (", ..." if len(names) > _LISTED else "")


def _explain(error: ValidationError) -> Iterator[tuple[list[Any], SpecError]]:
    """The errors (:class:`SpecError`) one schema error stands for, each with its path (an unknown
    or missing key each; a branch of ``anyOf`` chosen by the value's type)."""
    at, value, schema, kind = list(error.absolute_path), error.instance, error.schema, error.validator
    if kind in ("anyOf", "oneOf"):
        yield from _branch(error)
    elif kind == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        for key in [k for k in value if k not in schema.get("properties", {})]:
            said = (f"is not a spec field (fields: {_listed(allowed)})" if not at
                    else f"does not apply to {schema['title']} (its options: {_listed(allowed)})" if "title" in schema
                    else f"is not an option here (options: {_listed(allowed)})")
            yield [*at, key], SpecError(where([*at, key]), said + _suggest(key, allowed))
    elif kind == "required":
        missing = error.validator_value
        for key in [k for k in missing if k not in value]:
            yield [*at, key], SpecError(where([*at, key]), "is required")
    elif kind in ("enum", "const"):
        allowed = error.validator_value if kind == "enum" else [error.validator_value]
        yield at, SpecError(where(at), f"must be one of {_listed(allowed)}{_suggest(value, allowed)}", value)
    else:
        yield at, SpecError(where(at), _problem(error), value)


def _branch(error: ValidationError) -> Iterator[tuple[list[Any], SpecError]]:
    """An ``anyOf`` that failed: the errors of the one branch the value's type fits, if one
    does; else what the field takes (its description)."""
    fits: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        fits.setdefault(sub.schema_path[0], []).append(sub)
    typed = [errs for errs in fits.values()
             if not any(e.validator in ("type", "const") and not e.relative_path for e in errs)]
    if len(typed) == 1:
        for sub in typed[0]:
            yield from _explain(sub)
        return
    description, at = error.schema.get("description"), list(error.absolute_path)
    yield at, SpecError(where(at), f"must be {description}" if description else error.message,
                    error.instance)


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _problem(error: ValidationError) -> str:
    """The problem of a schema error of a bound, a length or a type, as the parser says it,
    with what the field is (its description)."""
    kind, limit = error.validator, error.validator_value
    said = {"minimum": f"must be >= {limit}", "maximum": f"must be <= {limit}",
            "exclusiveMinimum": f"must be > {limit}", "exclusiveMaximum": f"must be < {limit}",
            "minItems": f"must have at least {limit} item(s)", "maxItems": f"must have at most {limit} item(s)",
            "minLength": "must not be empty", "maxLength": f"must be at most {limit} characters",
            "minProperties": "must not be empty", "uniqueItems": "must not repeat a value"}
    if kind in _BOUNDS and isinstance(error.instance, float) and not math.isfinite(error.instance):
        problem = "must be a finite number"   # NaN passes no comparison, an infinity every bound but one
    elif kind == "type":
        kinds = [limit] if isinstance(limit, str) else list(limit)
        problem = "must be " + " or ".join(_TYPES.get(k, k) for k in kinds)
    else:
        problem = said.get(kind, error.message)
    what = _description(error)
    return f"{problem} ({what})" if what else problem


def _description(error: ValidationError | None) -> str | None:
    """What the field of an error is: its schema's description, or that of the ``anyOf`` it is
    a branch of (the same field)."""
    while error is not None:
        if isinstance(error.schema, dict) and error.schema.get("description"):
            return error.schema["description"]
        if error.relative_path:
            return None
        error = error.parent
    return None
