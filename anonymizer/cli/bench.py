"""Timing: ``anonymizer bench <target>``, one subcommand per target with its own options.

Every target prints one JSON line per run as it ends (rows, seconds, scan_seconds: one plain
GROUP BY over the same columns of the same table, ratio, peak memory); most then print a
readable table on stderr. Compare ratios across machines, not seconds.
"""

from __future__ import annotations

import click

from anonymizer.cli import Group, logs
from anonymizer.cli.params import (
    Finite,
    batch_option,
    k_option,
    memory_limit_option,
    qis_option,
    quiet_option,
    repeat_option,
    rows_option,
    stream,
)
from anonymizer.cli.reproduce import p003

MSB_ALGORITHMS = ("mbf", "mbf-mslf", "msdcf", "msdcf-mslf", "mmdcf", "mmdcf-mslf")
LGB_ALGORITHMS = ("lgb-mdp", "lgb-ncp")
IR_ALGORITHMS = ("danonyir", "geneir")


@click.group(cls=Group)
def bench() -> None:
    """Time the algorithms on synthetic Adult-like tables generated in DuckDB.

    Each target prints one JSON line per run: rows, seconds, scan_seconds (one plain GROUP
    BY over the same columns), ratio, peak memory. Compare ratios across machines, not
    seconds. `anonymizer bench TARGET --help` tells what each target times.

    \b
    Examples:
      anonymizer bench mondrian --rows 1000000 --rows 10000000
      anonymizer bench release --rows 10000000 --repeat 3 --memory-limit 3GB
      anonymizer bench spark --rows 1000000 --repeat 3       # the same release on DuckDB and Spark
    """


def _algorithm_option(choices: tuple[str, ...]):
    return click.option("--algorithm", "algorithms", multiple=True, type=click.Choice(choices),
                        help="An algorithm to time (repeat the option; default: all of the paper's).")


def _harness(name: str, algorithm: str, check_only: bool, doc: str) -> click.Command:
    """``bench mondrian``, ``bench full-domain`` and ``bench k-check``: the same harness,
    timing an algorithm (coding the QIs and the algorithm) or one k-anonymity check."""

    @rows_option()
    @k_option()
    @qis_option()
    @repeat_option()
    def command(rows: tuple[int, ...], k: int, qis: int, repeat: int) -> None:
        from anonymizer.bench.harness import run_bench
        stream(run_bench(list(rows), algorithm=algorithm, k=k, qis=qis, repeat=repeat, check_only=check_only))

    command.__doc__ = doc
    return bench.command(name=name)(command)


_harness("mondrian", "mondrian", False, """Time Mondrian: coding the QIs and copying the rows, then the
    algorithm's rounds up to the classes (k = --k over the first --qis QIs).

    \b
    Example:
      anonymizer bench mondrian --rows 1000000 --rows 10000000
    """)
_harness("top-down", "top-down", False, """Time top-down specialization: coding the QIs and copying the
    rows, then the algorithm's passes up to the classes (k = --k over the first --qis QIs; the
    numeric QIs specialize along intervals of 5, 10 and 20, the others through halves of their
    codes).

    \b
    Example:
      anonymizer bench top-down --rows 1000000
    """)
_harness("full-domain", "full-domain", False, """Time the full-domain algorithm (at the top level but
    one): coding the QIs and copying the rows, then the algorithm.

    \b
    Example:
      anonymizer bench full-domain --rows 1000000 --repeat 1
    """)
_harness("k-check", "mondrian", True, """Time one k-anonymity check over the first --qis QIs (the
    check a release's gate runs), against one GROUP BY scan.

    \b
    Example:
      anonymizer bench k-check --rows 10000000
    """)
bench.add_command(p003, "lattice")   # paper 003's Table 2 grid: the same command as `reproduce p003`


@bench.command()
@rows_option()
@k_option(help="k of k-anonymity (with distinct l = 2 on salary).")
@repeat_option()
@memory_limit_option("The release's DuckDB memory limit (e.g. 8GB); beyond it DuckDB spills.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Keep the generated source databases here and reuse them (default: a temporary directory, "
                   "removed at the end).")
@click.option("--algorithm", type=click.Choice(("mondrian", "safepub", "dp-aggregates")), default="mondrian",
              show_default=True, help="mondrian (k, distinct l = 2 on salary); safepub (epsilon 1, delta 1e-5, the "
                                      "same QIs); dp-aggregates (count and mean hours_per_week by education and sex, "
                                      "a person's rows bounded, epsilon 1).")
@quiet_option("No progress lines.")
def release(rows: tuple[int, ...], k: int, repeat: int, memory_limit: str | None, data_dir: str | None,
            algorithm: str, quiet: bool) -> None:
    """Time whole releases at scale: Mondrian, k = --k, distinct l = 2 on salary, the six QIs
    age, workclass, education, marital_status, occupation, sex (other columns dropped), from
    a source generated once per size into a DuckDB file, each run in a fresh process:
    seconds, the scan, the ratio, each phase's seconds, the run's peak resident memory,
    DuckDB's peak memory and what it spilled to disk.

    \b
    Examples:
      anonymizer bench release --rows 1000000 --rows 10000000 --repeat 3
      anonymizer bench release --rows 100000000 --repeat 1 --memory-limit 8GB --data-dir /big/disk
      anonymizer bench release --rows 10000000 --algorithm dp-aggregates --repeat 3
    """
    from anonymizer.bench.release import format_release_bench, run_release_bench
    from anonymizer.spec.parse import memory_limit as checked_limit
    limit = None if memory_limit is None else checked_limit(memory_limit, "--memory-limit")
    stream(run_release_bench(list(rows), repeat=repeat, memory_limit=limit, directory=data_dir, k=k,
                             progress=not quiet, algorithm=algorithm), format_release_bench)


def _spark_conf(ctx, param, values: tuple[str, ...]) -> dict[str, str]:
    """``--conf key=value`` (repeated) -> ``{key: value}``."""
    pairs = [v.partition("=") for v in values]
    bad = [v for v, (key, eq, _) in zip(values, pairs) if not key.strip() or not eq]
    if bad:
        raise click.BadParameter(f"must be key=value, e.g. spark.driver.memory=4g: {bad[0]!r}", ctx, param)
    return {key.strip(): value for key, _, value in pairs}


@bench.command()
@rows_option()
@repeat_option("Releases per engine and size (the engines take turns).")
@k_option(help="k of k-anonymity (with distinct l = 2 on salary).")
@click.option("--master", default="local[2]", show_default=True,
              help="Spark's master URL: local[N] (N cores of this machine) or a cluster's (spark://host:7077, yarn).")
@click.option("--conf", "conf", multiple=True, metavar="KEY=VALUE", callback=_spark_conf,
              help="A Spark setting (repeat the option), e.g. spark.driver.memory=4g, spark.sql.shuffle.partitions=8.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Where the generated source, its Parquet copy and Spark's warehouse go (default: a temporary "
                   "directory, removed at the end); with a cluster's --master, a directory every executor sees.")
@click.option("--floor", is_flag=True,
              help="Also time the release's essential operations (collapse, each round's histogram, medians "
                   "and split, the published rows, their check) on both engines, --repeat times each, and print "
                   "the floor they sum to with the Spark release's rounds: no release on that engine is faster.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per engine and size instead of the table.")
@quiet_option("No progress lines.")
def spark(rows: tuple[int, ...], repeat: int, k: int, master: str, conf: dict[str, str], data_dir: str | None,
          floor: bool, as_json: bool, quiet: bool) -> None:
    """Time the same release on DuckDB and on Spark: the release of `bench release`
    (Mondrian, k = --k, distinct l = 2 on salary, age numeric and five categorical QIs),
    each engine next to its own plain GROUP BY scan of the same rows. Needs pyspark and
    Java 17 (pip install 'anonymizer[spark]').

    Per size the source is generated in DuckDB, written to Parquet and read by Spark into
    a table (load seconds, not counted in a release). Per engine and size: the release's
    median seconds, the scan, release/scan, the engine's release over DuckDB's, Mondrian's
    rounds and seconds a round, Spark's statements and jobs, the classes (the same on both),
    peak memory (DuckDB: its process's peak RSS; Spark: the driver JVM's RSS, sampled; on a
    local master that JVM runs the executors too), then the phases. Compare ratios, not
    seconds. Progress goes to stderr.

    \b
    Examples:
      anonymizer bench spark --rows 1000000 --repeat 3
      anonymizer bench spark --rows 10000000 --repeat 1 --conf spark.driver.memory=6g
      anonymizer bench spark --rows 10000000 --repeat 3 --floor   # how far any Spark release is from DuckDB's
      anonymizer bench spark --rows 100000 --master spark://host:7077 --data-dir /shared/bench --json
    """
    import json

    from anonymizer.bench.spark import format_spark_bench, run_spark_bench
    say = None if quiet else logs.step
    runs = []
    for run in run_spark_bench(list(rows), repeat=repeat, master=master, conf=conf, k=k, say=say,
                               directory=data_dir, floor=floor):
        runs.append(run)
        if as_json:
            click.echo(json.dumps(run))
    if not as_json:
        click.echo(format_spark_bench(runs))


@bench.command()
@rows_option()
@_algorithm_option(MSB_ALGORITHMS)
@click.option("--dims", type=click.IntRange(2, 5), default=3, show_default=True,
              help="d, the number of sensitive attributes (paper 002, Table 4).")
@batch_option("0.2")
@repeat_option()
def msb(rows: tuple[int, ...], algorithms: tuple[str, ...], dims: int, batch: str | float, repeat: int) -> None:
    """Time whole anatomy releases of paper 002's MSB algorithms (Table 3's security levels,
    Table 4's sensitive attributes for --dims) against one GROUP BY over the sensitive
    columns.

    \b
    Example:
      anonymizer bench msb --rows 10000000 --algorithm mbf-mslf --repeat 3
    """
    from anonymizer.bench.msb import format_msb_bench, run_msb_bench
    stream(run_msb_bench(list(rows), list(algorithms) or list(MSB_ALGORITHMS), d=dims, repeat=repeat, batch=batch),
           format_msb_bench)


@bench.command()
@rows_option()
@_algorithm_option(LGB_ALGORITHMS)
@k_option()
@repeat_option()
def lgb(rows: tuple[int, ...], algorithms: tuple[str, ...], k: int, repeat: int) -> None:
    """Time whole LGB releases (paper 000) of section 4's shape: sex, age and occupation
    flagged in 20 % of the rows, t = 0.2 on sex, l = 5 elsewhere, k from --k. The scan is
    one GROUP BY over the nine attributes.

    \b
    Example:
      anonymizer bench lgb --rows 1000000 --k 5 --algorithm lgb-mdp --repeat 3
    """
    from anonymizer.bench.lgb import format_lgb_bench, run_lgb_bench
    stream(run_lgb_bench(list(rows), list(algorithms) or list(LGB_ALGORITHMS), repeat=repeat, k=k),
           format_lgb_bench)


@bench.command()
@rows_option("Generated patients (repeat the option for several sizes).")
@_algorithm_option(IR_ALGORITHMS)
@click.option("--l", "l_value", type=click.IntRange(1), default=6, show_default=True,
              help="l of EIR l-diversity (or k = l of IR (k,l)-anonymity).")
@click.option("--model", type=click.Choice(["eir-l-diversity", "ir-kl-anonymity"]), default="eir-l-diversity",
              show_default=True, help="The model (DAnonyIR_El or DAnonyIR_kl).")
@qis_option()
@repeat_option()
def ir(rows: tuple[int, ...], algorithms: tuple[str, ...], l_value: int, model: str, qis: int, repeat: int) -> None:
    """Time whole identity-reserved releases (paper 004) on generated patient tables of
    --rows patients (about 9.25 diagnosis records each, Table 5's attributes, the first
    --qis as QIs), EIR l-diversity by default. The scan is one GROUP BY over the QIs and the
    diagnosis.

    \b
    Example:
      anonymizer bench ir --rows 50000 --algorithm danonyir --l 6 --repeat 1
    """
    from anonymizer.bench.ir import format_ir_bench, run_ir_bench
    stream(run_ir_bench(list(rows), list(algorithms) or list(IR_ALGORITHMS), repeat=repeat, l=l_value, qis=qis,
                        model=model), format_ir_bench)


@bench.command(name="history")
@click.option("--rows", type=click.IntRange(100), default=1_000_000, show_default=True,
              help="People in the table at the first version (identity_reserved: records).")
@click.option("--versions", type=click.IntRange(2, 100), default=10, show_default=True, help="Nightly versions.")
@click.option("--churn", type=Finite(0, 0.5), default=0.01, show_default=True,
              help="Fraction of the people who leave each night; as many join.")
@click.option("--change", type=Finite(0, 0.5), default=0.005, show_default=True,
              help="Fraction of those who stay whose diagnosis changes each night (identity_reserved: who gain a record).")
@k_option()
@click.option("--l", "l_value", type=click.IntRange(1), default=3, show_default=True,
              help="l of distinct l-diversity on the diagnosis (anatomy: of l-diversity; lgb: of l-unique buckets).")
@click.option("--family", type=click.Choice(["generalized", "anatomy", "lgb", "identity_reserved"]),
              default="generalized", show_default=True,
              help="Release with Mondrian (k and distinct l), as anatomy tables (paper 002's MBF, l), as an LGB table "
                   "(paper 000's LGB_MDP, k and l-unique buckets) or as paper 004's identity-reserved table (GeneIR, "
                   "EIR l-diversity, on generated patients with several records each).")
@click.option("--plot", type=click.Path(dir_okay=False), metavar="PNG",
              help="Also plot, per version, both releases' seconds, the counterfeit share, both losses and the "
                   "people the independent versions leave narrowed, into PNG.")
def history_bench(rows: int, versions: int, churn: float, change: float, k: int, l_value: int, family: str,
                  plot: str | None) -> None:
    """Time nightly releases of a changing table (issue 36): every night the same table is
    released under history: invariant (m-invariance and the cross-version gate) and as an
    independent full re-run of the algorithm; each line gives both times against one GROUP
    BY over the QIs, their loss (NCP, anatomy's additional information loss, or LGB's NCP
    per QI cell, or paper 004's NLoss; counterfeit rows, suppressed rows) and the people the independent versions
    isolate in combination.

    \b
    Examples:
      anonymizer bench history --rows 1000000 --versions 10 --churn 0.01
      anonymizer bench history --family anatomy --rows 1000000
      anonymizer bench history --family lgb --rows 1000000
      anonymizer bench history --family identity_reserved --rows 1000000
      anonymizer bench history --rows 20000 --versions 60 --plot history.png
    """
    from anonymizer.bench.history import format_history_bench, plot_history_bench, run_history_bench
    runs: list[dict] = []
    stream((runs.append(r) or r for r in run_history_bench(rows, versions, churn, change, k, l_value, family)),
           format_history_bench)
    if plot:
        plot_history_bench(runs, plot)
        click.echo(f"plot written to {plot}", err=True)


@bench.command(name="macros")
@rows_option()
@qis_option()
@repeat_option()
def macros_bench(rows: tuple[int, ...], qis: int, repeat: int) -> None:
    """Time each measuring macro of the SQL library (anon_k, anon_l_diversity,
    anon_t_closeness, ...) and the engine's `check` on the same table, with occupation and
    salary as sensitive attributes and the first --qis of the other columns as QIs.

    \b
    Example:
      anonymizer bench macros --rows 1000000 --rows 10000000 --repeat 3
    """
    from anonymizer.bench.macros import format_macros_bench, run_macros_bench
    stream(run_macros_bench(list(rows), repeat=repeat, qis=qis), format_macros_bench)


@bench.command()
@rows_option("Synthetic table sizes (repeat the option); the bundled Adult table is always timed too.")
@repeat_option()
@click.option("--loop", "loops", multiple=True, type=click.Choice(["lgb-bucketization", "lattice", "mondrian"]),
              help="A loop to time (repeat the option; default: all three).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line instead of the table.")
def recursive(rows: tuple[int, ...], repeat: int, loops: tuple[str, ...], as_json: bool) -> None:
    """Time the loops that run either driven from Python, one statement a round, or as one
    WITH RECURSIVE statement: LGB's local bucketization (paper 000, Alg. 2), the lattice
    evaluation (paper 001) and Mondrian's rounds; both forms on the same tables, the forms
    taking turns, medians of --repeat runs, and which form is faster.

    \b
    Example:
      anonymizer bench recursive --rows 1000000 --repeat 3
      anonymizer bench recursive --rows 100000 --loop mondrian --json
    """
    import json

    from anonymizer.bench.recursive import format_runs, run
    runs = run(list(rows), repeat, list(loops) or None)
    click.echo("\n".join(json.dumps(r) for r in runs) if as_json else format_runs(runs))


@bench.command(name="arx-grid")
@click.option("--group", "groups", multiple=True,
              type=click.Choice(("optimal", "t-closeness", "local", "local-models", "safepub")),
              help="A group of configurations (repeat the option; default: all five).")
@click.option("--config", "names", multiple=True, metavar="NAME",
              help="Only this configuration, by its name in the table's first column, e.g. 'local k=10 s=5%' "
                   "(repeat the option).")
@click.option("--arx-jar", type=click.Path(dir_okay=False), metavar="JAR",
              help="ARX's library jar (with its dependencies, as libarx-3.9.2.jar): run ARX live, each of its runs "
                   "(one JVM) taking turns with one of ours; needs java and javac. Without it, ARX's column is "
                   "the figures stored in the code.")
@repeat_option("Runs per configuration (each a fresh process).")
@click.option("--json", "as_json", is_flag=True, help="Only the JSON lines, no table.")
@quiet_option("No progress lines.")
def arx_grid(groups: tuple[str, ...], names: tuple[str, ...], arx_jar: str | None, repeat: int, as_json: bool,
             quiet: bool) -> None:
    """Our side of the comparison with ARX 3.9.2 on ARX's Adult (30,162 rows, its 8 QIs and
    hierarchies), next to ARX's: the optimal full-domain node at k = 2, 5, 10, 50 with 0/2/5 %
    suppression, the optimal node under 0.2-closeness (2 %), local recoding at k = 2 to 100
    with and without distinct 3-diversity, and (local-models) local recoding at k = 2, 5, 10,
    50 with distinct 2-diversity, with entropy 2-diversity, with 0.2-closeness, and with a 2 %
    and a 5 % suppression limit, and (safepub) SafePub at epsilon 0.5, 1 and 2 with delta 1e-5,
    each tool at its own defaults, judged by the median loss of the runs (each a fresh random
    release) and by our time as a share of ARX's.

    Each run is a fresh `anonymizer run` process, timed whole (what you wait for at the
    shell) and inside (the release's own total). With --arx-jar, ARX runs live on the same
    machine, one JVM per run, taking turns with ours; without it, ARX's column is the figures
    measured on a quiet machine on 2026-11-24, and the table's heading says so. Both
    published tables are measured by one loss function. One JSON line per configuration
    (medians; "arx_source": "live" or "stored"), then the table on stderr with a verdict per
    row.

    \b
    Examples:
      anonymizer bench arx-grid --repeat 3
      anonymizer bench arx-grid --group t-closeness --group local --repeat 1
      anonymizer bench arx-grid --arx-jar libarx-3.9.2.jar --group local --repeat 1
      anonymizer bench arx-grid --arx-jar libarx-3.9.2.jar --group safepub --repeat 7
      anonymizer bench arx-grid --config "local k=10 entropy-l=2" --repeat 1
    """
    from anonymizer.bench.arx import GROUPS, configs, format_arx_grid, run_arx_grid
    known = [c.name for c in configs(groups or GROUPS)]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise click.BadParameter(f"no configuration{' of the groups given' if groups else ''} is called "
                                 f"{unknown[0]!r}; the names are the first column of the table, e.g. {known[0]!r}",
                                 param_hint="--config")
    say = None if quiet or as_json else logs.step
    stream(run_arx_grid(groups or GROUPS, repeat=repeat, say=say, arx_jar=arx_jar, names=names),
           None if as_json else format_arx_grid)
