"""DuckDB SQL, as the templates write it, into Spark SQL statements (sqlglot plus the rewrites
sqlglot does not make).

The templates stay written once, in DuckDB's dialect. :func:`to_spark` parses a rendered
statement with sqlglot and writes it for Spark after these rewrites of the tree, each for a
construct sqlglot carries over into something Spark refuses or reads otherwise (found by
running every statement of the releases on local Spark; the rewrites of single functions and
types are in :mod:`.spark_functions`):

=====================================  =====================================================
DuckDB                                 Spark
=====================================  =====================================================
``CREATE OR REPLACE TABLE t AS q``     ``DROP TABLE IF EXISTS t`` then ``CREATE TABLE t AS q``
                                       (Spark's file tables refuse REPLACE)
``CREATE TEMPORARY TABLE``             ``CREATE TABLE`` (the engine names it in the run's
                                       work database; Spark has no temporary tables)
``UPDATE t SET c = e [FROM s] WHERE``  a new table with ``CASE WHEN <matched> THEN e ELSE c``
``DELETE FROM t WHERE p``              a new table of the rows where ``p`` is not true, then
                                       the swap (Spark's file tables refuse both)
``x.* REPLACE (...)``, ``* EXCLUDE``   the columns spelled out (their names from Spark's
                                       catalog)
``any_value(x)`` (skips NULLs)         ``any_value(x, true)``
``list_position(l, v)`` (NULL if none) ``nullif(array_position(l, v), 0)``
``list_extract(l, i)`` (NULL outside)  ``try_element_at(l, CAST(i AS INT))``
``from_json(s, '["VARCHAR"]')`` (a     ``from_json(s, 'array<string>')`` (a DDL schema)
JSON structure)
``greatest(x)``, ``least(x)`` (one     ``x`` (Spark wants two or more)
argument)
``ALTER TABLE t ADD COLUMN IF NOT     ``ALTER TABLE t ADD COLUMN c T`` for the columns ``t``
EXISTS c T``                           lacks (from Spark's catalog), nothing for the others
``HUGEINT``                            ``DECIMAL(38, 0)``
``UBIGINT`` (64-bit words of bits)     ``BIGINT``, the same 64 bits (``|``, ``<<`` and
                                       ``bit_count`` agree); the engine binds a word of
                                       2^63 or more as its two's complement
``row(a, b)``                          ``struct(a, b)``
``x[i]`` where ``x`` is ``row(a, b)``      ``x.f<i>``, the row written ``struct(a AS f1, b AS f2)``
(an unnamed struct, by position)       (Spark's structs are read by field name)
``row(a, b) IN (SELECT x ...)``        ``struct(a, b) IN (SELECT x.* ...)`` (Spark compares a
(or ``{'a': a, ..} IN ...``)           struct with a subquery's columns, one per field)
``md5_number(s)`` (128 bits)           its top 64 bits as ``DECIMAL(20, 0)`` (DuckDB reads
                                       the digest little-endian): the same order for
                                       draws that differ there
``md5_number(s) % 2^i`` (i <= 8)       the digest's first byte ``% 2^i`` (a draw's parity)
``(a, b)::VARCHAR`` (a row as text)    ``concat('(', a, ', ', b, ')')``, NULL as ``NULL``,
                                       as DuckDB writes it (Spark: ``{a, b}``)
``list(r)``, ``arg_min(r, ..)`` with   ``struct(r.*)`` (Spark reads a bare name as a column)
``r`` a table of the FROM (its row)
``WITH x AS MATERIALIZED (...)``       ``WITH x AS (...)`` (Spark has no such hint)
``SELECT unnest(a), unnest(b)``        refused (DuckDB zips, Spark pairs all)
``OVER (w ROWS ...)`` on a named       the window's partition and order written in
window
``list(x ORDER BY y)``                 ``transform(array_sort(collect_list(struct(y, x))),
                                       s -> s.v)`` (sqlglot drops the ORDER BY, and
                                       collect_list the NULLs, of ``x``)
``list(DISTINCT x ORDER BY x)``        ``array_sort(collect_set(x))``
``arg_min(x, key, n)`` (the n least)   ``transform(slice(array_sort(collect_list(struct(key,
                                       x))), 1, n), s -> s.v)`` (sqlglot drops ``n``);
                                       ``arg_max``: sorted by decreasing key
``l[a:b]``                             ``slice(l, a, b - a + 1)``
``l[i]`` (1-based, NULL outside)       ``try_element_at(l, i)`` (sqlglot shifts only
                                       literal indexes; Spark's ``[]`` is 0-based and fails
                                       outside)
``WITH`` inside a CTE, clashing with   renamed ``name__<k>`` in its query (sqlglot moves
another CTE's name                     nested CTEs to the top, where Spark refuses
                                       duplicate names)
=====================================  =====================================================

Bound parameters carry over as Spark's named markers (``$k`` becomes ``:k``). A construct with
no rewrite here that Spark refuses raises where Spark does, naming the template
(:class:`~anonymizer.errors.TemplateError`); the engine logs every statement's Spark text.
"""

from __future__ import annotations

from typing import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from anonymizer.engine.spark_ddl import Columns, add_columns, delete_select, drop, swap, update_select
from anonymizer.engine.spark_functions import (any_value, hugeint, json_structure, list_position, md5_number,
                                               one_argument)


def to_spark(sql: str, columns: Columns) -> list[str]:
    """The Spark statements for the DuckDB statement(s) ``sql``; ``columns`` names a
    relation's columns (for the rewrites that spell out ``*``)."""
    return list(spark_statements(sql, columns))


def spark_statements(sql: str, columns: Columns) -> Iterator[str]:
    """:func:`to_spark`, one DuckDB statement at a time: a caller that runs each before asking
    for the next lets a statement's rewrite read the catalog as the statements before left it
    (a column an ``ALTER TABLE`` added, then spelled out by an ``UPDATE``'s rewrite)."""
    for tree in sqlglot.parse(sql, read="duckdb"):
        if tree is None:
            continue
        for rewrite in (any_value, json_structure, one_argument, list_position, hugeint, _struct_index, _row_in, _row,
                        _row_text, md5_number, _whole_rows, _top_n,
                        _named_window_frame, _ordered_list, _element, _nested_ctes, _materialized, _one_unnest,
                        _written_in_order):
            rewrite(tree)
        yield from (_write(t) for t in _statements(tree, columns))


def _write(tree: exp.Expression) -> str:
    return tree.sql(dialect="spark", unsupported_level=ErrorLevel.IGNORE)


def _statements(tree: exp.Expression, columns: Columns) -> list[exp.Expression]:
    """The statement, or the statements that stand for it on Spark (DDL rewrites)."""
    if isinstance(tree, (exp.Update, exp.Delete)):
        select = update_select(tree) if isinstance(tree, exp.Update) else delete_select(tree)
        _expand_stars(select, columns)
        return swap(tree.this, select)
    if isinstance(tree, exp.Alter):
        return add_columns(tree, columns)
    _expand_stars(tree, columns)
    if isinstance(tree, exp.Create):
        props = tree.args.get("properties")
        for prop in list(props.expressions if props else []):
            if isinstance(prop, exp.TemporaryProperty):
                prop.pop()
        if tree.args.get("replace") and (tree.args.get("kind") or "").upper() == "TABLE":
            tree.set("replace", False)
            target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
            return [drop(target), tree]
    return [tree]


def _expand_stars(tree: exp.Expression, columns: Columns) -> None:
    """``x.* REPLACE (e AS c)`` and ``* EXCLUDE (c)``: Spark has neither, so write the columns
    out, in the relation's order, from the catalog (``columns``)."""
    for star in list(tree.find_all(exp.Star)):
        replace, exclude = star.args.get("replace"), star.args.get("except_")
        if not replace and not exclude:
            continue
        column = star.parent if isinstance(star.parent, exp.Column) else None
        select = star.find_ancestor(exp.Select)
        qualifier = column.table if column is not None else None
        names = _star_columns(select, qualifier, columns)
        dropped = {e.name.lower() for e in exclude or []}
        replaced = {e.alias.lower(): e for e in replace or []}
        items = [replaced[n.lower()].copy() if n.lower() in replaced else exp.column(n, table=qualifier, quoted=True)
                 for n in names if n.lower() not in dropped]
        node = column if column is not None else star
        position = select.expressions.index(node)
        select.set("expressions", select.expressions[:position] + items + select.expressions[position + 1:])


def _star_columns(select: exp.Select, qualifier: str | None, columns: Columns) -> list[str]:
    """The columns ``qualifier.*`` (or ``*``) stands for in ``select``: a table's from the
    catalog, a subquery's or CTE's from its select list."""
    sources = [select.args["from_"].this] + [j.this for j in select.args.get("joins") or []]
    for source in sources:
        if qualifier and source.alias_or_name != qualifier:
            continue
        if isinstance(source, exp.Subquery):
            return [e.alias_or_name for e in source.this.selects]
        with_ = select.args.get("with") or (select.parent_select and select.parent_select.args.get("with"))
        for cte in (with_.expressions if with_ else []):
            if cte.alias_or_name == source.name:
                return [e.alias_or_name for e in cte.this.selects]
        bare = source.copy()
        bare.set("alias", None)
        return columns(bare)
    raise ValueError(f"cannot tell the columns of {qualifier or '*'} in: {select.sql('duckdb')[:200]}")


# -- rows and structs --------------------------------------------------------------------------
def _struct_index(tree: exp.Expression) -> None:
    """``x[i]`` where every ``... AS x`` of the statement is a ``row(...)``: DuckDB indexes an
    unnamed struct by position, Spark reads a field by name, so the rows get names
    ``f1 .. fn`` and the index becomes ``x.f<i>``."""
    rows: dict[str, list[exp.Anonymous]] = {}
    others: set[str] = set()
    for alias in tree.find_all(exp.Alias):
        is_row = isinstance(alias.this, exp.Anonymous) and alias.this.name.lower() == "row"
        (rows.setdefault(alias.alias, []).append(alias.this) if is_row else others.add(alias.alias))
    indexed = [b for b in tree.find_all(exp.Bracket) if isinstance(b.this, exp.Column) and not b.this.table
               and b.this.name in rows and b.this.name not in others and len(b.expressions) == 1
               and isinstance(b.expressions[0], exp.Literal) and not b.expressions[0].is_string]
    for name in {b.this.name for b in indexed}:
        for node in rows[name]:
            node.replace(exp.Struct(expressions=[exp.alias_(e.copy(), f"f{i}")
                                                 for i, e in enumerate(node.expressions, 1)]))
    for node in indexed:   # sqlglot holds a literal index 0-based
        node.replace(exp.Dot(this=node.this.copy(), expression=exp.to_identifier(f"f{int(node.expressions[0].this) + 1}")))


def _row_in(tree: exp.Expression) -> None:
    """``row(a, b) IN (SELECT x FROM t)``, or a named struct ``{'a': a, 'b': b}`` there: Spark
    matches a struct on the left of ``IN`` against as many columns of the subquery, so the
    subquery selects ``x.*``."""
    for node in list(tree.find_all(exp.In)):
        query = node.args.get("query")
        left = node.this
        is_row = isinstance(left, exp.Struct) or isinstance(left, exp.Anonymous) and left.name.lower() == "row"
        if (query is None or not is_row
                or not isinstance(query.this, exp.Select) or len(query.this.selects) != 1):
            continue
        column = query.this.selects[0]
        if isinstance(column, exp.Column):
            column.replace(exp.Column(this=exp.Star(), table=exp.to_identifier(column.name)))


def _row(tree: exp.Expression) -> None:
    for node in list(tree.find_all(exp.Anonymous)):
        if node.name.lower() == "row":
            node.replace(exp.Anonymous(this="struct", expressions=node.expressions))


def _row_text(tree: exp.Expression) -> None:
    """A row cast to text (a draw over several values) spelled out as DuckDB writes it (table above)."""
    for node in list(tree.find_all(exp.Cast)):
        if isinstance(node.this, exp.Tuple) and node.to.is_type(*exp.DataType.TEXT_TYPES):
            parts: list[exp.Expression] = [exp.Literal.string("(")]
            for i, value in enumerate(node.this.expressions):
                if i:
                    parts.append(exp.Literal.string(", "))
                parts.append(exp.func("coalesce", exp.cast(value.copy(), "VARCHAR"), exp.Literal.string("NULL")))
            parts.append(exp.Literal.string(")"))
            node.replace(exp.Anonymous(this="concat", expressions=parts))


def _named_window_frame(tree: exp.Expression) -> None:
    for select in list(tree.find_all(exp.Select)):
        named = {w.alias_or_name: w for w in select.args.get("windows") or []}
        for window in list(select.find_all(exp.Window)) if named else []:
            ref = window.args.get("alias")
            if ref is not None and window.args.get("spec") is not None and ref.name in named:
                base = named[ref.name]
                window.set("alias", None)
                window.set("partition_by", [p.copy() for p in base.args.get("partition_by") or []] or None)
                if base.args.get("order"):
                    window.set("order", base.args["order"].copy())


def _ordered_list(tree: exp.Expression) -> None:
    for node in list(tree.find_all(exp.ArrayAgg)):
        if isinstance(node.this, exp.Order):
            order = node.this
            if isinstance(order.this, exp.Distinct):   # list(DISTINCT x ORDER BY x): the sorted set
                value = order.this.expressions[0]
                if len(order.expressions) != 1 or order.expressions[0].this != value or order.expressions[0].args.get("desc"):
                    raise ValueError(f"no Spark form for this ordered distinct list: {node.sql('duckdb')}")
                node.replace(exp.Anonymous(this="array_sort", expressions=[exp.Anonymous(this="collect_set",
                                                                                        expressions=[value.copy()])]))
                continue
            filtered = node.parent if isinstance(node.parent, exp.Filter) else None   # FILTER goes on the aggregate
            ordered = _values_by(order.this, order.expressions, filtered.expression if filtered is not None else None)
            if filtered is not None:   # no row passes: NULL, as DuckDB's list (collect_list: [])
                ordered = exp.Nullif(this=ordered, expression=exp.Array(expressions=[]))
            (filtered or node).replace(ordered)
    for node in list(tree.find_all(exp.Bracket)):
        if node.expressions and isinstance(node.expressions[0], exp.Slice):
            lo, hi = node.expressions[0].this, node.expressions[0].expression
            length = exp.Add(this=exp.Sub(this=exp.paren(hi.copy()), expression=exp.paren(lo.copy())),
                             expression=exp.Literal.number(1))
            node.replace(exp.Anonymous(this="slice", expressions=[node.this.copy(), lo.copy(), length]))


def _whole_rows(tree: exp.Expression) -> None:
    """A table's row as an aggregate's value (``list(r)``, ``arg_min(r, ..)``): ``struct(r.*)``."""
    ctes = {c.alias: c.this for c in tree.find_all(exp.CTE)}
    for node in list(tree.find_all(exp.Column)):
        if node.table or not isinstance(node.this, exp.Identifier) or \
                not (isinstance(node.parent, exp.ArrayAgg) or (isinstance(node.parent, (exp.ArgMin, exp.ArgMax))
                                                                and node.arg_key == "this")):
            continue
        select = node.find_ancestor(exp.Select)
        sources = [select.args.get("from_")] + list(select.args.get("joins") or []) if select else []
        if node.name in {s.this.alias_or_name for s in sources if s is not None} and \
                node.name not in getattr(ctes.get(node.name), "named_selects", ()):   # not a column of its own
            node.replace(exp.Struct(expressions=[exp.Column(this=exp.Star(), table=exp.to_identifier(node.name))]))


def _written_in_order(tree: exp.Expression) -> None:
    """``CREATE TABLE .. AS SELECT .. ORDER BY k1, k2, ..`` (no LIMIT) as ``.. DISTRIBUTE BY k1
    SORT BY k1, k2, ..``: Spark writes a table partition by partition and reads it back in no
    promised order, so a global sort buys nothing a reader can rely on, and costs a job that
    reads the whole input to sample its range bounds (a published snapshot: one more pass over
    the rows). Rows of equal ``k1`` (a class) still lie together, in the order of the rest."""
    select = tree.expression if isinstance(tree, exp.Create) else None
    if not isinstance(select, exp.Select) or select.args.get("limit") or not select.args.get("order"):
        return
    keys = select.args["order"].expressions
    select.set("order", None)
    select.set("distribute", exp.Distribute(expressions=[keys[0].this.copy()]))
    select.set("sort", exp.Sort(expressions=keys))


def _top_n(tree: exp.Expression) -> None:
    for node in list(tree.find_all(exp.ArgMin, exp.ArgMax)):
        if node.args.get("count") is None:
            continue
        key = exp.Ordered(this=node.expression, desc=isinstance(node, exp.ArgMax))
        node.replace(_values_by(node.this, [key], limit=node.args["count"]))


def _values_by(value: exp.Expression, keys: list[exp.Ordered], where: exp.Expression | None = None,
               limit: exp.Expression | None = None) -> exp.Expression:
    """The values of ``value`` over the group (the rows ``where`` keeps) as a list in the order
    of ``keys`` (the first ``limit``): ``transform([slice(]array_sort(collect_list(struct(k0, ..,
    v))[, comparator])[, 1, limit]), s -> s.v)``."""
    pairs: exp.Expression = exp.ArrayAgg(this=exp.Struct(
        expressions=[exp.alias_(k.this.copy(), f"k{i}") for i, k in enumerate(keys)] + [exp.alias_(value.copy(), "v")]))
    if where is not None:
        pairs = exp.Filter(this=pairs, expression=where.copy())
    ordered: exp.Expression = exp.Anonymous(this="array_sort", expressions=[pairs] + (
        [_comparator(keys)] if any(k.args.get("desc") for k in keys) else []))
    if limit is not None:
        ordered = exp.Anonymous(this="slice", expressions=[ordered, exp.Literal.number(1), limit.copy()])
    return exp.Transform(this=ordered, expression=exp.Lambda(this=exp.column("v", table="s"),
                                                             expressions=[exp.to_identifier("s")]))


def _comparator(keys: list[exp.Ordered]) -> exp.Expression:
    """``(a, b) -> -1, 0 or 1`` ordering structs ``(k0, k1, ...)`` as the keys of ``list(x
    ORDER BY ...)`` say (a descending key: array_sort alone sorts every field ascending);
    NULLs last unless a key says NULLS FIRST, as DuckDB orders them."""
    cases = []
    for i, key in enumerate(keys):
        a, b = f"a.k{i}", f"b.k{i}"
        first = -1 if key.args.get("nulls_first") else 1
        before, after = (">", "<") if key.args.get("desc") else ("<", ">")
        cases += [f"WHEN {a} IS NULL AND {b} IS NOT NULL THEN {first}", f"WHEN {a} IS NOT NULL AND {b} IS NULL THEN {-first}",
                  f"WHEN {a} {before} {b} THEN -1", f"WHEN {a} {after} {b} THEN 1"]
    return sqlglot.parse_one(f"SELECT array_sort(x, (a, b) -> CASE {' '.join(cases)} ELSE 0 END)",
                             read="spark").selects[0].expression


def _element(tree: exp.Expression) -> None:
    """A list's 1-based ``l[i]`` as ``try_element_at(l, i)``; a map's ``m[k]`` stays (Spark's
    subscript of a map is its value at ``k``, NULL where it has none, as DuckDB's)."""
    for node in list(tree.find_all(exp.Bracket)):
        index = node.expressions[0] if len(node.expressions) == 1 else None
        if (index is None or isinstance(index, exp.Slice) or (isinstance(index, exp.Literal) and index.is_string)
                or isinstance(node.this, exp.Map)):
            continue
        if isinstance(index, exp.Literal):   # sqlglot holds a literal index 0-based, an expression as written
            index = exp.Literal.number(int(index.this) + 1)
        node.replace(exp.Anonymous(this="try_element_at", expressions=[node.this.copy(), exp.cast(index.copy(), "INT")]))


def _nested_ctes(tree: exp.Expression) -> None:
    """A CTE of a ``WITH`` nested in a CTE or subquery (a model's check inside the checks'
    statement) whose name another CTE of the statement has too: renamed within its query,
    each reference keeping the old name as its alias (sqlglot writes every CTE at the top)."""
    withs = list(tree.find_all(exp.With))
    names = [cte.alias_or_name for w in withs for cte in w.expressions]
    for k, with_ in enumerate(withs):
        if with_.parent is None or with_.parent.find_ancestor(exp.CTE, exp.Subquery) is None:
            continue
        for cte in with_.expressions:
            old = cte.alias_or_name
            if names.count(old) < 2:
                continue
            new = exp.to_identifier(f"{old}__{k}")
            cte.args["alias"].set("this", new)
            for ref in with_.parent.find_all(exp.Table):
                if ref.name == old and not ref.db and not ref.catalog:
                    ref.set("alias", ref.args.get("alias") or exp.TableAlias(this=exp.to_identifier(old)))
                    ref.set("this", new.copy())


def _one_unnest(tree: exp.Expression) -> None:
    """Refuse a SELECT that unnests two lists: DuckDB zips them, Spark pairs every element
    with every other, a silent difference (write one unnest of an index, as levels.sql.j2)."""
    for select in tree.find_all(exp.Select):
        if sum(isinstance(e.unalias(), (exp.Explode, exp.Unnest)) for e in select.selects) > 1:
            raise ValueError("a SELECT unnests two lists: DuckDB zips them, Spark would pair them all")


def _materialized(tree: exp.Expression) -> None:
    """``WITH x AS MATERIALIZED``: the hint goes (Spark reuses a CTE's exchange where it can)."""
    for cte in tree.find_all(exp.CTE):
        if cte.args.get("materialized") is not None:
            cte.set("materialized", None)
