"""DuckDB's functions and types that Spark spells otherwise, rewritten in place on a parsed
statement (sqlglot's tree) by :func:`anonymizer.engine.transpile.spark_statements`, one
function per construct (the table of :mod:`.transpile` lists them all)."""

from __future__ import annotations

import json

from sqlglot import exp


def any_value(tree: exp.Expression) -> None:
    """``any_value(x)``: DuckDB skips NULLs, Spark only when told (``any_value(x, true)``)."""
    for node in list(tree.find_all(exp.IgnoreNulls)):
        if isinstance(node.this, exp.AnyValue):
            node.replace(exp.Anonymous(this="any_value", expressions=[node.this.this.copy(), exp.true()]))
    for node in list(tree.find_all(exp.AnyValue)):
        node.replace(exp.Anonymous(this="any_value", expressions=[node.this.copy(), exp.true()]))


def json_structure(tree: exp.Expression) -> None:
    """``from_json(x, '["VARCHAR"]')``: DuckDB reads a JSON structure (a list of one type, an
    object of typed keys, a type name), Spark a DDL schema (``array<string>``)."""
    def ddl(shape: object) -> str:
        if isinstance(shape, list):
            return f"array<{ddl(shape[0])}>"
        if isinstance(shape, dict):
            return "struct<" + ", ".join(f"{k}: {ddl(v)}" for k, v in shape.items()) + ">"
        return exp.DataType.build(str(shape), dialect="duckdb").sql("spark").lower()
    typed = getattr(exp, "FromJson", None)   # older sqlglot (our floor, 30.7) parses it as an anonymous function
    # innermost first: an outer call copies its argument, so a nested call must be rewritten before
    for node in reversed(list(tree.find_all(exp.Anonymous, *([typed] if typed else [])))):
        if isinstance(node, exp.Anonymous) and (node.name.lower() != "from_json" or len(node.expressions) != 2):
            continue
        value, schema = (node.this, node.expression) if typed and isinstance(node, typed) else node.expressions
        if isinstance(schema, exp.Literal) and schema.is_string and schema.this[:1] in "[{\"":
            node.replace(exp.Anonymous(this="from_json", expressions=[
                value.copy(), exp.Literal.string(ddl(json.loads(schema.this)))]))


def one_argument(tree: exp.Expression) -> None:
    """``greatest(x)``, ``least(x)`` of one argument (a template's loop over one column): DuckDB
    returns ``x``, Spark wants two or more."""
    for node in list(tree.find_all(exp.Greatest, exp.Least)):
        if not node.expressions:
            node.replace(node.this.copy())


def list_position(tree: exp.Expression) -> None:
    """``list_position`` (NULL when absent; Spark's ``array_position`` gives 0) and
    ``list_extract`` (1-based, NULL past the end: Spark's ``try_element_at``, an INT index)."""
    for node in list(tree.find_all(exp.Anonymous)):
        if node.name.lower() in ("list_position", "list_indexof"):
            node.replace(exp.Nullif(this=exp.Anonymous(this="array_position", expressions=node.expressions),
                                    expression=exp.Literal.number(0)))
    for node in list(tree.find_all(exp.Anonymous)):
        if node.name.lower() in ("list_extract", "list_element"):
            array, index = node.expressions
            node.replace(exp.Anonymous(this="try_element_at", expressions=[array.copy(), exp.cast(index.copy(), "INT")]))


def hugeint(tree: exp.Expression) -> None:
    """``HUGEINT`` as ``DECIMAL(38, 0)``; ``UBIGINT`` (64-bit words of bits) as ``BIGINT``."""
    for node in list(tree.find_all(exp.DataType)):
        if node.this in (exp.DataType.Type.INT128, exp.DataType.Type.UINT128):
            node.replace(exp.DataType.build("DECIMAL(38, 0)"))
        elif node.this == exp.DataType.Type.UBIGINT:
            node.replace(exp.DataType.build("BIGINT"))


def md5_number(tree: exp.Expression) -> None:
    """DuckDB's ``md5_number`` reads the 16 bytes of the MD5 little-endian: its top 64 bits are
    bytes 15 down to 8, hex digits 31-32, 29-30, .., 17-18 of ``md5()``. Spark gets that
    number (no 128-bit integer there), so ordering by it orders as DuckDB does; its remainder
    by 2^i (i <= 8, a draw's parity) is byte 0's, hex digits 1-2."""
    for node in list(tree.find_all(exp.Anonymous)):
        if node.name.lower() != "md5_number":
            continue
        digest = exp.func("md5", exp.cast(node.expressions[0].copy(), "VARCHAR"))
        mod = node.parent if isinstance(node.parent, exp.Mod) and node.parent.this is node else None
        divisor = mod.expression if mod is not None else None
        if isinstance(divisor, exp.Literal) and divisor.is_int and int(divisor.this) in {2 ** i for i in range(9)}:
            low = exp.Substring(this=digest, start=exp.Literal.number(1), length=exp.Literal.number(2))
            node.replace(exp.cast(exp.func("conv", low, exp.Literal.number(16), exp.Literal.number(10)), "INT"))
            continue
        # one md5() a row (its eight pairs of digits reordered by one regular expression): the
        # key, read by a subquery (spark_secret.py), makes eight copies eight digests
        top = exp.Anonymous(this="regexp_replace", expressions=[
            exp.Substring(this=digest, start=exp.Literal.number(17), length=exp.Literal.number(16)),
            exp.Literal.string("(..)" * 8), exp.Literal.string("".join(f"${i}" for i in range(8, 0, -1)))])
        node.replace(exp.cast(exp.func("conv", top, exp.Literal.number(16), exp.Literal.number(10)),
                              "DECIMAL(20, 0)"))
