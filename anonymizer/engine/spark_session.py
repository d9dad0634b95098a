"""Starting the ``SparkSession`` a release runs on (:func:`session`), deciding only what
nothing else decided (``spark-submit``, ``spark-defaults.conf``, the spec's ``engine.conf``),
and judging whether its catalog can hold a release on a cluster's master
(:func:`catalog_problem`): the engine itself is :mod:`anonymizer.engine.spark`."""

from __future__ import annotations

import os
import re
import uuid
import warnings
from pathlib import Path
from urllib.parse import urlparse

from anonymizer.errors import SpecError


#: what a release's session sets on a local master where nothing else said it (spark-defaults.conf,
#: spark-submit's ``--conf``, the spec's ``engine.conf``): few shuffle partitions for one
#: machine's cores, no web UI or console progress bars
LOCAL_DEFAULTS = {"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                  "spark.ui.showConsoleProgress": "false"}
#: what it sets on any master where nothing else said it: dates read in UTC, as on DuckDB; room
#: for 1,000 generated classes in the driver's code cache (Spark's 100 are evicted within a
#: release, whose rounds compile the same code again and again: a Mondrian release on 3,000 rows
#: of Adult took 70 s with it against 81 s, on local[2] with Spark's other defaults); zstd for
#: the blocks Spark compresses (shuffles, broadcasts; Spark's lz4 compresses 32 KB at a time): a
#: release's values pass shuffles the QIs' distinct vectors, which at 1M rows of
#: `anonymizer bench spark` are 278k, and the release shuffled 9.9 MB against lz4's 23.6 MB
#: (2.0 times the source's bytes against 4.8), in no more time (docs/benchmarks.md)
DEFAULTS = {"spark.sql.session.timeZone": "UTC", "spark.sql.codegen.cache.maxEntries": "1000",
            "spark.io.compression.codec": "zstd"}
#: those a Spark Connect session may set (a session setting, not the server's)
CONNECT_DEFAULTS = {"spark.sql.session.timeZone": "UTC"}
#: the driver's Java options: a warehouse of ours adds Derby's log file to them
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
#: the settings that say where the catalog lives: when any is configured, no warehouse of ours
CATALOG_KEYS = ("spark.sql.warehouse.dir", "spark.sql.catalogImplementation", "javax.jdo.option.ConnectionURL")


def configured() -> dict[str, str]:
    """What Spark's own configuration says before a release's session starts: under
    ``spark-submit`` (or beside a running context), the driver's settings (``--master``,
    ``--conf`` and ``spark-defaults.conf``, as Spark merged them); otherwise
    ``spark-defaults.conf`` in ``SPARK_CONF_DIR`` (else ``SPARK_HOME/conf``), read before the
    JVM starts, so that a launch-time setting (``spark.driver.memory``) still applies."""
    from pyspark import SparkConf, SparkContext
    _hush_pandas_warning()
    if SparkContext._active_spark_context is not None or os.environ.get("PYSPARK_GATEWAY_PORT"):
        SparkContext._ensure_initialized()   # spark-submit's JVM: its properties are the merged settings
        return dict(SparkConf().getAll())
    folder = os.environ.get("SPARK_CONF_DIR") or (os.path.join(os.environ["SPARK_HOME"], "conf")
                                                  if os.environ.get("SPARK_HOME") else None)
    path = Path(folder, "spark-defaults.conf") if folder else None
    return _properties(path.read_text(encoding="utf-8")) if path is not None and path.is_file() else {}


def _hush_pandas_warning() -> None:
    """PySpark 4.3 warns that it does not yet fully support pandas 3 when it first loads its
    pandas helpers; no step of a release uses them. Under ``spark-submit`` the driver's
    stderr joins its stdout (Spark's Python runner), where the warning would precede a
    command's ``--json`` output."""
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)


def _properties(text: str) -> dict[str, str]:
    """The settings of a ``spark-defaults.conf`` (Java properties: ``key value``, ``key=value``
    or ``key: value``; ``#`` and ``!`` start comments)."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if line and line[0] not in "#!":
            key, value = re.match(r"(\S+?)\s*(?:[=:]\s*|\s+|$)(.*)", line).groups()
            found[key] = value.strip()
    return found


def session(master: str | None = None, conf: dict[str, str] | None = None, warehouse: str | None = None,
            default_warehouse: str | None = None, remote: str | None = None):
    """A ``SparkSession`` for releases (the running one, or a new one), deciding only what
    nothing else decided: ``master`` when given (else ``spark-submit --master``,
    ``spark-defaults.conf``, or Spark's ``local[*]``); ``conf`` (the spec's ``engine.conf``)
    over Spark's own configuration; :data:`DEFAULTS` and, on a local master,
    :data:`LOCAL_DEFAULTS` where neither says otherwise. ``warehouse``: a persistent catalog
    there (Hive metastore in Derby, tables as Parquet files), so the releases and the audit
    outlive the session; ``default_warehouse``: the same, on a local master whose catalog
    nothing configured. ``remote`` (else ``$SPARK_REMOTE``): a session of that Spark Connect
    server (:func:`connect_session`)."""
    _hush_pandas_warning()
    from pyspark.sql import SparkSession
    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote:
        return connect_session(remote, master, conf, warehouse)
    given, have = dict(conf or {}), configured()
    local = (master or have.get("spark.master", "local[*]")).startswith("local")
    builder = SparkSession.builder
    if master:
        builder = builder.master(master)
    if "spark.app.name" not in have:
        builder = builder.appName("anonymizer")
    for key, value in {**DEFAULTS, **(LOCAL_DEFAULTS if local else {})}.items():
        if key not in given and key not in have:
            builder = builder.config(key, value)
    if warehouse is None and local and not any(k in given or k in have for k in CATALOG_KEYS):
        warehouse = default_warehouse
    if warehouse:
        warehouse = str(Path(warehouse).resolve())   # Derby and Spark would each resolve a relative one
        # Derby's log beside its metastore, after the driver's own Java options (a team's, kept)
        java = " ".join(filter(None, (given.pop(JAVA_OPTIONS, None) or have.get(JAVA_OPTIONS),
                                      f"-Dderby.stream.error.file={warehouse}/derby.log")))
        builder = (builder.config("spark.sql.warehouse.dir", f"{warehouse}/warehouse")
                   .config("javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={warehouse}/metastore;create=true")
                   .config(JAVA_OPTIONS, java)
                   .enableHiveSupport())
    for key, value in given.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not is_connect(spark):   # a Connect session joined through SPARK_REMOTE logs on its server
        spark.sparkContext.setLogLevel("ERROR")
    _quiet()
    return spark


def has_format(spark, name: str) -> bool:
    """Whether the session (on Spark Connect, its server) has a data source ``name``: asked of
    its reader with a path that does not exist, since the source is looked up before the path."""
    try:
        _ = spark.read.format(name).load(f"/anonymizer-probe-{uuid.uuid4().hex}/none").schema
    except Exception as exc:  # noqa: BLE001 - pyspark's error, or py4j's for a Java class not found
        return "DATA_SOURCE_NOT_FOUND" not in str(exc)
    return True


def is_connect(spark) -> bool:
    """Whether ``spark`` is a Spark Connect session (a client of a server: no JVM of its own)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def connect_session(remote: str, master: str | None, conf: dict[str, str] | None, warehouse: str | None):
    """A Spark Connect session of the server at ``remote`` (``sc://host:port``), with ``conf``
    (session settings) and :data:`DEFAULTS`' session settings. The server's master and catalog
    run the release, so a ``master`` or ``warehouse`` beside it is refused."""
    from pyspark.sql import SparkSession
    if master or warehouse:
        raise SpecError("engine.remote", f"a Spark Connect server ({remote}) runs on its own master and catalog: "
                                         f"leave out {'the master' if master else 'the warehouse'}")
    builder = SparkSession.builder.remote(remote)
    for key, value in {**CONNECT_DEFAULTS, **(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    _quiet()
    return spark


def catalog_problem(spark) -> str | None:
    """Why the catalog of ``spark`` cannot hold a release when its master is a cluster's
    (``None``: it can, or the master is local). A release lives in the catalog: the next
    version reads the one before, and its tables must be where every executor writes and
    every later application reads. On a cluster master two things fail that a local master
    survives: Spark's in-memory catalog, gone when the application ends; and a warehouse left
    at Spark's default, ``spark-warehouse`` in the driver's working folder, where each executor
    would write to its own disk."""
    master = str(spark.conf.get("spark.master", "local"))
    if master.startswith("local"):
        return None
    team = ("configure the team's catalog: spark.sql.catalogImplementation=hive with its metastore "
            "(hive.metastore.uris, or javax.jdo.option.ConnectionURL) and spark.sql.warehouse.dir on storage "
            "every executor sees (hdfs://, s3a://, a shared folder), or give --spark-warehouse DIR on a shared folder; "
            "nothing was run")
    if spark.conf.get("spark.sql.catalogImplementation", "in-memory") == "in-memory":
        return (f"master {master} with Spark's in-memory catalog (spark.sql.catalogImplementation=in-memory): a "
                f"release published there is gone when the application ends; {team}")
    warehouse = urlparse(str(spark.conf.get("spark.sql.warehouse.dir", "")))
    if warehouse.scheme in ("", "file") and Path(warehouse.path) == Path.cwd() / "spark-warehouse":
        return (f"master {master} with spark.sql.warehouse.dir left at Spark's default, {Path.cwd() / 'spark-warehouse'} "
                f"on the driver's disk, where each executor would write to its own; {team}")
    return None


def _quiet() -> None:
    """PySpark 4 logs every failed statement as an ERROR line; the engine raises its own."""
    import logging
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:   # pragma: no cover - older PySpark
        return
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL + 1)
