"""What an engine can do, declared by the engine and asked by its callers.

Each engine class carries one :class:`Capabilities` record (``engine.capabilities``):
:data:`DUCKDB` for :class:`~anonymizer.engine.session.Engine`, :data:`SPARK` for
:class:`~anonymizer.engine.spark.SparkEngine`. The pipeline, the plan and the families ask
it what to do (run a loop as one recursive statement, gate a re-publication, refuse an
output), and never compare an engine's name: that stays inside :mod:`anonymizer.engine`,
as a dialect's rules stay in its dialect class in sqlglot and a backend's unsupported
operations in its backend in ibis (``tests/project/test_layout.py`` checks it). How a
template is rendered for the engine is the engine's too (:meth:`Engine.sql`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Capabilities:
    """What one engine can do.

    Attributes:
        recursive_loops: a loop that repeats rounds (LGB's local bucketization, Mondrian's
            rounds) can run as one recursive CTE whose working table is keyed (``USING KEY``);
            without it the loop runs round by round from Python.
        asof_in_recursive: an ASOF join (t-closeness under the ordered distance) can stand
            inside such a recursive CTE. DuckDB 2.0 refuses it there and, on small inputs,
            drops rows (see :func:`~anonymizer.models.check.uses_asof_join`).
        rowid: a table has a ``rowid`` pseudo-column, its rows' order in storage.
        table_layout: the engine lays out a release's tables as ``output.format`` and
            ``output.partition_by`` say (without it they are refused).
        drops_stale_work: a run starts by dropping the ``_anon_work_<id>`` schemas that killed
            runs of earlier versions left in the database.
        output_database: a release can be published into another database file
            (``output.database``).
        export: a published release can be copied to one file (``output.export``).
        aggregates_apart: work over an aggregate of the rows (the QIs' values for their
            hierarchies, Mondrian's cells) runs cheaper on another engine, the one
            :meth:`~anonymizer.engine.session.Engine.for_aggregate` gives (Spark: its driver's DuckDB),
            than as statements of this one.
        publishes_in_place: a release's per-row candidate is written beside its snapshots and
            renamed into its snapshot when it publishes (:func:`~anonymizer.release.in_place.placed`),
            where copying it would read and write every row again (Spark; DuckDB copies it in the
            publishing transaction, from its in-memory work database).
        lateral_range: a row repeats by a count of its own (``FROM t, range(t.n)``), so a table of
            counts stands for the rows it counts (DuckDB; Spark's table functions read no column
            of a table beside them).
        temp_schema: the schema a connection's temporary views live in, as the parts of its
            name (DuckDB's ``temp.main``; a temporary view of Spark's has a one-part name).
        differential: a differentially private release runs here (SafePub, dp-aggregates:
            their keyed sample and draws, their noisy cells, their ledger), tested on it.
    """

    recursive_loops: bool
    asof_in_recursive: bool
    rowid: bool
    table_layout: bool
    drops_stale_work: bool
    output_database: bool
    export: bool
    aggregates_apart: bool = False
    publishes_in_place: bool = False
    lateral_range: bool = True
    differential: bool = True
    temp_schema: tuple[str, ...] = ("temp", "main")

    def one_statement(self, asof: bool = False) -> bool:
        """Whether a loop can run as one recursive statement, its checks holding an ASOF join
        if ``asof``."""
        return self.recursive_loops and (self.asof_in_recursive or not asof)


#: DuckDB, embedded: recursive CTEs with ``USING KEY`` (no ASOF join inside one), a
#: ``rowid``, its own storage layout, output files
DUCKDB = Capabilities(recursive_loops=True, asof_in_recursive=False, rowid=True, table_layout=False,
                      drops_stale_work=True, output_database=True, export=True)

#: Apache Spark: loops round by round, no ``rowid``, tables laid out as the spec says,
#: releases in its catalog only (no other database file, no export), aggregates on its driver
SPARK = Capabilities(recursive_loops=False, asof_in_recursive=False, rowid=False, table_layout=True,
                     drops_stale_work=False, output_database=False, export=False,
                     aggregates_apart=True, publishes_in_place=True, lateral_range=False, temp_schema=(),
                     differential=False)
