"""Spark as a Spark team runs it (issue 38): the session leaves to ``spark-defaults.conf`` and
``spark-submit`` what they say; a release submitted with ``spark-submit`` reads a folder of
Parquet parts by a ``file://`` URI and writes its snapshot partitioned as the spec says; a
hierarchy is read by URI as its local file is. Each case starts its own JVM in a subprocess (a
configuration is read once, when the JVM starts). Marked ``spark``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
import yaml

import anonymizer.cli
from anonymizer.api import anonymize
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.errors import UnsupportedError
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.conftest import SPARK_FOR_TESTS, spark_defaults

pytestmark = pytest.mark.spark
pyspark = pytest.importorskip("pyspark")

SESSION = """
import json
from anonymizer.engine.choice import EngineChoice
spark = EngineChoice("spark", conf={conf!r}).spark_session()
print(json.dumps({{"partitions": spark.conf.get("spark.sql.shuffle.partitions"), "app": spark.sparkContext.appName,
                  "zone": spark.conf.get("spark.sql.session.timeZone"),
                  "codegen_cache": spark.conf.get("spark.sql.codegen.cache.maxEntries"),
                  "codec": spark.sparkContext.getConf().get("spark.io.compression.codec", "lz4"),
                  "catalog": spark.conf.get("spark.sql.catalogImplementation"),
                  "warehouse": spark.conf.get("spark.sql.warehouse.dir"),
                  "ui": spark.sparkContext.getConf().get("spark.ui.enabled", "true"),
                  "jvm": list(spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())}}))
spark.stop()
"""


def defaults(tmp_path: Path, **settings: str) -> dict[str, str]:
    """The environment of a process whose ``SPARK_CONF_DIR`` holds ``settings`` (over the
    tests' own) as its ``spark-defaults.conf``."""
    return {**spark_defaults(tmp_path / "conf", **settings), "SPARK_HOME": str(Path(pyspark.__file__).parent),
            "PYSPARK_PYTHON": sys.executable}


def session_settings(tmp_path: Path, env: dict[str, str], conf: tuple = ()) -> dict:
    done = subprocess.run([sys.executable, "-c", SESSION.format(conf=conf)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_spark_defaults_conf_decides_what_the_session_would_otherwise_set(tmp_path):
    env = defaults(tmp_path, **{"spark.sql.shuffle.partitions": "7", "spark.app.name": "team-nightly"})
    found = session_settings(tmp_path, env)
    warehouse = found.pop("warehouse")   # a local master whose catalog nothing configured: ours
    # the driver's JVM runs with the team's Java options and Derby's log file beside our metastore
    jvm = found.pop("jvm")
    assert set(SPARK_FOR_TESTS["spark.driver.extraJavaOptions"].split()) <= set(jvm)
    assert f"-Dderby.stream.error.file={tmp_path.resolve()}/anonymizer-spark/derby.log" in jvm
    assert found == {"partitions": "7", "app": "team-nightly", "zone": "UTC", "codegen_cache": "1000", "ui": "false",
                     "catalog": "hive", "codec": "zstd"}
    assert warehouse.endswith(str(tmp_path / "anonymizer-spark" / "warehouse"))
    assert session_settings(tmp_path, env, (("spark.sql.shuffle.partitions", "3"),))["partitions"] == "3"   # engine.conf wins
    # a team's codec is its own, from spark-defaults.conf as from engine.conf
    assert session_settings(tmp_path, defaults(tmp_path, **{"spark.io.compression.codec": "lz4"}))["codec"] == "lz4"
    assert session_settings(tmp_path, env, (("spark.io.compression.codec", "snappy"),))["codec"] == "snappy"


def parts(folder: Path, rows: int = 500) -> Path:
    """``rows`` rows as three Parquet part files in ``folder`` (as a Spark job leaves them),
    replacing the parts it held."""
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.parquet"):
        old.unlink()
    con = duckdb.connect()
    for i in range(3):
        con.sql(f"SELECT 18 + (i * 37) % 60 AS age, (i * 13) % 16 AS edu, "
                f"['flu', 'cold', 'hiv', 'ulcer'][1 + (i * 7) % 4] AS disease FROM range({i}, {rows}, 3) t(i)"
                ).write_parquet(str(folder / f"part-{i:05d}.snappy.parquet"))
    return folder


def test_a_release_submitted_with_spark_submit_reads_a_folder_of_parts_by_uri(tmp_path):
    folder = parts(tmp_path / "people")
    spec = {"release": "people_submit", "source": {"path": folder.as_uri(), "format": "parquet", "table": "people"},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "edu": {"role": "quasi", "type": "numeric"},
                        "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 6}], "engine": {"name": "spark"},
            "output": {"view": "people_submit", "format": "parquet", "partition_by": ["disease"]}}
    (tmp_path / "people.yml").write_text(yaml.safe_dump(spec))
    env = defaults(tmp_path, **{"spark.sql.warehouse.dir": str(tmp_path / "team-warehouse"),
                                "spark.sql.shuffle.partitions": "3"})
    main = Path(anonymizer.cli.__file__).with_name("__main__.py")
    submit = Path(sys.executable).with_name("spark-submit")
    done = subprocess.run([str(submit), "--master", "local[2]", str(main), "run", "people.yml", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    released = json.loads(done.stdout)   # the driver's stderr joins stdout: nothing else may be printed there
    on_duckdb = anonymize({k: v for k, v in spec.items() if k not in ("engine", "output")})   # DuckDB reads the folder too
    assert (released["rows_out"], released["classes"]) == (on_duckdb.rows_out, on_duckdb.classes) == (500, on_duckdb.classes)
    snapshot = tmp_path / "team-warehouse" / "_anon_releases.db" / "people_submit__v1"   # the team's catalog, not ours
    assert sorted(p.name for p in snapshot.glob("disease=*")) == [f"disease={d}" for d in ("cold", "flu", "hiv", "ulcer")]
    assert not (tmp_path / "anonymizer-spark").exists()


def test_a_hierarchy_read_by_uri_gives_what_its_local_file_gives(spark, tmp_path):
    """The same release from a hierarchy file named by its path (DuckDB) and by a URI (Spark,
    which reads it); a re-run is unchanged until the file's rows change; DuckDB refuses a
    URI it cannot read before any work."""
    tree = tmp_path / "city.csv"
    tree.write_text("".join(f"{c};{'north' if c in 'ABC' else 'south'};*\n" for c in "ABCDEF"))
    con = duckdb.connect()
    con.execute("CREATE TABLE cities AS SELECT ['A', 'B', 'C', 'D', 'E', 'F'][1 + (i * 7) % 6] AS city, "
                "18 + (i * 37) % 60 AS age, ['flu', 'cold', 'hiv'][1 + (i * 5) % 3] AS disease FROM range(300) t(i)")
    copy_from_duckdb(spark, con, "cities", "cities")
    local = load_spec({"release": "cities", "source": {"table": "cities"},
                       "columns": {"city": {"role": "quasi", "hierarchy": {"csv": str(tree)}},
                                   "age": {"role": "quasi", "type": "numeric"}, "disease": "sensitive"},
                       "models": [{"type": "k-anonymity", "k": 8}], "algorithm": {"name": "mondrian", "seed": 3}})
    city = local.columns[0]
    by_uri = replace(local, columns=(replace(city, hierarchy=replace(city.hierarchy, path=None, uri=tree.as_uri())),
                                     *local.columns[1:]))
    on_duckdb, on_spark = anonymize(local, con=con), run_release(by_uri, spark)
    assert (on_spark.rows_out, on_spark.classes, on_spark.measures["k"]) == \
        (on_duckdb.rows_out, on_duckdb.classes, on_duckdb.measures["k"])
    labels = sorted(r[0] for r in con.execute("SELECT DISTINCT city FROM published.cities").fetchall())
    assert sorted(r[0] for r in spark.sql("SELECT DISTINCT city FROM published.cities").collect()) == labels
    again = run_release(by_uri, spark)   # the URI's rows are fingerprinted as Spark reads them
    assert (again.unchanged, again.version) == (True, on_spark.version)
    tree.write_text(tree.read_text().replace("A;north", "A;south"))
    changed = run_release(by_uri, spark)
    assert (changed.unchanged, changed.version) == (False, on_spark.version + 1)
    with pytest.raises(UnsupportedError, match="Spark reads it"):
        anonymize(replace(by_uri, columns=(replace(by_uri.columns[0], hierarchy=replace(
            city.hierarchy, path=None, uri="s3a://bucket/city.csv")), *by_uri.columns[1:])), con=con)
