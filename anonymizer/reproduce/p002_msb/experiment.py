"""Paper 002's experiment (section 5, Tables 2-4) on the bundled UCI Adult data.

"The microdata contains 30162 complete records ... the Occupation field, the Education field,
the Marital field, the Workclass field and the Race field are chosen as multiple sensitive
attributes ... (1) changing the number of records (i.e., the value of n is from 1000 to 10000)
when the number of sensitive attributes is set to three; (2) changing the number of sensitive
attributes (i.e., the value of d is from 2 to 5) when the number of records is set to 2000."
Each of MBF, MSDCF, MMDCF (``multi-l-diversity``, l = 3) and their MSLF variants
(``lsl-diversity``, l0, l1, l2 = 1, 2, 3) runs on every setting; the paper compares the
additional information loss (Definition 14), the suppression ratio (Definition 15) and the
CPU runtime (its Figures 2-23).

Choices (the paper does not give them):

- Records: the 30,162 rows of ``adult.data`` without a missing workclass, occupation or
  native-country (the paper's "complete records"). A sample of n is drawn in SQL, ordered by
  ``hash(rowid, seed)`` (the row's position in ``adult.data``), so it is deterministic, the
  same for every algorithm at a given n, and the samples are nested (the 1000 records are
  among the 2000). Sensitive values absent from a sample are dropped from Table 3's
  overrides (a spec naming a value absent from the data is an error).
- Composite sensitive attributes: Table 4 (d = 2: occupation, education; 3: + marital;
  4: + workclass; 5: + race); security levels: Table 3 (:mod:`anonymizer.reproduce.p002_msb.setting`).
- Quasi-identifiers: age, sex, native-country, the fields left over from the paper's nine
  (its Table 2 names only the sensitive ones). The paper does not say which QIs it used; it
  does not matter here, since MSB forms its groups from the sensitive values alone (the QI
  table only carries each record's group id).
- Greedy: ``batch="exact"`` by default, the paper's one-record-at-a-time greedy (a fraction
  batches steps; see :mod:`anonymizer.families.anatomy.greedy`); ties broken by a seeded
  hash of the sensitive vector (the paper picks tied buckets at random).
- Runtime: ``algorithm_seconds`` is the release's algorithm phase (bucket counts in SQL, the
  greedy, the assignment of rows to groups), ``greedy_seconds`` the greedy alone,
  ``total_seconds`` the whole release (load, verification and publication of both anatomy
  tables included). The paper's figures are CPU seconds of a C++ program, not comparable.

The run at n = 2000, d = 3 belongs to both sweeps; it runs once and gives a row to each.
:func:`findings` checks the paper's claims against the rows, with the numbers behind each
verdict; nothing in it is hard-coded.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable, Sequence

import duckdb

from anonymizer.demo import load_adult
from anonymizer.errors import SpecError
from anonymizer.reproduce.p002_msb.setting import ADULT_COLUMNS, ALGORITHMS, TABLE4, msb_spec
from anonymizer.engine.names import ident

SIZES: tuple[int, ...] = tuple(range(1000, 10001, 1000))   # sweep (1): n, at d = SIZE_D
DIMS: tuple[int, ...] = (2, 3, 4, 5)                        # sweep (2): d, at n = DIM_N
SIZE_D = 3
DIM_N = 2000
QIS = ("age", "sex", "native-country")
COMPLETE = ("workclass", "occupation", "native-country")    # the columns holding Adult's '?'
SOURCE = "adult"
COMPLETE_ROWS = 30162                                       # rows of adult.data without NULL in COMPLETE
BASELINES = tuple(a for a in ALGORITHMS if not a.endswith("-mslf"))
MSLF = {b: f"{b}-mslf" for b in BASELINES}

#: a loss within this of 0 counts as 0; spreads within this count as stable
EPS = 1e-9


def sample_table(con: duckdb.DuckDBPyConnection, n: int, seed: int = 0) -> str:
    """Table ``paper002_n<n>``: ``n`` complete records of table ``adult`` (sampled by
    ``hash(rowid, seed)``); returns its name."""
    name = f"paper002_n{n}"
    complete = " AND ".join(f"{ident(c)} IS NOT NULL" for c in COMPLETE)
    con.execute(f"CREATE OR REPLACE TABLE {ident(name)} AS SELECT * FROM {ident(SOURCE)} WHERE {complete} "
                f"ORDER BY hash(rowid, {int(seed)}), rowid LIMIT {int(n)}")
    return name


def present_values(con: duckdb.DuckDBPyConnection, table: str,
                   columns: dict[str, str] = ADULT_COLUMNS) -> dict[str, list[str]]:
    """The distinct values of each of Table 2's sensitive columns in ``table`` (one aggregate)."""
    cols = list(columns.values())
    row = con.execute("SELECT " + ", ".join(f"list(DISTINCT {ident(c)})" for c in cols)
                      + f" FROM {ident(table)}").fetchone()
    return dict(zip(cols, row))


def _runs(sizes: Sequence[int], dims: Sequence[int]) -> list[tuple[int, int]]:
    """The distinct (n, d) settings of both sweeps, in order."""
    settings = [(n, SIZE_D) for n in sizes] + [(DIM_N, d) for d in dims]
    return list(dict.fromkeys(settings))


def run_experiment(con: duckdb.DuckDBPyConnection | None = None, *, sizes: Iterable[int] = SIZES,
                   dims: Iterable[int] = DIMS, algorithms: Iterable[str] = ALGORITHMS, batch: str | float = "exact",
                   seed: int = 0, progress: Callable[[str], None] | None = None) -> list[dict]:
    """Load Adult into table ``adult`` of ``con`` (a new in-memory database if ``None``), run
    every algorithm on every setting of both sweeps (each its own release
    ``paper002_n<n>_d<d>_<algorithm>``, published with ``force``) and return the rows.

    A row: ``sweep`` ("n" or "d"), ``setting`` (its n or d), ``algorithm``, ``n``, ``d``,
    ``additional_information_loss``, ``suppression_ratio``, ``groups``, ``suppressed``,
    ``residual_added``, ``greedy_steps``, ``algorithm_seconds``, ``greedy_seconds``,
    ``total_seconds``, ``release``. ``seed`` draws the samples and breaks the greedy's ties.
    """
    sizes, dims, algorithms = list(sizes), list(dims), list(algorithms)
    for d in dims:
        if d not in TABLE4:
            raise SpecError("dims", f"Table 4 has d = {min(TABLE4)} .. {max(TABLE4)}", d)
    for n in sizes:
        if not 0 < n <= COMPLETE_ROWS:
            raise SpecError("sizes", f"a sample size is 1 .. {COMPLETE_ROWS} (the complete records)", n)
    for a in algorithms:
        if a not in ALGORITHMS:
            raise SpecError("algorithms", f"one of {', '.join(ALGORITHMS)}", a)
    con = con if con is not None else duckdb.connect()
    from anonymizer.api import anonymize
    from anonymizer.families.anatomy.greedy import warm
    warm()      # numba compiles the greedy once per installation: not in the first run's seconds
    load_adult(con, SOURCE)
    measured: dict[tuple[int, int, str], dict] = {}
    tables: dict[int, tuple[str, dict]] = {}
    runs = _runs(sizes, dims)
    total = len(runs) * len(algorithms)
    for n, d in runs:
        if n not in tables:
            table = sample_table(con, n, seed)
            tables[n] = (table, present_values(con, table))
        table, present = tables[n]
        for algorithm in algorithms:
            release = f"paper002_n{n}_d{d}_{algorithm.replace('-', '_')}"
            spec = msb_spec(table, algorithm, d, QIS, present=present, batch=batch, seed=seed, release=release)
            t0 = time.perf_counter()
            result = anonymize(spec, con=con, force=True)
            wall = time.perf_counter() - t0
            notes, utility = result.algorithm, result.utility
            measured[n, d, algorithm] = {
                "algorithm": algorithm, "n": n, "d": d,
                "additional_information_loss": float(utility["additional_information_loss"]),
                "suppression_ratio": float(utility["suppression_ratio"]),
                "groups": int(notes["groups"]), "suppressed": int(notes["suppressed"]),
                "residual_added": int(notes["residual_added"]), "greedy_steps": int(notes["greedy_steps"]),
                "algorithm_seconds": float(result.timings["algorithm"]),
                "greedy_seconds": float(notes["greedy_seconds"]),
                "total_seconds": float(result.timings["total"]), "release": result.view}
            if progress:
                m = measured[n, d, algorithm]
                progress(f"[{len(measured)}/{total}] n={n} d={d} {algorithm}: loss "
                         f"{m['additional_information_loss']:.4f}, suppression {m['suppression_ratio']:.4f}, "
                         f"{m['groups']} groups, {wall:.2f} s")
    rows = [{"sweep": "n", "setting": n, **measured[n, SIZE_D, a]} for n in sizes for a in algorithms]
    rows += [{"sweep": "d", "setting": d, **measured[DIM_N, d, a]} for d in dims for a in algorithms]
    return rows


# -- tables ---------------------------------------------------------------------------------
MEASURES = (("additional_information_loss", "additional information loss (Definition 14)", "{:.4f}"),
            ("suppression_ratio", "suppression ratio (Definition 15)", "{:.4f}"),
            ("groups", "groups", "{:d}"),
            ("algorithm_seconds", "algorithm seconds (buckets, greedy, assignment)", "{:.3f}"),
            ("total_seconds", "release seconds (all phases, both anatomy tables)", "{:.3f}"))

SWEEP_TITLES = {"n": f"sweep (1): n = number of records, d = {SIZE_D} (Figures 2-4, 8-10, 14-16, 20-21)",
                "d": f"sweep (2): d = number of sensitive attributes, n = {DIM_N} (Figures 5-7, 11-13, 17-19, 22-23)"}


def present_algorithms(rows: list[dict]) -> list[str]:
    present = {r["algorithm"] for r in rows}
    return [a for a in ALGORITHMS if a in present]


def format_table(rows: list[dict]) -> str:
    """One table per sweep: a block per measure, a line per n (or d), a column per algorithm."""
    algs = present_algorithms(rows)
    width = max([11] + [len(a) + 1 for a in algs])
    lines: list[str] = []
    for sweep, title in SWEEP_TITLES.items():
        part = [r for r in rows if r["sweep"] == sweep]
        if not part:
            continue
        settings = list(dict.fromkeys(r["setting"] for r in part))
        cell = {(r["setting"], r["algorithm"]): r for r in part}
        if lines:
            lines.append("")
        lines += [title, "=" * len(title)]
        for key, label, fmt in MEASURES:
            lines += ["", label, f"{sweep:>6}" + "".join(f"{a:>{width}}" for a in algs)]
            for s in settings:
                cells = ["-" if (s, a) not in cell else fmt.format(cell[s, a][key]) for a in algs]
                lines.append(f"{s:>6}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)
