"""Where the key's marker is replaced on Spark (anonymizer/engine/spark_secret.py: hidden), checked
on the statement's text with a stand-in for the session (no Spark): every marker outside quoted
text, none inside a string or a quoted identifier, no other marker; the key's table written once
and named by a salted hash (no key can be tested against the name)."""

from __future__ import annotations

import hashlib

from anonymizer.engine.spark_secret import hidden
from anonymizer.randomness import ReleaseKey, Secret


class Catalog:
    def __init__(self):
        self.tables: set[str] = set()

    def tableExists(self, name: str) -> bool:   # noqa: N802 - PySpark's name
        return name in self.tables


class Session:
    """What ``kept`` uses of a SparkSession: its catalog and a writer of one-row frames."""

    def __init__(self):
        self.catalog, self.written = Catalog(), []

    def createDataFrame(self, rows, schema):   # noqa: N802 - PySpark's name
        session = self

        class Frame:
            class write:   # noqa: N801
                @staticmethod
                def saveAsTable(name):   # noqa: N802
                    session.written.append((name, rows))
                    session.catalog.tables.add(name)
        return Frame


class Engine:
    def __init__(self):
        self.con = Session()

    def open_work(self) -> str:
        return "_anon_work_0123456789"


def test_the_marker_is_read_from_the_table_outside_quoted_text_only():
    engine, key = Engine(), ReleaseKey.from_seed(3)
    statement = ("SELECT md5(:key || 'row-order') AS `:key`, ':key and :key' AS s, \"it's :key\" AS t, :keys, "
                 "c:key FROM t WHERE md5(:key) > :limit")
    text, params = hidden(engine, statement, key.params(limit=4))
    table = engine.con.written[0][0]
    read = f"(SELECT k FROM {table})"
    assert text == statement.replace("md5(:key ||", f"md5({read} ||").replace("md5(:key)", f"md5({read})")
    assert params == {"limit": 4} and key.secret not in text
    assert len(engine.con.written) == 1 and engine.con.written[0][1] == [(key.secret,)]
    assert hashlib.sha256(key.secret.encode()).hexdigest()[:16] not in table
    again, _ = hidden(engine, "SELECT :key", {"key": Secret(key.secret)})
    assert again == f"SELECT {read}" and len(engine.con.written) == 1   # written once a run


def test_statements_without_a_secret_pass_as_they_are():
    engine = Engine()
    assert hidden(engine, "SELECT :key", {"key": "plain"}) == ("SELECT :key", {"key": "plain"})
    assert hidden(engine, "SELECT ?", [1]) == ("SELECT ?", [1])
    assert engine.con.written == []


def test_an_apostrophe_in_a_comment_opens_no_string():
    """Templates' comments say "the release's key": sqlglot writes them as ``/* .. */`` and a
    statement may keep ``--`` lines; a marker after either is still replaced, none inside one."""
    engine, key = Engine(), ReleaseKey.from_seed(5)
    statement = ("/* the release's key: :key */ SELECT md5(:key) AS a, -- the row's :key\n"
                 "md5(:key || 'x') AS b FROM t /* it's */ WHERE :key <> ''")
    text, _ = hidden(engine, statement, key.params())
    read = f"(SELECT k FROM {engine.con.written[0][0]})"
    assert text == ("/* the release's key: :key */ SELECT md5(" + read + ") AS a, -- the row's :key\n"
                    "md5(" + read + " || 'x') AS b FROM t /* it's */ WHERE " + read + " <> ''")
