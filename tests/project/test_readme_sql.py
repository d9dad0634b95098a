"""The README's "For SQL analysts" section runs as written (issue 19): after `anonymizer
demo`, its shell commands run literally (as subprocesses, in the folder the demo wrote
`anonymizer.duckdb` into), its ```sql block goes as written into the `anonymizer sql`
command the section shows, every statement succeeds, and the figures are checked against
`anonymizer check` and against plain GROUP BY queries on the same file. The section is found
by its heading, so the test follows the README as it changes."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.slow   # a module-wide fixture takes seconds (the fast tier leaves it out)

README = Path(__file__).resolve().parents[2] / "docs" / "analysts.md"   # the guide, moved from the README
HEADING = "## For SQL analysts"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return text[start:end if end >= 0 else None]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", section(), re.S | re.M)


def commands() -> list[list[str]]:
    """The section's shell commands, one argv each (continued lines joined, comments dropped)."""
    found = []
    for block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(line, comments=True)
            if argv:
                found.append(argv)
    return found


def anonymizer(argv: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``anonymizer ARGS`` as a shell would run it (this interpreter's installation)."""
    assert argv[0] == "anonymizer", argv
    return subprocess.run([sys.executable, "-m", "anonymizer.cli", *argv[1:]], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The demo, then every command of the section (``anonymizer sql`` reads the SQL block),
    then that ``anonymizer sql`` command again with ``--json``: its statements."""
    folder = tmp_path_factory.mktemp("readme")
    assert "`anonymizer demo`" in section()
    demo = anonymizer(["anonymizer", "demo"], folder)
    assert demo.returncode == 0, demo.stderr
    [block] = blocks("sql")
    runs = []
    for argv in commands():
        res = anonymizer(argv, folder, block if argv[1] == "sql" else None)
        assert res.returncode == 0, (argv, res.stderr)
        runs.append((argv, res))
    [sql_argv] = [argv for argv, _ in runs if argv[1] == "sql"]
    as_json = anonymizer([*sql_argv, "--json"], folder, block)
    assert as_json.returncode == 0, as_json.stderr
    return {"folder": folder, "block": block, "runs": runs, "json": json.loads(as_json.stdout)}


@pytest.mark.slow
def test_the_section_names_the_demo_database_and_runs_every_command(ran):
    names = [argv[1] for argv, _ in ran["runs"]]
    assert names[:2] == ["macros", "sql"] and "check" in names
    assert all(argv[argv.index("--db") + 1] == "anonymizer.duckdb" for argv, _ in ran["runs"])
    assert sorted(p.name for p in ran["folder"].iterdir()) == ["anonymizer.duckdb"]   # nothing else was created


def test_every_statement_of_the_sql_block_succeeds_as_written(ran):
    [shown] = [res for argv, res in ran["runs"] if argv[1] == "sql"]
    assert shown.stderr == ""
    result = ran["json"]
    assert result["error"] is None and result["macros"] == "installed in the database"
    statements = result["statements"]
    assert len(statements) == len(re.findall(r"^(SELECT|CREATE)", ran["block"], re.M)) >= 13   # each starts a line
    assert all(s["rows"] for s in statements if "WHERE" not in s["sql"])                      # each measure has rows
    queries = [s for s in statements if not s["sql"].startswith("CREATE")]
    assert shown.stdout.count("┌") == len(queries)                                    # each query printed as a table


def rows(ran, start: str) -> list[dict]:
    """The rows of the block's one statement starting with ``start``."""
    [found] = [s for s in ran["json"]["statements"] if s["sql"].startswith(start)]
    return found["rows"]


def test_the_figures_are_the_engine_s_and_plain_sql_s(ran):
    [checked] = [json.loads(res.stdout) for argv, res in ran["runs"] if argv[1] == "check" and "--json" in argv]
    [k_row] = rows(ran, "SELECT * FROM anon_k('published.adult', ['age', 'sex', 'race'])")
    with duckdb.connect(str(ran["folder"] / "anonymizer.duckdb"), read_only=True) as con:
        sizes = [n for (n,) in con.execute("SELECT count(*) FROM published.adult GROUP BY age, sex, race").fetchall()]
        breaking = con.execute("SELECT count(*) FROM main.adult GROUP BY age, sex, race HAVING count(*) < 10").fetchall()
        audit_k = json.loads(con.execute("SELECT figures FROM _anon_releases._audit").fetchone()[0])["k"]
    assert checked["qis"] == ["age", "sex", "race"]
    assert k_row["k"] == checked["k"] == min(sizes) >= audit_k == 10
    assert k_row["classes"] == checked["classes"] == len(sizes) == 85
    assert k_row["rows"] == checked["rows"] == sum(sizes) == 30162
    assert len(rows(ran, "SELECT * FROM anon_classes('main.adult'")) == len(breaking) == 272
    [audit] = rows(ran, "SELECT version, figures")
    assert audit["version"] == 1 and audit["rows_out"] == 30162
    # t against the release's input (main.adult without the rows the demo suppressed) over the
    # published classes is the audit's t, within the declared 0.2 (issue 56: against main.adult
    # itself, over three QIs, it read 0.2076)
    [t_row] = rows(ran, "SELECT * FROM anon_t_closeness('published.adult', ['eq_class']")
    figures = json.loads(audit["figures"]) if isinstance(audit["figures"], str) else audit["figures"]
    [declared] = [m for m in figures["models"] if "closeness" in m["model"]]
    assert t_row["t"] == pytest.approx(declared["figure"]) and t_row["t"] <= 0.2


def test_the_generalized_values_are_the_documented_labels(ran):
    found = rows(ran, "SELECT age, anon_interval(age, 10)")
    assert len(found) == 5
    for row in found:
        low = row["age"] // 10 * 10
        assert row["anon_interval(age, 10)"] == f"[{low}, {low + 9}]"
        assert row['anon_top_code("capital-gain", 10000)'] == min(row["capital-gain"], 10000)
        assert row["anon_bottom_code(age, 18)"] == max(row["age"], 18)
    assert [list(r.values()) for r in rows(ran, "SELECT anon_mask(zip, 2)")] == [["213**", "1987-Q1"],
                                                                                ["213**", "2020-Q1"]]
