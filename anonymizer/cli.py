"""The ``anonymizer`` command: a thin shell over the same API Python users call.

Exit status:

- 0: done;
- 1: a privacy check failed (nothing was published);
- 2: bad input, or the database cannot be opened (not a DuckDB file, a missing or
  read-only directory, a file in use by another process, ...), or a file cannot be read
  or written; one line on stderr says which and why;
- 3: an unexpected internal error (a bug: the traceback is printed; please report it).

Every command that opens ``--db`` goes through :func:`_open_db`: commands that only read
open the file read-only and never create it; a database file a command creates is removed
again (with its ``.wal``) if the command fails.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import click
import duckdb

from anonymizer.engine.database import open_database
from anonymizer.errors import AnonymizerError, PrivacyCheckFailed, SpecError

DEFAULT_DB = "anonymizer.duckdb"
#: exit statuses (see the module docstring).
EXIT_PRIVACY, EXIT_INPUT, EXIT_BUG = 1, 2, 3


def _progress(quiet: bool):
    if quiet:
        return None
    return lambda msg: click.echo(f"· {msg}", err=True)


def _fail(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(EXIT_PRIVACY if isinstance(exc, PrivacyCheckFailed) else EXIT_INPUT)


@contextmanager
def _open_db(db: str | None, read_only: bool = False, must_exist: bool = False):
    """The one way a command opens ``--db`` (``None``: in memory). Every opening problem is a
    one-line :class:`~anonymizer.engine.database.DatabaseOpenError` (exit status 2); ``read_only``
    never creates the file; a file created here is removed if the command fails."""
    with open_database(db, read_only=read_only, must_exist=must_exist, label="--db") as con:
        yield con


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: DuckDB errors that come from the environment (files, locks, memory), not from a bug.
_DUCKDB_ENVIRONMENT = (duckdb.IOException, duckdb.PermissionException, duckdb.OutOfMemoryException,
                       duckdb.InterruptException)


class _Commands(click.Group):
    """The command group: a known failure of any command is one line on stderr and exit
    status 1 (privacy check) or 2 (input, files, database), never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except AnonymizerError as exc:
            _fail(exc)
        except _DUCKDB_ENVIRONMENT as exc:
            _fail(AnonymizerError(f"the database: {_one_line(exc)}"))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            _fail(AnonymizerError(f"{where}{exc.strerror or _one_line(exc)}"))
        except UnicodeError as exc:
            _fail(AnonymizerError(f"a file is not UTF-8 text: {_one_line(exc)}"))
        except Exception:
            traceback.print_exc()
            click.echo("error: an unexpected internal error (a bug; please report it with the traceback "
                       "above)", err=True)
            sys.exit(EXIT_BUG)


class _Finite(click.ParamType):
    """A finite number (NaN and infinities refused), optionally in [low, high]."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            self.fail(f"{value!r} is not in [{self.low:g}, {self.high:g}]", param, ctx)
        return number


def _numbers(text: str | None, option: str, kind: type) -> list:
    """Comma separated finite numbers of ``kind`` (int or float)."""
    try:
        values = [kind(v) for v in _csv(text)]
    except ValueError:
        values = None
    if values is None or not all(math.isfinite(v) for v in values):
        raise SpecError(option, f"must be comma separated finite {'whole ' if kind is int else ''}numbers", text)
    return values


def _emit(result, as_json: bool) -> None:
    from anonymizer.release.summary import format_release
    if as_json:
        click.echo(json.dumps(result.to_dict(), default=str))
    else:
        click.echo(format_release(result))


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="anonymizer")
def main() -> None:
    """Anonymize tables inside DuckDB and publish them as verified views.

    \b
    Start here:
      anonymizer demo                      anonymize the bundled UCI Adult table
      anonymizer run release.yml --db d.duckdb
                                           run a release spec (see examples/)
      anonymizer check --db d.duckdb --table t --qi age,sex --sensitive disease
                                           measure k, l, t and risk of any table
      anonymizer bench --rows 1000000      time Mondrian against a plain GROUP BY scan
      anonymizer ir --table2 --db d.duckdb individuals with several records (paper 004)
      anonymizer macros install --db d.duckdb
                                           SQL macros for analysts (anon_k, anon_l_diversity, ...)

    Every release is checked again in SQL before it is published; a release that fails
    publishes nothing and exits with status 1.

    \b
    Exit status:
      0  done
      1  a privacy check failed (nothing was published)
      2  bad input, or the database or a file cannot be opened (one line on stderr says why)
      3  an unexpected internal error (a bug: please report the traceback)
    """


@main.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--db", default=DEFAULT_DB, show_default=True,
              help="DuckDB database file holding the source table (and the release, unless the spec's "
                   "output.database names another file: then DB is opened read-only).")
@click.option("--export", "export", metavar="PATH", default=None,
              help="Also copy the published snapshot to PATH after it is verified and published: "
                   ".parquet or .csv (.csv.gz, .tsv); further tables go next to it as <name>_<part>.<ext>. "
                   "Replaces the spec's output.export.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.option("--force", is_flag=True, help="Publish a new version even if nothing changed.")
@click.option("--keep-work", is_flag=True, help="Keep the run's work schema in DB (debugging; raw data).")
@click.option("--memory-limit", metavar="SIZE", default=None,
              help="DuckDB's memory limit for the run, e.g. 8GB or 50% (beyond it DuckDB spills to its temporary "
                   "directory). Replaces the spec's engine.memory_limit.")
@click.option("--temp-directory", metavar="DIR", default=None,
              help="Where DuckDB spills under the memory limit (default: DB.tmp next to DB). Replaces the "
                   "spec's engine.temp_directory.")
@click.option("--dry-run", is_flag=True,
              help="Verify and measure the release, publish nothing (no snapshot, view, audit row or export).")
@click.option("--log-sql", "log_sql", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="Write every SQL statement the run executed, with its time, to FILE (also when it fails).")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
def run(spec: str, db: str, export: str | None, as_json: bool, force: bool, keep_work: bool,
        memory_limit: str | None, temp_directory: str | None, dry_run: bool, log_sql: str | None,
        quiet: bool) -> None:
    """Run the release SPEC (a YAML file) against the database DB.

    The spec names the source table (or a CSV/Parquet file to load), the role of every
    column (identifier, quasi, sensitive, insensitive), the privacy models, the algorithm
    and where to publish. Re-running an unchanged release publishes nothing new.

    \b
    Where the release goes (the spec's output):
      output: {view: adult}                      view published.adult in DB
      output: {view: adult, database: pub.duckdb}
                      into pub.duckdb (relative to the spec; created if missing),
                      DB is only read: raw and published data live apart
      output: {view: adult, export: {path: out/adult.parquet}}
                      also a Parquet (or .csv) copy of the published rows

    \b
    Examples:
      anonymizer run adult.yml --db raw.duckdb
      anonymizer run adult.yml --db raw.duckdb --export out/adult.parquet
      anonymizer run adult.yml --db raw.duckdb --memory-limit 8GB
      anonymizer run adult.yml --db raw.duckdb --dry-run --log-sql run.sql
    """
    from anonymizer.release.run import run_release
    from anonymizer.spec.parse import load_spec, parse_export
    try:
        parsed = _with_resources(load_spec(spec), memory_limit, temp_directory)
        if export is not None:
            parsed = replace(parsed, output=replace(parsed.output, export=parse_export(export, Path("."), "--export")))
        separate = parsed.output.database is not None
        if separate and keep_work:
            raise SpecError("--keep-work", "keeps the run's work tables in --db, which a release with "
                                           "output.database opens read-only; leave out one of them")
        if separate and _same_file(db, parsed.output.database):
            raise SpecError("output.database", f"is the source database --db {db}; leave output.database out "
                                               "to publish into it, or name another file", str(parsed.output.database))
        reads_only = separate or (dry_run and not keep_work)   # a dry run writes nothing to --db
        source_db = db if not (reads_only and parsed.source.path is not None and not Path(db).exists()) else None
        statements: list = []
        if log_sql is not None:
            _write_log(Path(log_sql), statements)   # a path that cannot be written is refused before any work
        try:
            with _open_db(source_db, read_only=reads_only) as con:
                result = run_release(parsed, con, progress=_progress(quiet or as_json), keep_work=keep_work,
                                     force=force, dry_run=dry_run, log=statements)
        finally:
            if log_sql is not None:
                try:
                    _write_log(Path(log_sql), statements)
                except SpecError as exc:   # the run's own outcome (and exit status) stands
                    click.echo(f"warning: {exc}", err=True)
    except AnonymizerError as exc:
        _fail(exc)
    _emit(result, as_json)


def _write_log(path: Path, statements: list) -> None:
    """``--log-sql``: every statement a run executed, in order, each headed by a comment
    line ``-- statement N: <template>, <seconds> s``, as a script DuckDB can read."""
    try:
        path.write_text("".join(f"-- statement {n}: {s.template}, {s.seconds:.4f} s\n"
                                f"{s.sql.strip().rstrip(';')};\n\n" for n, s in enumerate(statements, 1)),
                        encoding="utf-8")
    except OSError as exc:
        raise SpecError("--log-sql", f"cannot be written ({exc.strerror or exc})", str(path)) from None


def _with_resources(spec, memory_limit: str | None, temp_directory: str | None):
    """The spec with ``--memory-limit`` and ``--temp-directory`` in place of its ``engine``
    settings (the command line wins)."""
    from anonymizer.spec.parse import memory_limit as checked_limit
    settings = spec.engine
    if memory_limit is not None:
        settings = replace(settings, memory_limit=checked_limit(memory_limit, "--memory-limit"))
    if temp_directory is not None:
        if not temp_directory.strip():
            raise SpecError("--temp-directory", "must be a directory path", temp_directory)
        settings = replace(settings, temp_directory=temp_directory)
    return replace(spec, engine=settings)


def _same_file(a: str, b) -> bool:
    """Whether two paths name the same file (as far as they can be resolved)."""
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


@main.command()
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file to create or reuse.")
@click.option("--k", type=click.IntRange(2, 1000), default=None, help="Override k (default 10).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
def demo(db: str, k: int | None, as_json: bool, quiet: bool) -> None:
    """Anonymize the bundled UCI Adult table (32,561 rows) and publish published.adult.

    Loads the data into table `adult` of DB, runs Mondrian with 10-anonymity, distinct
    3-diversity on occupation and 0.2-closeness on income (rows with a missing value are
    suppressed), verifies and publishes the view, and prints what was achieved.
    """
    from anonymizer.demo import demo_spec, load_adult
    from anonymizer.release.run import run_release
    try:
        with _open_db(db) as con:
            load_adult(con)
            result = run_release(demo_spec(k), con, progress=_progress(quiet or as_json))
    except AnonymizerError as exc:
        _fail(exc)
    _emit(result, as_json)
    if not as_json:
        click.echo(f"\nMeasure it again:  anonymizer check --db {db} --table {result.view} "
                   "--qi eq_class,age,sex,race,marital-status,education,native-country,workclass "
                   "--sensitive occupation,income")


def _batch(ctx, param, value: str):
    """``--batch``: ``exact`` or a fraction in (0, 1] (the MSB greedy's batch, paper 002)."""
    if value == "exact":
        return value
    try:
        fraction = float(value)
    except ValueError:
        fraction = None
    if fraction is None or not 0 < fraction <= 1:
        raise click.BadParameter("must be 'exact' or a fraction in (0, 1], e.g. 0.2", ctx, param)
    return fraction


def _stream(lines, formatter) -> None:
    """Print each benchmark run as a JSON line as it ends, then a readable table on stderr."""
    runs = []
    for line in lines:
        runs.append(line)
        click.echo(json.dumps(line))
        sys.stdout.flush()
    click.echo(formatter(runs), err=True)


def _csv(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


@main.command()
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file.")
@click.option("--table", required=True, help="Table or view to measure (schema.table allowed).")
@click.option("--qi", required=True, help="Quasi-identifier columns, comma separated.")
@click.option("--sensitive", multiple=True, help="A sensitive column (repeat for several, or comma separate).")
@click.option("--c", "c", type=_Finite(), default=2.0, show_default=True, help="c of recursive (c,l)-diversity.")
@click.option("--reference", default=None, metavar="TABLE",
              help="Table whose sensitive distribution t-closeness compares with (default: the measured table; "
                   "give a release's input to measure it as the release's gate does).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check(db: str, table: str, qi: str, sensitive: tuple[str, ...], c: float, reference: str | None,
          as_json: bool) -> None:
    """Measure any table: k, l-diversity (distinct, entropy, recursive), t-closeness,
    re-identification risk and class sizes, grouping by the QI columns.

    Works on tables anonymized elsewhere too. Nothing is written. t-closeness compares each
    class with the measured table's distribution, or with --reference's: a release checks
    its classes against its input (the source before suppression), so
    `--table published.adult --reference adult` reproduces the release's figure.
    """
    from anonymizer.measure import format_measure, measure_table
    sens = [s for item in sensitive for s in _csv(item)]
    try:
        with _open_db(db, read_only=True) as con:
            result = measure_table(con, table, _csv(qi), sens, c=c, reference=reference)
    except AnonymizerError as exc:
        _fail(exc)
    click.echo(json.dumps(result, default=str) if as_json else format_measure(result))


@main.group()
def macros() -> None:
    """The SQL macro library for analysts: measure and generalize tables in plain SQL.

    \b
    Install once into a database, then use it from any DuckDB client, no Python needed:
      anonymizer macros install --db warehouse.duckdb
      duckdb warehouse.duckdb          (any DuckDB client of the version that wrote the file)
        SELECT * FROM anon_k('published.adult', ['age', 'sex']);
        SELECT * FROM anon_l_diversity('published.adult', ['age', 'sex'], ['occupation']);
        SELECT anon_interval(age, 10), anon_mask(zip, 2) FROM people;
    Or load the file yourself: `.read` the path that `anonymizer macros path` prints.
    """


@macros.command(name="install")
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file (created if missing).")
@click.option("--json", "as_json", is_flag=True, help="Print the installed macros as JSON.")
def macros_install(db: str, as_json: bool) -> None:
    """Create (or replace) every anon_* macro in the database's main schema."""
    from anonymizer.macros import install
    try:
        with _open_db(db) as con:
            found = install(con)
    except AnonymizerError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps([{"name": n, "kind": k, "parameters": p} for n, k, p in found]))
        return
    click.echo(f"installed {len(found)} macros into {db}:")
    for name, kind, params in found:
        click.echo(f"  {kind:<6} {name}({', '.join(params)})")


@macros.command(name="path")
def macros_path_command() -> None:
    """Print where the library file is (for `.read` in the DuckDB CLI)."""
    from anonymizer.macros import macros_path
    click.echo(str(macros_path()))


@macros.command(name="show")
def macros_show() -> None:
    """Print the library's SQL (every macro is documented in it)."""
    from anonymizer.macros import macros_sql
    click.echo(macros_sql(), nl=False)


@main.command()
@click.option("--rows", "rows", multiple=True, type=click.IntRange(1), default=[1_000_000], show_default=True,
              help="Synthetic table sizes (repeat the option for several).")
@click.option("--bench", "kind", type=click.Choice(["mondrian", "full-domain", "k-check", "lattice", "msb", "lgb", "ir", "macros",
                                                  "release"]),
              default="mondrian", show_default=True,
              help="What to time: an algorithm (from coding the QIs to the classes), one k-anonymity check, "
                   "the lattice searches (PrivacyFrost2 and the optimal search on paper 003's grid), "
                   "a whole anatomy release by paper 002's MSB algorithms, a whole LGB release "
                   "(paper 000), a whole identity-reserved release (paper 004; --rows counts patients), "
                   "the SQL macro library's measures, or a whole Mondrian release at scale (each run in its own "
                   "process, peak memory per run).")
@click.option("--data", type=click.Choice(["adult", "synthetic"]), default="adult", show_default=True,
              help="For --bench lattice: ARX's Adult (30,162 rows) or synthetic tables of --rows rows.")
@click.option("--k", type=click.IntRange(1), default=10, show_default=True, help="k of k-anonymity.")
@click.option("--qis", type=click.IntRange(1, 8), default=6, show_default=True, help="Number of QIs.")
@click.option("--repeat", type=click.IntRange(1, 20), default=3, show_default=True, help="Runs per size.")
@click.option("--algorithm", "algorithms", multiple=True,
              type=click.Choice(["mbf", "msdcf", "mmdcf", "mbf-mslf", "msdcf-mslf", "mmdcf-mslf", "lgb-mdp", "lgb-ncp",
                                 "danonyir", "geneir"]),
              help="For --bench msb, lgb or ir: the algorithms to time (repeat the option; default: all of "
                   "the paper's).")
@click.option("--l", "l_value", type=click.IntRange(1), default=6, show_default=True,
              help="For --bench ir: l of EIR l-diversity (or k = l of IR (k,l)-anonymity).")
@click.option("--model", type=click.Choice(["eir-l-diversity", "ir-kl-anonymity"]), default="eir-l-diversity",
              show_default=True, help="For --bench ir: the model (DAnonyIR_El or DAnonyIR_kl).")
@click.option("--dims", type=click.IntRange(2, 5), default=3, show_default=True,
              help="For --bench msb: d, the number of sensitive attributes (paper 002, Table 4).")
@click.option("--batch", default="0.2", show_default=True, callback=_batch,
              help="For --bench msb: the greedy's batch: 'exact' or a fraction in (0, 1].")
@click.option("--memory-limit", metavar="SIZE", default=None,
              help="For --bench release: the release's DuckDB memory limit (e.g. 8GB); beyond it DuckDB spills.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="For --bench release: keep the generated source databases here and reuse them (default: a "
                   "temporary directory, removed at the end).")
@click.option("--quiet", "-q", is_flag=True, help="For --bench release: no progress lines.")
def bench(rows: tuple[int, ...], kind: str, data: str, k: int, qis: int, repeat: int,
          algorithms: tuple[str, ...], l_value: int, model: str, dims: int, batch: str | float,
          memory_limit: str | None, data_dir: str | None, quiet: bool) -> None:
    """Time an algorithm on synthetic Adult-like tables generated in DuckDB.

    Prints one JSON line per run: rows, seconds, scan_seconds (one plain GROUP BY over the
    same QIs), ratio, peak_mb. Compare ratios across machines, not seconds.

    --bench lattice runs paper 003's Table 2 grid (k 2 and 10; l 2 and 10 or t 0.1 and
    0.9; basic, log and eta scoring) with PrivacyFrost2, and the optimal search on each
    model, over the 8 ARX Adult QIs; a readable table follows on stderr. Example:

        anonymizer bench --bench lattice --repeat 3
        anonymizer bench --bench lattice --data synthetic --rows 10000000 --repeat 1

    --bench msb times whole anatomy releases of paper 002's MSB algorithms (Table 3's
    security levels, Table 4's sensitive attributes for --dims) against one GROUP BY over
    the sensitive columns. Example:

        anonymizer bench --bench msb --rows 10000000 --algorithm mbf-mslf --repeat 3

    --bench lgb times whole LGB releases (paper 000) of section 4's shape: sex, age and
    occupation flagged in 20 % of the rows, t = 0.2 on sex, l = 5 elsewhere, k from --k.
    The scan is one GROUP BY over the nine attributes. Example:

        anonymizer bench --bench lgb --rows 1000000 --k 5 --algorithm lgb-mdp --repeat 3

    --bench ir times whole identity-reserved releases (paper 004) on generated patient
    tables of --rows patients (about 9.25 diagnosis records each, Table 5's attributes,
    the first --qis as QIs), EIR l-diversity by default. The scan is one GROUP BY over the
    QIs and the diagnosis. Example:

        anonymizer bench --bench ir --rows 50000 --algorithm danonyir --l 6 --repeat 1

    --bench macros times each measuring macro of the SQL library (anon_k, anon_l_diversity,
    anon_t_closeness, ...) and the engine's `check` on the same table, with occupation and
    salary as sensitive attributes and the first --qis of the other columns as QIs. Example:

        anonymizer bench --bench macros --rows 1000000 --rows 10000000 --repeat 3

    --bench release times whole releases (Mondrian, k = --k, distinct l = 2 on salary, the
    six QIs age, workclass, education, marital_status, occupation, sex; other columns
    dropped) from a source generated once per size into a DuckDB file, each run in a fresh
    process: seconds, the scan, the ratio, each phase's seconds, the run's peak resident
    memory, DuckDB's peak memory and what it spilled to disk. Example:

        anonymizer bench --bench release --rows 1000000 --rows 10000000 --repeat 3
        anonymizer bench --bench release --rows 100000000 --repeat 1 --memory-limit 8GB --data-dir /big/disk
    """
    if kind == "release":
        from anonymizer.bench.release import format_release_bench, run_release_bench
        from anonymizer.spec.parse import memory_limit as checked_limit
        try:
            limit = None if memory_limit is None else checked_limit(memory_limit, "--memory-limit")
        except AnonymizerError as exc:
            _fail(exc)
        _stream(run_release_bench(list(rows), repeat=repeat, memory_limit=limit, directory=data_dir, k=k,
                                  progress=not quiet), format_release_bench)
        return
    if kind == "macros":
        from anonymizer.bench.macros import format_macros_bench, run_macros_bench
        _stream(run_macros_bench(list(rows), repeat=repeat, qis=qis), format_macros_bench)
        return
    if kind == "ir":
        from anonymizer.bench.ir import format_ir_bench, run_ir_bench
        _stream(run_ir_bench(list(rows), list(algorithms) or ["danonyir", "geneir"], repeat=repeat, l=l_value,
                             qis=qis, model=model), format_ir_bench)
        return
    if kind == "lgb":
        from anonymizer.bench.lgb import format_lgb_bench, run_lgb_bench
        _stream(run_lgb_bench(list(rows), list(algorithms) or ["lgb-mdp", "lgb-ncp"], repeat=repeat, k=k),
                format_lgb_bench)
        return
    if kind == "msb":
        from anonymizer.bench.msb import format_msb_bench, run_msb_bench
        _stream(run_msb_bench(list(rows), list(algorithms) or ["mbf", "mbf-mslf", "msdcf", "msdcf-mslf",
                                                               "mmdcf", "mmdcf-mslf"],
                              d=dims, repeat=repeat, batch=batch), format_msb_bench)
        return
    if kind == "lattice":
        from anonymizer.reproduce.p003_privacyfrost2.grid import format_lattice_bench, run_lattice_bench
        runs = []
        for size in (rows if data == "synthetic" else [None]):
            for line in run_lattice_bench(size, repeat=repeat):
                runs.append(line)
                click.echo(json.dumps(line))
                sys.stdout.flush()
        click.echo(format_lattice_bench(runs), err=True)
        return
    from anonymizer.bench.harness import run_bench
    check_only = kind == "k-check"
    for line in run_bench(list(rows), algorithm="mondrian" if check_only else kind, k=k, qis=qis, repeat=repeat,
                          check_only=check_only):
        click.echo(json.dumps(line), nl=True)
        sys.stdout.flush()


@main.command()
@click.argument("spec", type=click.Path(dir_okay=False))
def validate(spec: str) -> None:
    """Validate the release SPEC without touching any database."""
    from anonymizer.spec.parse import load_spec
    try:
        parsed = load_spec(spec)
    except AnonymizerError as exc:
        _fail(exc)
    click.echo(f"{spec}: valid release {parsed.release!r}: {len(parsed.quasi)} quasi-identifiers, "
               f"{', '.join(str(m) for m in parsed.models)}; {parsed.algorithm.name}")


@main.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--column", required=True, help="The column whose hierarchy to build.")
@click.option("--db", default=None, help=f"DuckDB database file holding the table (default {DEFAULT_DB}).")
@click.option("--data", type=click.Path(dir_okay=False), help="A CSV or Parquet file holding the column.")
@click.option("--table", help="A table or view of --db holding the column (schema.table allowed).")
@click.option("--builder", type=click.Choice(["cgh", "dbgh", "cbgh", "masking", "intervals", "dates", "ordered"]),
              help="How to build the hierarchy (without a SPEC).")
@click.option("--min-width", type=float, help="cgh/dbgh/cbgh: the narrowest interval width.")
@click.option("--range", "bounds", help="cgh/dbgh/cbgh: the root interval LOW,HIGH (default: the data's min, max).")
@click.option("--widths", help="intervals: one width per level, e.g. 5,10,20.")
@click.option("--levels", type=click.IntRange(1), help="masking: characters masked (default: all but one).")
@click.option("--units", help="dates: truncation units, e.g. month,quarter,year,decade.")
@click.option("--order", help="ordered: every value in order, comma separated.")
@click.option("--sizes", help="ordered: values per group at each level, e.g. 2,4.")
@click.option("--examples", type=click.IntRange(1, 50), default=3, show_default=True, help="Labels shown per level.")
@click.option("--export", type=click.Path(dir_okay=False), help="Write it as an ARX CSV file (value;level1;...;*).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def hierarchy(spec: str | None, column: str, db: str | None, data: str | None, table: str | None,
              builder: str | None, min_width: float | None, bounds: str | None, widths: str | None,
              levels: int | None, units: str | None, order: str | None, sizes: str | None, examples: int,
              export: str | None, as_json: bool) -> None:
    """Build a column's generalization hierarchy and show it level by level: nodes,
    distortion range (paper 001, Definition 9) and example labels.

    \b
    On the bundled UCI Adult data (`anonymizer demo` loads it into table adult of
    anonymizer.duckdb), paper 001's Table 4 for hours-per-week:
      anonymizer hierarchy --table adult --column hours-per-week --builder cbgh --min-width 10 --range 1,100
    prints levels of 10, 5, 3, 2 and 1 nodes with distortions 0.45 up to 5. Other sources:
      anonymizer hierarchy release.yml --column age       # the spec's source and hierarchy
      anonymizer hierarchy --data people.csv --column zip --builder masking --levels 3
      anonymizer hierarchy --data people.parquet --column born --builder dates --units month,year,decade
      anonymizer hierarchy --table adult --column education-num --builder intervals --widths 2,4,8

    \b
    Builders and their options:
      cgh, dbgh, cbgh   --min-width, --range (paper 001: halving, divisors, cardinalities)
      intervals         --widths          masking   --levels
      dates             --units           ordered   --order, --sizes
    --export out.csv writes the ARX format (value;level1;...;*) a spec reads back as {csv: out.csv}.
    """
    from anonymizer.hierarchy.show import (
        format_shown,
        hierarchy_of,
        show_file_column,
        show_spec_column,
        show_table_column,
    )
    try:
        if spec is not None:
            shown = show_spec_column(spec, column, db or DEFAULT_DB, examples, export)
        elif builder is None or (data is None) == (table is None):
            raise SpecError("--builder", "without a SPEC, give --builder and one of --data FILE or --table T")
        else:
            built = hierarchy_of(builder, min_width=min_width, range=bounds, widths=widths, levels=levels,
                                 units=units, order=order, sizes=sizes)
            shown = (show_file_column(data, column, built, examples, export) if data is not None
                     else show_table_column(db or DEFAULT_DB, table, column, built, examples, export))
    except AnonymizerError as exc:
        _fail(exc)
    click.echo(json.dumps(shown.to_dict()) if as_json else format_shown(shown))
    if export and not as_json:
        click.echo(f"written to {export}")


@main.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB database file.")
@click.option("--table-name", help="Table name in schema _anon_lattice (default: the release name).")
@click.option("--experiment", type=click.Choice(["001"]), help="Instead of a SPEC, run paper 001's experiment.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Also plot k and DCP against cost (PNG, matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
def lattice(spec: str | None, db: str, table_name: str | None, experiment: str | None, plot: str | None,
            as_json: bool, quiet: bool) -> None:
    """Evaluate every node of the generalization lattice of SPEC's quasi-identifiers (one
    level per QI): its k, classes, discernibility penalty (DCP) and distortion ratio (paper
    001, Definition 9), into the table _anon_lattice.<release> of DB, which is kept.

    \b
    Paper 001's experiment on the bundled UCI Adult data (loaded into table adult): age,
    education-num and hours-per-week, one lattice per builder (CGH, DBGH, CBGH), a
    comparison of the least distortion ratio and DCP reaching k = 2, 5, 10, 50, 100:
      anonymizer lattice --experiment 001 --plot paper001.png
    Any spec (its hierarchies, its k); the summary names the cheapest nodes reaching k:
      anonymizer lattice examples/adult_lattice.yml --plot adult_lattice.png
      anonymizer lattice release.yml --db warehouse.duckdb --table-name ages_v2 --json
    Apply a node with algorithm {name: full-domain, levels: {age: 3, ...}}.
    """
    from anonymizer.families.generalized.lattice.evaluate import evaluate_spec, format_lattice
    from anonymizer.reproduce.p001_hierarchies.experiment import comparison, format_comparison, paper001
    from anonymizer.reproduce.p001_hierarchies.plots import plot_lattice
    from anonymizer.spec.parse import load_spec
    try:
        if (spec is None) == (experiment is None) or (experiment and table_name):
            raise SpecError("SPEC", "give a release SPEC (optionally --table-name) or --experiment 001")
        with _open_db(db) as con:
            if experiment:
                lattices = paper001(con, _progress(quiet or as_json))
            else:
                parsed = load_spec(spec)
                lattices = {parsed.release: evaluate_spec(con, parsed, table_name, _progress(quiet or as_json))}
        if plot:
            plot_lattice({name: t.nodes for name, t in lattices.items()}, plot)
    except AnonymizerError as exc:
        _fail(exc)
    if experiment:
        compared = comparison(lattices)
        click.echo(json.dumps(compared, default=str) if as_json else format_comparison(compared))
    else:
        found = lattices[parsed.release]
        click.echo(json.dumps(found.to_dict(parsed.k), default=str) if as_json else format_lattice(found, parsed.k))
    if plot and not as_json:
        click.echo(f"plot written to {plot}")


@main.command()
@click.option("--flag-adult", is_flag=True, help="Create table adult_flagged in --db: UCI Adult's complete rows "
              "with a flag per semi-sensitive attribute (sex, age, occupation).")
@click.option("--density", type=_Finite(0, 1), default=0.2, show_default=True,
              help="--flag-adult: the share of each semi-sensitive attribute's cells flagged sensitive.")
@click.option("--experiment", type=click.Choice(["000"]), help="Run paper 000's experiment (section 4).")
@click.option("--ks", default="5,8,10", show_default=True, help="--experiment: values of k, comma separated.")
@click.option("--ls", default="5,8,10,12,15,18,20", show_default=True, help="--experiment: values of l.")
@click.option("--densities", default="0.1,0.2,0.3,0.4", show_default=True,
              help="--experiment: flag densities of section 4.3 (LGB_MDP's query error).")
@click.option("--queries", type=click.IntRange(1), default=1000, show_default=True,
              help="--experiment: random queries per table (section 4.2).")
@click.option("--plots", type=click.Path(file_okay=False), help="--experiment: also write PNG plots here.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the flags and the queries.")
@click.option("--db", default=None, help="DuckDB database file (default: anonymizer.duckdb for --flag-adult, "
              "in memory for --experiment).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def lgb(flag_adult: bool, density: float, experiment: str | None, ks: str, ls: str, densities: str, queries: int,
        plots: str | None, seed: int, db: str | None, as_json: bool, quiet: bool) -> None:
    """Paper 000's LGB (local generalization and bucketization, per-cell sensitivity):
    create the flagged Adult table, or reproduce the paper's experiment.

    \b
    --flag-adult writes table adult_flagged: the 30,162 complete rows of the bundled UCI
    Adult with BOOLEAN flags sex_flag, age_flag, occupation_flag (TRUE: that person treats
    the value as sensitive), each TRUE in about --density of the rows (seeded). Adult has no
    salary: fnlwgt stands in as the sensitive attribute. Then run examples/adult_lgb.yml.

    \b
    --experiment 000 runs section 4 on that table: LGB_MDP and LGB_NCP for every k and l
    at 20 % density (C_DM, NCP and the query error of section 4.2), and LGB_MDP's query
    error at each density (section 4.3); t = 0.2 on sex, l-unique elsewhere. Occupation has
    14 values, so at large l its buckets use the largest l its values allow (printed).
    Tables, then whether each finding of the paper holds, with the numbers. The full run
    is 105 verified (unpublished) releases with 1000 queries each, about 7 minutes.

    \b
      anonymizer lgb --flag-adult --db w.duckdb && anonymizer run examples/adult_lgb.yml --db w.duckdb
      anonymizer lgb --experiment 000 --plots lgb_plots
      anonymizer lgb --experiment 000 --ks 5 --ls 5,10 --densities 0.2 --queries 200 --json
    """
    if flag_adult == bool(experiment):
        _fail(SpecError("lgb", "give exactly one of --flag-adult and --experiment 000"))
    try:
        if flag_adult:
            from anonymizer.datasets.flagged import flagged_adult
            with _open_db(db or DEFAULT_DB) as con:
                flagged_adult(con, "adult_flagged", density, seed)
                rows = con.execute("SELECT count(*) FROM adult_flagged").fetchone()[0]
            click.echo(f"table adult_flagged: {rows} rows, flags at density {density:g} in {db or DEFAULT_DB}")
            return
        _lgb_experiment(ks, ls, densities, queries, plots, seed, db, as_json, quiet)
    except AnonymizerError as exc:
        _fail(exc)


def _lgb_experiment(ks: str, ls: str, densities: str, queries: int, plots: str | None, seed: int,
                    db: str | None, as_json: bool, quiet: bool) -> None:
    from anonymizer.reproduce.p000_lgb.experiment import (
        findings,
        format_caps,
        format_findings,
        format_tables,
        run_experiment,
        to_json,
    )
    k_list, l_list = _numbers(ks, "--ks", int), _numbers(ls, "--ls", int)
    d_list = _numbers(densities, "--densities", float)
    with _open_db(db) as con:
        rows = run_experiment(con, ks=k_list, ls=l_list, densities=d_list, queries=queries, seed=seed,
                              progress=_progress(quiet))
    written = []
    if plots:
        from anonymizer.reproduce.p000_lgb.plots import plot_experiment
        written = plot_experiment(rows, plots)
    found = findings(rows)
    if as_json:
        click.echo(json.dumps(to_json(rows, found, written), default=str))
        return
    click.echo(format_caps(rows) + "\n")
    click.echo(format_tables(rows) + "\n")
    click.echo(format_findings(found))
    for path in written:
        click.echo(f"plot written to {path}")


@main.command(name="ir")
@click.option("--patients", type=click.IntRange(1), help="Create table 'patients' in --db: this many generated "
              "patients with their diagnosis records (paper 004's Table 5 attributes).")
@click.option("--table2", is_flag=True, help="Create table 'patients_table2' in --db: paper 004's Table 2.")
@click.option("--experiment", type=click.Choice(["004"]), help="Run paper 004's experiment (section 5).")
@click.option("--individuals", type=click.IntRange(10), default=None,
              help="--experiment: patients in the generated table (default 500).")
@click.option("--ls", default=None, help="--experiment: values of l (= k), comma separated.")
@click.option("--qis", "qi_sizes", default=None, help="--experiment: values of |QI| (3 to 8), comma separated.")
@click.option("--alphas", default=None, help="--experiment: values of alpha, comma separated.")
@click.option("--betas", default=None, help="--experiment: values of beta, comma separated.")
@click.option("--queries", type=click.IntRange(1), default=None, help="--experiment: COUNT queries per table.")
@click.option("--variants", default=None, help="--experiment: comma separated, of danonyir-el, danonyir-kl, "
              "geneir-kl, danonyir-eab, danonyir-ab, geneir-ab (default: all six).")
@click.option("--repeats", type=click.IntRange(1), default=1, show_default=True,
              help="--experiment: runs per setting (seeds seed, seed+1, ...), averaged.")
@click.option("--plots", type=click.Path(file_okay=False), help="--experiment: also write PNG plots here.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the data, the draws and the queries.")
@click.option("--db", default=None, help="DuckDB database file (default: anonymizer.duckdb for --patients and "
              "--table2, in memory for --experiment).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def ir_command(patients: int | None, table2: bool, experiment: str | None, individuals: int | None, ls: str | None,
               qi_sizes: str | None, alphas: str | None, betas: str | None, queries: int | None,
               variants: str | None, repeats: int,
               plots: str | None, seed: int, db: str | None, as_json: bool, quiet: bool) -> None:
    """Paper 004's individuals with several records (identity-reserved anonymity): create
    the data, or reproduce the paper's experiment.

    \b
    A release keeps each person's records together under a renumbered Id_num: give the
    person's column role 'individual', one sensitive column, algorithm danonyir (clustering
    with set generalization, Algorithm 1) or geneir (taxonomy trees, the baseline), and one
    model: ir-k-anonymity, ir-kl-anonymity, ir-alpha-beta-anonymity, eir-l-diversity or
    eir-alpha-beta-anonymity. The published view has ec_id, id_num, the generalized QIs
    (label, _low/_high or _values) and the sensitive value: Table 4's form.

    \b
      anonymizer ir --table2 --db w.duckdb && anonymizer run examples/table2_eir.yml --db w.duckdb
      anonymizer ir --patients 5000 --db w.duckdb && anonymizer run examples/patients_danonyir.yml --db w.duckdb
      anonymizer ir --experiment 004 --plots ir_plots
      anonymizer ir --experiment 004 --individuals 1000 --ls 2,4,6 --qis 3,6 --queries 200 --json
    """
    if sum([patients is not None, table2, bool(experiment)]) != 1:
        _fail(SpecError("ir", "give exactly one of --patients N, --table2 and --experiment 004"))
    try:
        if patients is not None or table2:
            with _open_db(db or DEFAULT_DB) as con:
                if table2:
                    from anonymizer.reproduce.p004_identity_reserved.worked_example import load_table2
                    click.echo(f"table {load_table2(con)}: paper 004's Table 2 (10 records, 7 individuals) in "
                               f"{db or DEFAULT_DB}")
                    return
                from anonymizer.datasets.patients import patients as generate
                made = generate(con, "patients", individuals=patients, seed=seed)
            click.echo(f"table patients: {made['individuals']} patients, {made['records']} records in "
                       f"{db or DEFAULT_DB}")
            return
        from anonymizer.reproduce.p004_identity_reserved.experiment import format_experiment, main_experiment
        options: dict = {"seed": seed, "repeats": repeats, "plots": plots, "progress": _progress(quiet)}
        for key, option, text, kind in (("ls", "--ls", ls, int), ("qi_sizes", "--qis", qi_sizes, int),
                                        ("alphas", "--alphas", alphas, float), ("betas", "--betas", betas, float)):
            if text is not None:
                options[key] = _numbers(text, option, kind)
        if individuals is not None:
            options["individuals"] = individuals
        if queries is not None:
            options["queries"] = queries
        if variants is not None:
            options["variants"] = _csv(variants)
        with _open_db(db) as con:
            result = main_experiment(con, **options)
        click.echo(json.dumps(result, default=str) if as_json else format_experiment(result))
    except AnonymizerError as exc:
        _fail(exc)


@main.command()
@click.option("--experiment", type=click.Choice(["002"]), required=True, help="The paper whose experiment to run.")
@click.option("--plots", type=click.Path(file_okay=False), help="Also write six PNG plots into this folder.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (rows and findings).")
@click.option("--batch", default="exact", show_default=True, callback=_batch,
              help="The greedy's steps: 'exact' (one record at a time, as the paper) or a fraction in (0, 1].")
@click.option("--sizes", default="1000,2000,3000,4000,5000,6000,7000,8000,9000,10000", show_default=True,
              help="Sweep (1): sample sizes n at d = 3, comma separated.")
@click.option("--dims", default="2,3,4,5", show_default=True,
              help="Sweep (2): numbers of sensitive attributes d (Table 4) at n = 2000, comma separated.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the samples and the greedy's ties.")
@click.option("--db", default=None, help="DuckDB database file to keep the samples (tables paper002_n<n>) and "
              "releases in (default: in memory); its table adult is replaced by the bundled data.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def msb(experiment: str, plots: str | None, as_json: bool, batch: str | float, sizes: str, dims: str, seed: int,
        db: str | None, quiet: bool) -> None:
    """Reproduce paper 002's experiment (section 5): MBF, MSDCF, MMDCF and their MSLF
    variants on the bundled UCI Adult data, then check the paper's claims against the results.

    \b
    The 30,162 complete records of Adult; sensitive attributes from Table 4 (d = 2:
    occupation, education; 3: + marital-status; 4: + workclass; 5: + race) with Table 3's
    security levels; QIs age, sex, native-country (the paper names none; MSB's groups do
    not depend on them). Baselines run multi-l-diversity (l = 3), MSLF variants
    lsl-diversity (l0, l1, l2 = 1, 2, 3). Two sweeps, every algorithm on each setting:
      (1) n = 1000, 2000, ..., 10000 seeded samples at d = 3
      (2) d = 2, 3, 4, 5 at n = 2000
    Prints, per sweep, the additional information loss (Definition 14), suppression
    ratio (Definition 15), groups and seconds, then whether each claim of section 5 holds
    (true, false or partly) with the numbers behind it. A progress line per run goes to
    stderr. The full run is 78 releases and takes under a minute.

    \b
      anonymizer msb --experiment 002 --plots msb_plots
      anonymizer msb --experiment 002 --sizes 1000,2000 --dims 2,3 --json
      anonymizer msb --experiment 002 --batch 0.2     # batched greedy: faster, may differ
    """
    from anonymizer.reproduce.p002_msb.experiment import format_table, run_experiment
    from anonymizer.reproduce.p002_msb.findings import findings, format_findings
    try:
        size_list, dim_list = _numbers(sizes, "--sizes", int), _numbers(dims, "--dims", int)
        with _open_db(db) as con:
            rows = run_experiment(con, sizes=size_list, dims=dim_list, batch=batch, seed=seed,
                                  progress=_progress(quiet))
        written = []
        if plots:
            from anonymizer.reproduce.p002_msb.plots import plot_experiment
            written = plot_experiment(rows, plots)
    except AnonymizerError as exc:
        _fail(exc)
    found = findings(rows)
    if as_json:
        click.echo(json.dumps({"experiment": experiment, "batch": batch, "seed": seed, "rows": rows,
                               "findings": found, "plots": [str(p) for p in written]}, default=str))
        return
    click.echo(format_table(rows))
    click.echo("")
    click.echo(format_findings(found))
    if written:
        click.echo(f"\n{len(written)} plots written to {plots}: " + ", ".join(p.name for p in written))


if __name__ == "__main__":
    main()
