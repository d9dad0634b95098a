"""A statement that runs long is reported while it runs (anonymizer.engine.heartbeat): the
algorithm phase of a release may be one statement, and no phase may look stalled."""

from __future__ import annotations

import time

import duckdb
import pytest

from anonymizer.engine.heartbeat import WORDS, Heartbeat, in_words
from anonymizer.resources import TEMPLATES, resource_dir
from anonymizer.engine.session import Engine


def _engine(every: float) -> tuple[Engine, list[str]]:
    said: list[str] = []
    engine = Engine(duckdb.connect(), progress=said.append)
    engine._beat = Heartbeat(engine, said.append, every=every)
    return engine, said


@pytest.mark.slow
def test_a_long_statement_is_reported_while_it_runs():
    engine, said = _engine(every=0.2)
    start = time.monotonic()
    engine.execute("SELECT count(DISTINCT i), median(i) FROM range(30000000) AS r(i)",
                   template="families/generalized/mondrian/rounds.sql.j2").fetchall()
    took = time.monotonic() - start
    beats = [m for m in said if m.startswith("partitioning the rows (Mondrian): still running, ")]
    assert took < 0.4 or beats   # (a machine that runs it in under two beats has nothing to report)
    assert len(beats) <= took / 0.2 + 1


def test_short_statements_are_not_reported():
    engine, said = _engine(every=0.5)
    for _ in range(50):
        engine.execute("SELECT 1", template="fast.sql.j2").fetchall()
    time.sleep(0.7)   # the watcher has looked more than once since
    assert said == []


def test_without_a_progress_callback_there_is_no_watcher():
    engine = Engine(duckdb.connect())
    engine.execute("SELECT 1").fetchall()
    assert engine._beat is None


def test_python_work_between_statements_is_watched_too():
    engine, said = _engine(every=0.2)
    with engine.watch("msb: the greedy phases"):
        time.sleep(0.7)
    assert any(m.startswith("msb: the greedy phases: still running, ") for m in said)


def test_every_template_folder_is_said_in_words():
    """Every folder holding a template a run executes has its words (no path reaches the
    user); a label is said as given."""
    root = resource_dir(TEMPLATES)
    folders = {p.parent.relative_to(root).as_posix().removeprefix("dialects/spark/")
               for p in root.rglob("*.sql.j2") if not p.name.startswith("_")}
    unsaid = sorted(f for f in folders if in_words(f + "/x.sql.j2") == "running a statement")
    assert unsaid == [], unsaid
    assert in_words("versions/combination/people.sql.j2") == WORDS["versions/combination"]
    assert in_words("dialects/spark/families/generalized/mondrian/x.sql.j2") == WORDS["families/generalized/mondrian"]
    assert in_words("msb: the greedy phases") == "msb: the greedy phases"
    assert in_words("<inline>") == "running a statement"
