"""Every example spec, run with a seed, publishes the same rows as when the fixture was
recorded: a refactoring of the pipeline changes no published table. Each release's rows
(and each of its part views) are read back, sorted and hashed; the digest, the row counts and
the audit's figures are compared with ``tests/fixtures/example_releases.json``.

Adult specs run on the bundled Adult file (30,162 rows) (the spec's own hierarchy
files), the patients specs on a generated table of 200 patients. When a change is meant to
change what a release publishes, record anew and review the diff::

    ANONYMIZER_RECORD_RELEASES=1 python -m pytest tests/release/test_examples_published.py
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import duckdb
import pytest
import yaml

from anonymizer import anonymize
from anonymizer.datasets.flagged import flagged_adult
from anonymizer.datasets.patients import patients
from anonymizer.demo import load_adult
from anonymizer.reproduce.p004_identity_reserved.worked_example import load_table2

ROOT = Path(__file__).resolve().parents[2]
#: the differentially private examples: never seeded, so never the same rows twice (their draws
#: are the guarantee); tests/families/generalized/test_safepub.py, tests/families/aggregates and
#: the docs walk (docs/differential-privacy.md) run them
DIFFERENTIAL = ("adult_safepub", "adult_dp_counts")
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yml") if p.stem not in DIFFERENTIAL)
FIXTURE = ROOT / "tests" / "fixtures" / "example_releases.json"
RECORD = os.environ.get("ANONYMIZER_RECORD_RELEASES") == "1"
SEED = 7


def _spec(path: Path) -> dict:
    """The example as a dict, seeded (its relative paths read from the example's folder); one
    seeded already keeps its seed (Table 2's reproduces the paper's draws); published into the
    test's own database (no output.database or export file written beside the examples)."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    algorithm = spec.get("algorithm", {"name": "mondrian"})
    algorithm = algorithm if isinstance(algorithm, dict) else {"name": algorithm}
    spec["algorithm"] = {"seed": SEED, **algorithm}
    if isinstance(spec.get("output"), dict):   # the rows are compared here, not where else they would go
        spec["output"] = {k: v for k, v in spec["output"].items() if k not in ("database", "export")}
    return spec


def _source(con: duckdb.DuckDBPyConnection, spec: dict, path: Path) -> None:
    """The example's source in ``con``: its file, the table its comment says how to create, or
    200 generated patients."""
    source = spec["source"]
    makers = {"adult": load_adult, "adult_flagged": flagged_adult, "patients_table2": load_table2}
    if source["table"] in makers and "path" not in source:
        makers[source["table"]](con)
    elif "path" in source:
        file = (path.parent / source["path"]).resolve()
        delimiter = source.get("delimiter", ",")
        con.execute(f"CREATE TABLE {source['table']} AS SELECT * FROM read_csv('{file}', delim='{delimiter}', "
                    "header=true)")
        spec["source"] = {"table": source["table"]}
    else:
        patients(con, source["table"], individuals=200, seed=1)


def _digest(con: duckdb.DuckDBPyConnection, view: str) -> tuple[int, str]:
    rows = sorted(repr(tuple(round(v, 9) if isinstance(v, float) else str(v) for v in row))
                  for row in con.execute(f"SELECT * FROM {view}").fetchall())
    return len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def _published(path: Path) -> dict:
    spec = _spec(path)
    con = duckdb.connect()
    _source(con, spec, path)
    result = anonymize(spec, con)
    views = {v: _digest(con, v) for v in [result.view, *result.views]}
    return {"rows_out": result.rows_out, "suppressed": result.suppressed, "classes": result.classes,
            "views": {v: list(d) for v, d in views.items()}}


def _recorded() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.exists() else {}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_publishes_what_it_did(path, monkeypatch):
    monkeypatch.chdir(path.parent)
    found = _published(path)
    if RECORD:
        recorded = _recorded()
        recorded[path.stem] = found
        FIXTURE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert found == _recorded()[path.stem]


def test_every_example_is_recorded():
    assert sorted(_recorded()) == sorted(p.stem for p in EXAMPLES)
