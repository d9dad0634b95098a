"""The adversary of issue 15: holds every published view, the audit table and this code.

Each attack reads only what is published (views, audit rows) plus what a prosecutor knows of
the population: every person's name and quasi-identifiers, and so the position of each
person in the source (the source is sorted by name). The scorers compare the attacks'
guesses with the truth through the ``tag`` column, a unique random label that the source
carries and the release passes through; no attack reads it.

Chance levels: a guess that is independent of the truth links a published row to its person
with probability 1/|class| inside a class (one expected hit per class: the fixed points of a
random permutation), and recovers a bucketed value of an LGB bucket b with probability
n_s/|b| (Lemma 2 of paper 000). A test fails when an attack beats chance by more than
``MARGIN`` standard deviations.
"""

from __future__ import annotations

import json
import math

import duckdb
import pandas as pd

MARGIN = 5.0


def beyond_chance(hits: float, expected: float) -> bool:
    """Whether ``hits`` exceeds a count of mean ``expected`` (variance <= mean) by more than
    MARGIN standard deviations (plus one, for tiny means)."""
    return hits > expected + MARGIN * math.sqrt(max(expected, 1.0)) + 1


def view_rows(con: duckdb.DuckDBPyConnection, view: str) -> pd.DataFrame:
    """The published view as a reader scans it, in the order it comes (``pos``)."""
    frame = con.execute(f"SELECT * FROM {view}").df()
    frame["pos"] = range(len(frame))
    return frame


def audit_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    cur = con.execute("SELECT * FROM _anon_releases._audit")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def seeds_in(audit: list[dict]) -> list[int]:
    """Every seed the audit shows (parameters.algorithm.seed), and 0: the documented default."""
    found = {0}
    for row in audit:
        params = json.loads(row["parameters"]) if isinstance(row["parameters"], str) else row["parameters"]
        seed = (params.get("algorithm") or {}).get("seed")
        if isinstance(seed, int):
            found.add(seed)
    return sorted(found)


def order_link(frame: pd.DataFrame, class_col: str, members: pd.DataFrame) -> pd.Series:
    """Link each published row to a person by order: inside each class, the i-th row as the
    view shows it is guessed to be the class's i-th member in source order. ``members``:
    (class, person's source position, person) as the adversary knows them. Returns the
    guessed person per published row (index of ``frame``)."""
    guesses = {}
    for cls, rows in frame.groupby(class_col, sort=False):
        people = members[members["class"] == cls].sort_values("position")["person"].tolist()
        for idx, person in zip(rows.sort_values("pos").index, people):
            guesses[idx] = person
    return pd.Series(guesses)


def id_link(frame: pd.DataFrame, id_col: str, people_in_order: list) -> pd.Series:
    """Guess that the published id is the person's position in the source (0- or 1-based:
    the better of the two)."""
    best = None
    for base in (0, 1):
        guess = frame[id_col].map(lambda i: people_in_order[int(i) - base] if 0 <= int(i) - base < len(people_in_order)
                                  else None)
        if best is None or guess.notna().sum() > best.notna().sum():
            best = guess
    return best


def lgb_replay(con: duckdb.DuckDBPyConnection, view: str, attr: str, seed: int) -> pd.DataFrame:
    """Undo the permutation of one attribute's local buckets by replaying the dealing that
    the code holds: rows ranked by hash(row_id, seed, 1), values by hash(row_id, seed, 2)
    inside each bucket; the value a row really has is the one shown in the row whose first
    rank equals its second. Returns (row_id, guess)."""
    return con.execute(f"""
        WITH b AS (
            SELECT row_id, "{attr}_bid" AS bid, "{attr}" AS shown,
                   row_number() OVER (PARTITION BY "{attr}_bid" ORDER BY hash(row_id, $seed, 1), row_id) AS k1,
                   row_number() OVER (PARTITION BY "{attr}_bid" ORDER BY hash(row_id, $seed, 2), row_id) AS k2
            FROM {view} WHERE "{attr}_bid" IS NOT NULL)
        SELECT x.row_id, y.shown AS guess FROM b AS x JOIN b AS y ON y.bid = x.bid AND y.k1 = x.k2
    """, {"seed": seed}).df()


def id_num_replay(con: duckdb.DuckDBPyConnection, people: str, person_col: str, seed: int) -> dict:
    """Re-derive Id_num from the list of identifiers as the code numbers them: the rank of
    hash(hash(identifier) + seed). Returns identifier -> guessed id_num."""
    rows = con.execute(f"""
        SELECT {person_col}, row_number() OVER (ORDER BY hash(hash({person_col}::VARCHAR) + $seed::UBIGINT),
                                                 {person_col}::VARCHAR) AS id_num
        FROM (SELECT DISTINCT {person_col} FROM {people})""", {"seed": seed}).fetchall()
    return dict(rows)


def narrowed_since_change(con: duckdb.DuckDBPyConnection, candidates: list[str], l: int) -> int:
    """Issue 36's intersection attack over ``candidates``, one query per version ``(pid,
    diagnosis, night, cand)``: a person's candidate lists, intersected over the versions
    since their diagnosis last changed (the adversary knows when it changed, not to what);
    returns how many such runs fall below ``l`` values."""
    (below,) = con.execute(f"""
        WITH c AS ({' UNION ALL '.join(candidates)}),
        runs AS (SELECT *, sum(changed::INTEGER) OVER (PARTITION BY pid ORDER BY night) AS run
                 FROM (SELECT *, diagnosis IS DISTINCT FROM lag(diagnosis) OVER (PARTITION BY pid ORDER BY night)
                              AS changed FROM c))
        SELECT count(*) FROM (SELECT pid, list_reduce(list(cand), lambda x, y: list_intersect(x, y)) AS cand
                              FROM runs GROUP BY pid, run) WHERE len(cand) < {l}""").fetchone()
    return below


def night_of_returns(con: duckdb.DuckDBPyConnection, night: int, back: bool = True, *, leave: float = 0.05,
                     joiners: int = 400, change: float = 0.02, seed: int = 1) -> None:
    """One night of issue 36's churn on table ``people`` (by default 5 % leave, 400 join, 2 %
    change); with ``back``, the people who left on night 1 come back on night 2 with their values."""
    from anonymizer.datasets.churn import churn
    con.execute("CREATE OR REPLACE TABLE before AS SELECT * FROM people")
    churn(con, night=night, leave=leave, joiners=joiners, change=change, seed=seed)
    if back and night == 1:
        con.execute("CREATE TABLE gone AS SELECT * FROM before ANTI JOIN people USING (pid)")
    if back and night == 2:
        con.execute("INSERT INTO people SELECT * FROM gone")


def publish_nights(con: duckdb.DuckDBPyConnection, release, truth: str, nights: int, back: bool = False,
                   after=None, night=night_of_returns, **churn) -> list:
    """Publish up to ``nights`` versions by ``release()`` (a no-argument call of anonymize),
    with ``night`` (:func:`night_of_returns`, or :func:`patients_night`; ``churn``: its leave,
    joiners, change, seed) between them, and each night's ``truth`` copied to ``truth_<night>``. A refused version must publish
    nothing (the audit keeps its rows) and ends the sequence; ``after(night, result)`` runs
    after each published one. Returns ``[(result, truth table)]``."""
    from anonymizer.errors import AnonymizerError
    published = []
    for n in range(nights):
        if n:
            night(con, n, back, **churn)
        con.execute(f"CREATE TABLE truth_{n} AS SELECT * FROM {truth}")
        audited = con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone()[0] if published else 0
        try:
            result = release()
        except AnonymizerError:
            assert not published or con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone()[0] == audited
            break
        if after is not None:
            after(n, result)
        published.append((result, f"truth_{n}"))
    return published


def keep_state(con: duckdb.DuckDBPyConnection, release: str, night: int, r) -> None:
    """Copy aside ``release``'s private state of the version just published (the next run
    keeps only its own) as ``people_<night>`` and ``groups_<night>``: the adversary's
    strongest knowledge, each person's group (a test first checks it against what the
    version published)."""
    for part in ("people", "groups"):
        con.execute(f"CREATE TABLE {part}_{night} AS SELECT * FROM _anon_state.{release}__{part} "
                    f"WHERE version = {r.version}")


def group_intersection_attack(con: duckdb.DuckDBPyConnection, published: list, l: int) -> int:
    """People whose group's values, intersected over the versions since their value (the
    truth tables' ``diagnosis``) last changed, fall below ``l`` (states kept by :func:`keep_state`)."""
    parts = [f"""SELECT p.pid, t.diagnosis, {n} AS night, list(DISTINCT g.value) AS cand
                 FROM people_{n} p JOIN groups_{n} g USING (gid) JOIN {truth} t ON t.pid::VARCHAR = p.pid
                 WHERE p.seen = {r.version} GROUP BY ALL""" for n, (r, truth) in enumerate(published)]
    return narrowed_since_change(con, parts, l)


def group_difference_attack(con: duckdb.DuckDBPyConnection, published: list, l: int) -> int:
    """Sides of a difference holding fewer than ``l`` values: for two versions and a person
    whose value stood between them (and who was in both), their two groups' multiset difference."""
    narrowing = 0
    for i, (a, ta) in enumerate(published):
        for j, (b, tb) in enumerate(published[i + 1:], i + 1):
            between = "".join(f" ANTI JOIN {t} AS m{n} ON m{n}.pid = x.pid AND m{n}.diagnosis <> x.diagnosis"
                              for n, (_, t) in enumerate(published[i + 1:j]))
            (n,) = con.execute(f"""
                WITH stood AS (SELECT x.pid::VARCHAR AS pid FROM {ta} AS x JOIN {tb} AS y USING (pid, diagnosis){between}),
                pairs AS (SELECT DISTINCT pa.gid AS ga, pb.gid AS gb FROM stood s
                          JOIN people_{i} pa ON pa.pid = s.pid AND pa.seen = {a.version}
                          JOIN people_{j} pb ON pb.pid = s.pid AND pb.seen = {b.version}),
                d AS (SELECT ga, gb, value, sum(n) AS d FROM (
                        SELECT p.ga, p.gb, g.value, g.n FROM pairs p JOIN groups_{j} g ON g.gid = p.gb
                        UNION ALL SELECT p.ga, p.gb, g.value, -g.n FROM pairs p JOIN groups_{i} g ON g.gid = p.ga)
                      GROUP BY ALL HAVING sum(n) <> 0)
                SELECT count(*) FROM (SELECT ga, gb, d > 0, count(*) AS vals FROM d GROUP BY ALL) WHERE vals < {l}
                """).fetchone()
            narrowing += n
    return narrowing


def patients_night(con: duckdb.DuckDBPyConnection, night: int, back: bool = False, *, leave: float = 0.05,
                   joiners: int = 20, change: float = 0.02, seed: int = 1, **options) -> None:
    """One night of issue 36's churn on paper 004's multi-record table ``patients``
    (:func:`anonymizer.datasets.patients.churn`, joiners generated with ``options``); with
    ``back``, those who left on night 1 come back on night 2 with their records."""
    from anonymizer.datasets.patients import churn
    con.execute("CREATE OR REPLACE TABLE before AS SELECT * FROM patients")
    churn(con, "patients", night=night, leave=leave, joiners=joiners, change=change, seed=seed, **options)
    if back and night == 1:
        con.execute("CREATE TABLE gone AS SELECT * FROM before ANTI JOIN patients USING (patient_id)")
    if back and night == 2:
        con.execute("INSERT INTO patients SELECT * FROM gone")
