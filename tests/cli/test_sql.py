"""``anonymizer sql``: statements from -c, -f and stdin on the library's own DuckDB, results
as tables or one JSON object, the first failing statement named with exit status 2, and the
macro library there without touching the file."""

from __future__ import annotations

import json

import duckdb
from click.testing import CliRunner

from anonymizer.cli import main
from anonymizer.cli.sql import Shell, prompt_lines, split
from anonymizer.macros import install, installed


def table(path):
    """24 rows, a = i % 4 (four classes of 6), s = i % 3: k = 6, distinct l = 3."""
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t AS SELECT i % 4 AS a, i % 3 AS s FROM range(24) r(i)")
    return path


def piped(*args, stdin: str):
    """``anonymizer ARGS < stdin`` in-process."""
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=False)


def statements(res) -> list[dict]:
    out = json.loads(res.stdout)
    assert out["error"] is None, out
    return out["statements"]


def test_c_prints_each_query_as_a_table_with_the_macros_loaded_for_the_session(invoke, tmp_path):
    db = table(tmp_path / "w.duckdb")
    before = db.read_bytes()
    res = invoke("sql", "--db", db, "-c", "SELECT k, classes FROM anon_k('t', ['a']); SELECT 'x;y' AS v")
    assert res.exit_code == 0, res.output
    lines = [line.split("│")[1:-1] for line in res.stdout.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in line] for line in lines] == [["k", "classes"], ["int64", "int64"], ["6", "4"],
                                                             ["v"], ["varchar"], ["x;y"]]
    assert db.read_bytes() == before      # TEMP macros: the file is not changed
    with duckdb.connect(str(db), read_only=True) as con:
        assert installed(con) == []


def test_json_has_every_statement_with_its_columns_rows_and_line(invoke, tmp_path):
    db = table(tmp_path / "w.duckdb")
    script = tmp_path / "q.sql"
    script.write_text("-- a comment; with a semicolon\n"
                      "CREATE TABLE u AS SELECT 'é;' AS e;\n"
                      "SELECT a, count(*) AS n\n  FROM t\n  GROUP BY a ORDER BY a;  /* ; */\n"
                      "SELECT distinct_l FROM anon_l_diversity('t', ['a'], ['s'])\n", encoding="utf-8")
    done = statements(invoke("sql", "--db", db, "-f", script, "--json"))
    assert [(s["statement"], s["at"]) for s in done] == [(1, f"{script} line 2"), (2, f"{script} line 3"),
                                                         (3, f"{script} line 6")]
    assert done[0]["rows"] == [{"Count": 1}]          # the rows it wrote, as DuckDB counts them
    assert done[1]["columns"] == ["a", "n"] and done[1]["rows"] == [{"a": a, "n": 6} for a in range(4)]
    assert done[2]["sql"] == "SELECT distinct_l FROM anon_l_diversity('t', ['a'], ['s'])"
    assert done[2]["rows"] == [{"distinct_l": 3}]
    with duckdb.connect(str(db), read_only=True) as con:     # read-write by default: the table was made
        assert con.execute("SELECT e FROM u").fetchall() == [("é;",)]


def test_stdin_with_dot_commands(invoke, tmp_path):
    db = table(tmp_path / "w.duckdb")
    (tmp_path / "more.sql").write_text("SELECT 2 AS two;", encoding="utf-8")
    res = piped("sql", "--db", db, "--json",
                stdin=f".tables\nSELECT 1 AS one;\n.read {tmp_path / 'more.sql'}\nSELECT\n  3 AS three;\n.quit\nSELECT 4")
    done = statements(res)
    assert done[0]["rows"] == [{"database": "w", "schema": "main", "name": "t"}]
    assert [s["rows"] for s in done[1:]] == [[{"one": 1}], [{"two": 2}], [{"three": 3}]]
    assert [s["at"] for s in done[1:]] == ["<stdin> line 2", f"{tmp_path / 'more.sql'} line 1", "<stdin> line 4"]


def test_a_failing_statement_stops_the_run_named_with_exit_status_2(invoke, tmp_path):
    db = table(tmp_path / "w.duckdb")
    script = "CREATE TABLE before AS SELECT 1 AS x;\n\nSELECT * FROM anon_k('t', ['a', 'nope']);\nCREATE TABLE after AS SELECT 1;"
    res = piped("sql", "--db", db, stdin=script)
    assert res.exit_code == 2
    assert "error: statement 2 (<stdin> line 3): Invalid Input Error: qis: unknown column(s) nope in table t" in res.output
    with duckdb.connect(str(db), read_only=True) as con:
        names = {n for (n,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert names == {"t", "before"}            # the statement before ran, the one after did not
    as_json = invoke("sql", "--db", db, "--json", "-c", "SELECT 1 AS x; SELEC 2; SELECT 3")
    assert as_json.exit_code == 2
    out = json.loads(as_json.stdout)
    # a failure's object, as every command's: not ok, its exit status and the error's kind
    assert out["ok"] is False and out["exit_status"] == 2 and out["error"]["kind"] == "input"
    assert [s["rows"] for s in out["statements"]] == [[{"x": 1}]]
    assert out["error"]["statement"] == 2 and out["error"]["at"] == "-c line 1"
    assert out["error"]["message"].startswith("Parser Error: syntax error at or near \"SELEC\"")


def test_read_only_installed_macros_and_no_macros(invoke, tmp_path):
    db = table(tmp_path / "w.duckdb")
    res = invoke("sql", "--db", db, "--read-only", "-c", "CREATE TABLE u (x INTEGER)")
    assert res.exit_code == 2 and "statement 1 (-c line 1)" in res.output and "read-only" in res.output
    res = invoke("sql", "--db", db, "--no-macros", "-c", "SELECT * FROM anon_k('t', ['a'])")
    assert res.exit_code == 2 and "anon_k" in res.output
    with duckdb.connect(str(db)) as con:
        install(con)
        con.execute("CREATE OR REPLACE MACRO anon_k(tbl, qis) AS TABLE SELECT 42 AS k")   # the database's own wins
    out = json.loads(invoke("sql", "--db", db, "--read-only", "--json", "-c", "SELECT k FROM anon_k('t', ['a'])").stdout)
    assert out["macros"] == "installed in the database" and out["statements"][0]["rows"] == [{"k": 42}]


def test_opening_and_option_errors(invoke, tmp_path):
    res = invoke("sql", "--db", tmp_path / "none.duckdb", "-c", "SELECT 1")
    assert res.exit_code == 2 and "no such database file" in res.output
    assert not (tmp_path / "none.duckdb").exists()
    res = invoke("sql", "--db", ":memory:", "-c", "SELECT 1", "-f", tmp_path / "q.sql")
    assert res.exit_code == 2 and "either -c or -f" in res.output
    res = invoke("sql", "--db", ":memory:", "-c", ".frobnicate")
    assert res.exit_code == 2 and "unknown command '.frobnicate'" in res.output
    res = invoke("sql", "--db", ":memory:", "-c", f".read {tmp_path / 'missing.sql'}")
    assert res.exit_code == 2 and "missing.sql" in res.output


def test_the_prompt_reports_an_error_and_reads_on(monkeypatch, capsys):
    typed = iter(["SELECT 1 AS a", ";", "SELECT nope;", "SELECT 2 AS b;"])
    prompts = []

    def fake_input(prompt):
        prompts.append(prompt)
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    with duckdb.connect() as con:
        shell = Shell(con, as_json=True, keep_going=True)
        shell.feed(prompt_lines(shell), "<stdin>")
    assert [s["rows"] for s in shell.done] == [[{"a": 1}], [{"b": 2}]]
    assert prompts == ["anon D> ", "   ...> ", "anon D> ", "anon D> ", "anon D> "]
    assert "error: statement 2 (<stdin> line 3): Binder Error" in capsys.readouterr().err


def test_split_reads_strings_comments_and_multibyte_text_as_duckdb_does():
    text = "SELECT 'ü;', \"a;b\" FROM x; -- c;\n/* d; */ SELECT $$e;$$; SELECT 'open;"
    statements, rest, start = split(text)
    assert statements == [(0, "SELECT 'ü;', \"a;b\" FROM x"), (text.index("SELECT $$"), "SELECT $$e;$$")]
    assert rest == " SELECT 'open;" and text[start:] == rest


def test_a_terminal_gets_the_prompt(tmp_path):
    """A real terminal (a pty): the banner, the prompts, a result, an error that does not end
    the session, and Ctrl-D at the next prompt ending it with status 0."""
    import os
    import pty
    import select
    import signal
    import sys
    import time
    db = table(tmp_path / "w.duckdb")
    pid, fd = pty.fork()
    if pid == 0:   # the child: the command on the terminal
        os.execvp(sys.executable, [sys.executable, "-m", "anonymizer.cli", "sql", "--db", str(db)])
    seen = ""

    def expect(text: str, after: str = "") -> None:
        """Read the terminal until ``text`` shows (after ``after``, if given)."""
        nonlocal seen

        def shown() -> bool:
            return after in seen and text in seen[seen.index(after) + len(after):]

        end = time.time() + 120
        while not shown() and time.time() < end:
            if select.select([fd], [], [], 0.5)[0]:
                try:
                    seen += os.read(fd, 65536).decode(errors="replace")
                except OSError:
                    break
        assert shown(), seen

    done = (0, 0)
    try:
        expect("anon D> ")
        os.write(fd, b"SELECT k FROM anon_k('t',\n")
        expect("   ...> ")
        os.write(fd, b"['a']);\nSELECT nope;\n")
        expect("anon D> ", after="error: statement 2 (<stdin> line 3)")
        os.write(fd, b"\x04")
        end = time.time() + 60
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.time() < end:
            time.sleep(0.2)
        assert done[0] == pid and done[1] == 0, seen
    finally:
        if done[0] == 0:    # still running: end it
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert "loaded for this session" in seen and "│     6 │" in seen
