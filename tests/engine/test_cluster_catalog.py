"""Which Spark catalogs can hold a release on a cluster master (issue 58;
:func:`anonymizer.engine.spark_session.catalog_problem`), judged from the session's settings alone:
these tests give it settings, not a session (``tests/engine/test_spark_cluster.py`` submits
to a real standalone cluster)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonymizer.engine.spark_session import catalog_problem


class Conf:
    def __init__(self, settings: dict[str, str]):
        self.settings = settings

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.settings.get(key, default)


class Session:
    def __init__(self, **settings: str):
        self.conf = Conf({k.replace("_", "."): v for k, v in settings.items()})


HIVE = {"spark_sql_catalogImplementation": "hive"}


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]"])
def test_a_local_master_keeps_any_catalog(master):
    assert catalog_problem(Session(spark_master=master)) is None


def test_the_in_memory_catalog_is_refused_on_a_cluster_naming_the_setting():
    problem = catalog_problem(Session(spark_master="spark://127.0.0.1:7077"))
    assert "spark.sql.catalogImplementation=in-memory" in problem and "gone when the application ends" in problem
    assert "nothing was run" in problem and "\n" not in problem


def test_a_warehouse_left_at_sparks_default_on_the_drivers_disk_is_refused():
    default = f"file:{Path.cwd() / 'spark-warehouse'}"
    problem = catalog_problem(Session(spark_master="yarn", spark_sql_warehouse_dir=default, **HIVE))
    assert "spark.sql.warehouse.dir left at Spark's default" in problem


@pytest.mark.parametrize("warehouse", ["hdfs://nn:8020/warehouse", "s3a://team/warehouse", "file:/shared/warehouse",
                                       "/mnt/nfs/warehouse"])
def test_a_configured_warehouse_with_a_metastore_is_kept(warehouse):
    assert catalog_problem(Session(spark_master="k8s://https://api:6443", spark_sql_warehouse_dir=warehouse,
                                   **HIVE)) is None
