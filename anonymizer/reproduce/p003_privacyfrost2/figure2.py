"""Paper 003's worked example, Fig. 2 (section 6.3): the two anonymous tables the
logarithm-based and the eta-based scoring functions generate, and the input we rebuilt
for them.

The paper prints the two outputs only: six records, QIs Birth, Gender, Zip and
Nationality, 2-anonymous. It gives neither the table they come from, nor the priorities
(but that "Nationality is the most valuable attribute" for the log table), nor eta's
``d``, nor the hierarchies. Read row by row (both tables in the same record order), the
two outputs fix every record's Birth, Gender and Nationality and the first four digits of
its Zip:

- the eta table keeps Birth, Gender and Zip's first four digits of every record, and
  Nationality up to Europe for records 1-4;
- the log table keeps Nationality (UK, Italy, UK, Italy, USA, USA).

Zip's last digit is ours: it differs within each pair of records the tables put
together, as it must for ``0124*`` and ``0123*`` to be as fine as either table goes. The
hierarchies are ours and plain: Birth year -> decade (``198*``) -> ``*``, Gender -> ``*``,
Zip masked one digit a level, Nationality -> continent (Europe, America) -> ``*``. The
settings: k = 2; priorities Nationality 10, the rest 1, for both; eta's d = 3 (any d
with d/2 < 2 <= d, so that two value types score 1); partial-domain de-generalization on
(section 5.4 step 4), which gives the log table's ``1984, Male, 0123*`` and the eta
table's ``USA`` rows.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb

from anonymizer.engine.names import ident

#: the six records we rebuilt (module docstring): (Record, Birth, Gender, Zip, Nationality)
RECORDS = [("r1", "1984", "Male", "01241", "UK"), ("r2", "1984", "Male", "01242", "Italy"),
           ("r3", "1985", "Female", "01233", "UK"), ("r4", "1985", "Female", "01234", "Italy"),
           ("r5", "1984", "Male", "01235", "USA"), ("r6", "1984", "Male", "01236", "USA")]
QIS = ["Birth", "Gender", "Zip", "Nationality"]
#: Fig. 2 as printed: the table of the logarithm-based scoring function (left) ...
PAPER_LOG = [("198*", "*", "012**", "UK"), ("198*", "*", "012**", "Italy"), ("198*", "*", "012**", "UK"),
             ("198*", "*", "012**", "Italy"), ("1984", "Male", "0123*", "USA"), ("1984", "Male", "0123*", "USA")]
#: ... and of the eta-based one (right)
PAPER_ETA = [("1984", "Male", "0124*", "Europe"), ("1984", "Male", "0124*", "Europe"),
             ("1985", "Female", "0123*", "Europe"), ("1985", "Female", "0123*", "Europe"),
             ("1984", "Male", "0123*", "USA"), ("1984", "Male", "0123*", "USA")]
#: the hierarchies as ARX files (value;level 1;...), but Zip's (masking)
HIERARCHIES = {"Birth": "1984;198*;*\n1985;198*;*\n", "Gender": "Male;*\nFemale;*\n",
               "Nationality": "UK;Europe;*\nItaly;Europe;*\nUSA;America;*\n"}
PRIORITIES = {"Nationality": 10}
D = 3
TABLE = "fig2"


def load_fig2(con: duckdb.DuckDBPyConnection) -> None:
    """Table ``fig2`` (replaced): the six records, all VARCHAR."""
    con.execute(f"CREATE OR REPLACE TABLE {ident(TABLE)} (Record VARCHAR, Birth VARCHAR, Gender VARCHAR, "
                "Zip VARCHAR, Nationality VARCHAR)")
    con.executemany(f"INSERT INTO {ident(TABLE)} VALUES (?, ?, ?, ?, ?)", RECORDS)


def fig2_spec(scoring: str, folder: Path) -> dict:
    """The release of Fig. 2 with ``scoring`` (``log`` or ``eta``); the hierarchy files in ``folder``."""
    columns: dict = {"Record": "insensitive", "Zip": {"role": "quasi", "hierarchy": {"masking": True}}}
    for name, text in HIERARCHIES.items():
        path = folder / f"{name}.csv"
        path.write_text(text, encoding="utf-8")
        columns[name] = {"role": "quasi", "hierarchy": {"csv": str(path)}}
    algorithm = {"name": "privacyfrost2", "scoring": scoring, "priorities": dict(PRIORITIES), "partial": True,
                 **({"d": D} if scoring == "eta" else {})}
    return {"release": f"p003_fig2_{scoring}", "source": {"table": TABLE}, "columns": columns,
            "models": [{"type": "k-anonymity", "k": 2}], "algorithm": algorithm}


def fig2_tables(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[list[tuple], dict]]:
    """Our two tables of Fig. 2, by scoring: the released rows in record order, and the
    full-domain node PrivacyFrost2 chose before the partial step."""
    from anonymizer.api import anonymize
    load_fig2(con)
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for scoring in ("log", "eta"):
            result = anonymize(fig2_spec(scoring, Path(folder)), con=con, force=True)
            rows = con.execute(f"SELECT {', '.join(map(ident, QIS))} FROM {result.view} ORDER BY Record").fetchall()
            out[scoring] = (rows, result.algorithm["levels"])
    return out
