"""``anonymizer run``, ``validate`` and ``demo``: a release from the shell, its exit codes and
its JSON."""

from __future__ import annotations

import json

import duckdb


def test_demo_publishes_and_check_measures(invoke, tmp_path):
    db = tmp_path / "demo.duckdb"
    res = invoke("demo", "--db", db, "--quiet")
    assert res.exit_code == 0, res.output
    assert "published as published.adult" in res.output and "achieved k    10" in res.output
    res = invoke("check", "--db", db, "--table", "published.adult", "--qi", "age,sex,race,marital-status,"
                 "education,native-country,workclass", "--sensitive", "occupation", "--sensitive", "income", "--json")
    assert res.exit_code == 0, res.output
    figures = json.loads(res.output)
    assert figures["rows"] == 30162 and figures["k"] >= 10
    assert figures["sensitive"]["occupation"]["distinct_l"] >= 3
    assert figures["sensitive"]["income"]["t"] <= 0.2 + 1e-9
    assert {"entropy_l", "distinct_l", "t"} <= set(figures["sensitive"]["income"])
    again = invoke("demo", "--db", db, "--json")
    assert again.exit_code == 0 and json.loads(again.output)["unchanged"] is True
    # this run's own time, not the timings the published version recorded; the file it is in named
    assert set(json.loads(again.output)["timings"]) == {"total"}
    assert json.loads(again.output)["database"] == str(db)
    text = invoke("demo", "--db", db).output
    assert "checking that nothing changed" in text and f"  database      {db}" in text and "algorithm " not in text
    # an unchanged re-run reports the published version's figures, its classes among them
    with duckdb.connect(str(db), read_only=True) as con:
        (published,) = con.execute("SELECT count(DISTINCT eq_class) FROM published.adult").fetchone()
    assert json.loads(again.output)["classes"] == published > 0


def test_run_json_and_exit_codes(invoke, tmp_path):
    db = tmp_path / "w.duckdb"
    spec = tmp_path / "r.yml"
    csv = tmp_path / "p.csv"
    csv.write_text("age,zip,disease\n" + "".join(f"{20 + i % 40},{1000 + i % 9},{['a', 'b', 'c'][i % 3]}\n"
                                                  for i in range(90)))
    spec.write_text(f"release: r\nsource: {{path: {csv}, table: people}}\ncolumns: {{age: quasi, zip: quasi, "
                    "disease: sensitive}\nmodels: [{type: k-anonymity, k: 5}, "
                    "{type: distinct-l-diversity, l: 2, sensitive: disease}]\n")
    assert invoke("validate", spec).exit_code == 0
    res = invoke("run", spec, "--db", db, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["view"] == "published.r" and out["version"] == 1 and out["measures"]["k"] >= 5
    spec.write_text(spec.read_text().replace("l: 2", "l: 4"))
    failing = invoke("run", spec, "--db", db)
    assert failing.exit_code == 1 and "nothing was published" in failing.output
    spec.write_text("release: r\nsource: {table: people}\ncolumns: {age: quasy}\nmodels: [{type: k-anonymity, k: 5}]\n")
    bad = invoke("run", spec, "--db", db)
    assert bad.exit_code == 2 and "columns.age: must be one of identifier, quasi" in bad.output
    assert "did you mean 'quasi'?" in bad.output


def test_validate_names_the_release_and_refuses_a_bad_spec(invoke, tmp_path):
    spec = tmp_path / "r.yml"
    spec.write_text("release: r\nsource: {table: people}\ncolumns: {age: quasi}\nmodels: [{type: k-anonymity, k: 5}]\n")
    res = invoke("validate", spec)
    assert res.exit_code == 0 and "valid release 'r': 1 quasi-identifiers, 5-anonymity; mondrian" in res.output
    spec.write_text("release: r\nsource: {table: people}\ncolumns: {age: quasi}\nmodels: [{type: k-anonymity}]\n")
    bad = invoke("validate", spec)
    assert bad.exit_code == 2 and "models[0]" in bad.output


def test_the_engine_options_are_checked_before_any_engine_starts(invoke, tmp_path):
    """``--engine spark`` and the ``--spark-*`` options (anonymizer.engine.choice): what cannot
    go together is refused with exit status 2 before Spark (or DuckDB) is started."""
    spec = tmp_path / "r.yml"
    spec.write_text("release: r\nsource: people\ncolumns: {age: quasi, disease: sensitive}\n"
                    "models: [{type: k-anonymity, k: 5}]\n")
    cases = [(("run", spec, "--spark-master", "local[1]"), "need --engine spark"),
             (("run", spec, "--engine", "spark", "--db", tmp_path / "x.duckdb"), "--db: is a DuckDB file"),
             (("run", spec, "--engine", "spark", "--memory-limit", "1GB"), "--memory-limit: is a DuckDB setting"),
             (("run", spec, "--engine", "spark", "--spark-conf", "spark.driver.memory"), "must be KEY=VALUE"),
             (("check", "--engine", "spark", "--db", tmp_path / "x.duckdb", "--table", "t", "--qi", "a"),
              "--db: is a DuckDB file"),
             (("demo", "--spark-warehouse", tmp_path / "wh"), "need --engine spark")]
    for args, message in cases:
        res = invoke(*args)
        assert res.exit_code == 2 and message in res.output, (args, res.output)
    assert not (tmp_path / "x.duckdb").exists() and not (tmp_path / "wh").exists()
    assert "--spark-warehouse" in invoke("run", "--help").output and "--engine" in invoke("check", "--help").output
