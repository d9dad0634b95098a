"""The rows of the tables a release writes on Spark, counted as they are written.

A ``CREATE TABLE t [USING f] [PARTITIONED BY (..)] AS SELECT ...`` runs as the query's
``DataFrame`` saved as table ``t``, observed on the way (``DataFrame.observe``): the write's own tasks count its rows, so no later
job reads the table again only to count it (:meth:`Written.rows`). The engine then copies a
work table of known size to its driver with one plain collect (a ``LIMIT`` would first shuffle
the whole table into one partition, as much as the collect itself), or refuses it unread when
it is above the driver's bound. The same write takes further aggregates where asked
(:meth:`Written.observe`): a published snapshot's figures, taken as its write reads the
candidate, so that only the snapshot is scanned again to compare
(:meth:`anonymizer.engine.session.Engine.write_counted`). A sorted write of one table whose
rows are known and few (:data:`ONE_TASK_ROWS`) sorts them in one task, with no shuffle
(:meth:`Written.in_one_task`).

A count is forgotten as soon as a statement other than such a write names the table as its
target (an insert, a drop, a replacement): a known count is always the table's.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import TokenType

from anonymizer.engine.spark_session import is_connect

#: the most rows a sorted CTAS of one table sorts in one task (:meth:`Written.in_one_task`): as
#: many as a table the driver holds (``spark_driver.DRIVER_CELLS``)
ONE_TASK_ROWS = 2_000_000

#: statements that change a table's rows or drop it: its count is forgotten
_CHANGES = (exp.Insert, exp.Delete, exp.Update, exp.Merge, exp.Alter, exp.Create)


def _key(table: exp.Table) -> tuple[str, ...]:
    """A table's name parts, lower-cased (Spark's catalog is case-insensitive)."""
    return tuple(part.name.lower() for part in table.parts)


def _query_text(statement: str) -> str:
    """The query of a ``CREATE TABLE .. AS <query>``, as the statement spells it (sqlglot's
    own writing of the tree is not always Spark SQL Spark reads back): what follows the
    first ``AS`` outside parentheses."""
    depth = 0
    for token in Spark().tokenize(statement):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)
        if token.token_type == TokenType.ALIAS and depth == 0:
            return statement[token.end + 1:].strip()
    raise ValueError(f"no query in {statement[:80]!r}")   # plain_ctas read a query: unreachable


class Written:
    """Row counts of the tables this engine wrote with a plain CTAS, by name."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, ...], int] = {}
        self._copies: set[tuple[str, ...]] = set()   # those of _rows copied from the driver (copied)
        self._figures: list[str] = []   # what the next write observes beside its rows (observe)
        self._observed: tuple | None = None

    def plain_ctas(self, statement: str) -> tuple[exp.Table, str, str | None, list[str]] | None:
        """The target, the query (Spark SQL), the ``USING`` format (or ``None``) and the
        ``PARTITIONED BY`` columns of ``statement`` when it is a ``CREATE TABLE t AS <query>``
        with no other clause (``IF NOT EXISTS``, ``OR REPLACE``, table properties: those stay
        SQL statements); ``None`` otherwise, the count of any table it changes forgotten."""
        try:
            tree = sqlglot.parse_one(statement, read="spark")
        except sqlglot.errors.ParseError:   # a statement sqlglot does not read (SET, CACHE ...): no table's rows
            return None
        clauses = tree.args.get("properties")
        clauses = clauses.expressions if clauses else []
        if (isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE"
                and isinstance(tree.this, exp.Table) and isinstance(tree.expression, exp.Query)
                and all(isinstance(c, (exp.FileFormatProperty, exp.PartitionedByProperty)) for c in clauses)
                and not tree.args.get("exists") and not tree.args.get("replace")):
            self.forget(tree.this)
            using = next((c.name.lower() for c in clauses if isinstance(c, exp.FileFormatProperty)), None)
            by = next((c.this.expressions for c in clauses if isinstance(c, exp.PartitionedByProperty)), [])
            return tree.this, _query_text(statement), using, [c.name for c in by]
        if isinstance(tree, exp.Drop):   # DROP TABLE: the table; DROP DATABASE: every table in it
            whole = str(tree.args.get("kind", "")).upper() in ("SCHEMA", "DATABASE")
            for gone in map(_key, tree.args.get("tables") or [t for t in [tree.this] if isinstance(t, exp.Table)]):
                self._rows = {k: n for k, n in self._rows.items() if (k[:len(gone)] if whole else k) != gone}
            self._copies &= set(self._rows)
        elif isinstance(tree, _CHANGES):
            target = tree.this if isinstance(tree.this, exp.Table) else tree.find(exp.Table)
            if target is not None:
                self.forget(target)
        return None

    def forget(self, table: exp.Table) -> None:
        """``table`` was written another way, changed or dropped: its rows are not known."""
        self._rows.pop(_key(table), None)
        self._copies.discard(_key(table))

    def observe(self, figures: list[str]) -> None:
        """Take the aggregates ``figures`` (Spark SQL expressions, each named) over the rows of
        the next plain CTAS's write; read them with :meth:`observed`."""
        self._figures, self._observed = figures, None

    def observed(self) -> tuple | None:
        """What :meth:`observe` asked of the write that ran since, once; ``None``: no write ran."""
        found, self._figures, self._observed = self._observed, [], None
        return found

    @property
    def figures(self) -> list[str]:
        """What the next write observes beside its rows (:meth:`observe`)."""
        return self._figures

    def wrote(self, table: exp.Table, rows: int, figures: tuple | None = None) -> None:
        """``table`` was just written with ``rows`` rows, and, where :meth:`observe` asked, ``figures``."""
        self._rows[_key(table)] = rows
        self._copies.discard(_key(table))
        if figures is not None:
            self._observed = figures

    def in_one_task(self, query: str) -> str:
        """``query`` (a CTAS's, in Spark SQL) read into one partition and sorted there
        (``COALESCE(1)``, no shuffle: a total order in one file), where it copies the columns
        of one table copied from the driver (:meth:`copied`), of at most :data:`ONE_TASK_ROWS`
        rows, distributed and sorted (:func:`~anonymizer.engine.transpile.to_spark`: a CTAS's
        ``ORDER BY``): a published class table, whose snapshot's distribution shuffled 0.47
        times the source's bytes at 10M rows; otherwise ``query``. The text is edited, never
        written again from sqlglot's tree (:func:`_query_text`)."""
        try:
            tree = sqlglot.parse_one(query, read="spark")
        except sqlglot.errors.ParseError:
            return query
        source = tree.args.get("from_")
        if (not isinstance(tree, exp.Select) or not tree.args.get("distribute") or source is None
                or not isinstance(source.this, exp.Table) or tree.find(exp.With, exp.Subquery, exp.Lateral)
                or any(tree.args.get(k) for k in ("joins", "where", "group", "having", "qualify", "hint", "limit"))
                or not all(isinstance(e.unalias(), exp.Column) for e in tree.expressions)
                or _key(source.this) not in self._copies or self._rows[_key(source.this)] > ONE_TASK_ROWS):
            return query
        tokens = list(Spark().tokenize(query))
        first = next(t for t in tokens if t.token_type == TokenType.SELECT)
        cut = next(t for t in tokens if t.token_type == TokenType.DISTRIBUTE_BY)
        sort = next(t for t in tokens if t.token_type == TokenType.SORT_BY)
        return f"{query[:first.end + 1]} /*+ COALESCE(1) */{query[first.end + 1:cut.start]}{query[sort.start:]}"

    def copied(self, table: exp.Table, rows: int) -> None:
        """``table`` was just written with the driver's ``rows`` rows (:meth:`in_one_task`)."""
        self.wrote(table, rows)
        self._copies.add(_key(table))

    def rows(self, *parts: str) -> int | None:
        """The rows of table ``parts`` (``schema, name``) as its write counted them, or ``None``
        (not written by a plain CTAS of this engine, or changed since)."""
        return self._rows.get(tuple(p.lower() for p in parts))


def run(con, written: Written, statement: str, params: dict | list | None):
    """Run one Spark SQL ``statement`` with the ``params`` it uses; a plain CTAS as its query's
    write, its rows counted by the write into ``written`` (no ``DataFrame`` returned)."""
    args = _args(statement, params)
    plain = written.plain_ctas(statement)
    if plain is None:
        return con.sql(statement, args=args)
    from pyspark.sql import functions as F
    if is_connect(con):
        from pyspark.sql.connect.observation import Observation
    else:
        from pyspark.sql.observation import Observation
    target, query, using, partitioned = plain
    seen, figures = Observation(), written.figures
    frame = con.sql(written.in_one_task(query), args=args)
    frame = frame.observe(seen, F.count(F.lit(1)).alias("__anon_rows"), *map(F.expr, figures))
    writer = frame.write.format(using) if using else frame.write
    (writer.partitionBy(*partitioned) if partitioned else writer).saveAsTable(target.sql("spark"))
    row = seen.get
    written.wrote(target, int(row["__anon_rows"]),
                  tuple(v for k, v in row.items() if k != "__anon_rows") if figures else None)
    return None


def _args(statement: str, params: dict | list | None) -> dict | list | None:
    """The parameters ``statement`` uses (Spark refuses none, but binds only markers it has)."""
    if not params:
        return None
    if isinstance(params, list):
        return [_signed(v) for v in params]
    return {k: _signed(v) for k, v in params.items() if f":{k}" in statement}


def _signed(value):
    """A 64-bit word of bits (DuckDB's ``UBIGINT``, 2^63 or more) as the ``BIGINT`` with the same
    bits, which the transpiler writes for ``UBIGINT`` (Spark has no unsigned type); lists
    item by item."""
    if isinstance(value, list):
        return [_signed(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and 2 ** 63 <= value < 2 ** 64:
        return value - 2 ** 64
    return value
