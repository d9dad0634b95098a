"""Every family's example release, two versions each, as one application on a Spark cluster
(``spark-submit --master spark://... tests/engine/cluster_releases.py OUT WAREHOUSE``), and the same on
DuckDB in the test's process: :func:`releases` builds the sources (in DuckDB, then copied into
the session's catalog) and publishes each family's example twice (the second forced), giving
one figure dict per version. ``tests/engine/test_spark_cluster.py`` compares the two engines."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import duckdb
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ARX = ROOT / "anonymizer" / "data" / "arx_adult"


def sources(con: duckdb.DuckDBPyConnection) -> None:
    """The examples' tables, small: every twelfth row of ARX's Adult (2,514 rows), Adult with
    paper 000's flags (one row in 32), 120 generated patients with their records."""
    from anonymizer.datasets.flagged import flagged_adult
    from anonymizer.datasets.patients import patients
    con.execute(f"CREATE TABLE arx_all AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    con.execute("CREATE TABLE arx_adult AS SELECT * FROM arx_all WHERE rowid % 12 = 0")
    flagged_adult(con, "adult_all", density=0.2)
    con.execute("CREATE TABLE adult_flagged AS SELECT * FROM adult_all WHERE __row % 32 = 0")
    patients(con, "patients", individuals=120, seed=1)


def specs() -> dict[str, dict]:
    """Each family's example (hierarchy files from the examples' folder, a seed so that both
    engines draw alike, the small tables of :func:`sources`)."""
    found = {}
    for family, name, table in (("generalized", "adult_mondrian", "arx_adult"), ("anatomy", "adult_msb", "arx_adult"),
                                ("lgb", "adult_lgb", "adult_flagged"),
                                ("identity_reserved", "patients_danonyir", "patients")):
        spec = yaml.safe_load((EXAMPLES / f"{name}.yml").read_text())
        for column in spec["columns"].values():
            tree = column.get("hierarchy") if isinstance(column, dict) else None
            if tree and "csv" in tree:
                tree["csv"] = str((EXAMPLES / tree["csv"]).resolve())
        spec.update(release=f"cluster_{family}", source={"table": table}, output={"view": f"cluster_{family}"})
        spec["algorithm"] = {**spec.get("algorithm", {}), "seed": 3}
        if family == "anatomy":
            spec["suppression_limit"] = 0.5
        found[family] = spec
    return found


def releases(con) -> list[dict]:
    """Two versions of each family's example on ``con`` (DuckDB or a SparkSession)."""
    from anonymizer.api import anonymize
    out = []
    for family, spec in specs().items():
        for force in (False, True):
            start = time.perf_counter()
            r = anonymize(spec, con, force=force)
            print(f"{family} v{r.version}: {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
            out.append({"family": family, "version": r.version, "rows_out": r.rows_out, "suppressed": r.suppressed,
                        "classes": r.classes, "models": [[m["model"], m["figure"]] for m in r.models]})
    return out


def main(out: str, warehouse: str) -> None:
    """Submitted: the session the release command line would open (a catalog in ``warehouse``,
    which every executor sees), the sources copied in, the releases' figures to ``out``."""
    from anonymizer.engine.spark import copy_from_duckdb
    from anonymizer.engine.spark_session import session
    spark = session(warehouse=warehouse)
    con = duckdb.connect()
    sources(con)
    for table in ("arx_adult", "adult_flagged", "patients"):
        copy_from_duckdb(spark, con, table, table)
    Path(out).write_text(json.dumps(releases(spark)))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
