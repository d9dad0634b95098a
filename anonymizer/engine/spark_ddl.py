"""The statements Spark's file tables refuse, as statements they take (for
:mod:`.transpile`): ``ALTER TABLE .. ADD COLUMN IF NOT EXISTS`` without the columns the table
has, and ``UPDATE`` and ``DELETE`` as a new table swapped in for the old one."""

from __future__ import annotations

from typing import Callable

import sqlglot
from sqlglot import exp

#: columns of a relation, in order, by its (DuckDB-quoted) name: what star rewrites need
Columns = Callable[[exp.Table], list[str]]


def add_columns(alter: exp.Alter, columns: Columns) -> list[exp.Expression]:
    """``ALTER TABLE t ADD COLUMN IF NOT EXISTS c T``: Spark has no ``IF NOT EXISTS`` there, so
    the columns ``t`` already has (from the catalog) are left out; a table that does not
    exist yet is created by the statement before, with every column."""
    wanted = [a for a in alter.args.get("actions") or [] if isinstance(a, exp.ColumnDef) and a.args.get("exists")]
    if not wanted:
        return [alter]
    try:
        present = {c.lower() for c in columns(alter.this)}
    except Exception:  # noqa: BLE001 - no such table (yet): its CREATE ... IF NOT EXISTS has every column
        return []
    for action in wanted:
        if action.name.lower() in present:
            action.pop()
        else:
            action.set("exists", False)
    return [alter] if alter.args.get("actions") else []


def swap(target: exp.Table, select: exp.Select) -> list[exp.Expression]:
    """``CREATE TABLE t__next AS select; DROP TABLE t; ALTER TABLE t__next RENAME TO t``."""
    bare = target.copy()
    bare.set("alias", None)
    following = bare.copy()
    following.set("this", exp.to_identifier(f"{bare.name}__next", quoted=True))
    create = exp.Create(this=following, kind="TABLE", expression=select)
    rename = sqlglot.parse_one(f"ALTER TABLE {following.sql('spark')} RENAME TO {bare.sql('spark')}", read="spark")
    return [drop(following), create, drop(bare), rename]


def drop(name: exp.Table) -> exp.Expression:
    bare = name.copy()
    bare.set("alias", None)
    return sqlglot.parse_one(f"DROP TABLE IF EXISTS {bare.sql('spark')}", read="spark")


def update_select(update: exp.Update) -> exp.Select:
    """``UPDATE t AS x SET c = e FROM s WHERE p`` as ``SELECT x.* REPLACE (CASE WHEN matched
    THEN e ELSE x.c END AS c) FROM t AS x LEFT JOIN (SELECT *, true AS __hit FROM s) ON p``:
    DuckDB's UPDATE ... FROM takes, for each row of t, the row of s the condition matches
    (the templates match at most one)."""
    target = update.this
    alias = target.alias_or_name
    where = update.args.get("where")
    condition = where.this.copy() if where is not None else exp.true()
    source = update.args.get("from_")
    sets = {e.this.name: e.expression for e in update.expressions}
    select = exp.select().from_(target.copy())
    if source is not None:
        inner = source.this.copy()
        inner_alias = inner.alias_or_name
        inner.set("alias", None)
        hit = exp.select("*", exp.alias_(exp.true(), "__hit")).from_(inner).subquery(inner_alias)
        select = select.join(hit, on=condition, join_type="left")
        matched = exp.column("__hit", table=inner_alias).is_(exp.true())
    else:
        matched = condition
    replaced = [exp.alias_(exp.Case(ifs=[exp.If(this=matched.copy(), true=value.copy())],
                                    default=exp.column(name, table=alias)), name)
                for name, value in sets.items()]
    star = exp.Star(**{"replace": replaced})
    return select.select(exp.Column(this=star, table=exp.to_identifier(alias)), append=False)


def delete_select(delete: exp.Delete) -> exp.Select:
    """``DELETE FROM t WHERE p`` as ``SELECT * FROM t WHERE NOT coalesce(p, false)``."""
    where = delete.args.get("where")
    keep = exp.not_(exp.func("coalesce", exp.paren(where.this.copy()), exp.false())) if where else exp.false()
    return exp.select("*").from_(delete.this.copy()).where(keep)
