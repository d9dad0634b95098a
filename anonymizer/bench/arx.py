"""Side by side with ARX 3.9.2 (``anonymizer bench arx-grid``): issue 21's table, and issue 57's
local recoding under more models.

Every configuration is a release of ARX's Adult (30,162 rows, its 8 QIs and hierarchies,
bundled in ``anonymizer/data/arx_adult``), run as ARX is timed: one fresh process per run
(``python -m anonymizer.cli run SPEC --db FILE --json``), timed from outside (``whole``, what
a user waits for at the shell), with the release's own ``timings.total`` (``in_process``,
the counterpart of ARX's in-JVM time) and the algorithm's seconds. Medians of ``repeat`` runs.

Groups:

- ``optimal``: the optimal full-domain node (ARX's loss), k = 2, 5, 10, 50 x suppression
  limits 0, 2 and 5 %;
- ``t-closeness``: the optimal node under 0.2-closeness (equal distance) on occupation, 2 %;
- ``local``: local recoding at k = 2, 5, 10, 20, 50, 100, with k-anonymity alone and with
  distinct 3-diversity on occupation;
- ``local-models`` (issue 57): local recoding at k = 2, 5, 10, 50 with distinct 2-diversity on
  occupation, with entropy 2-diversity on occupation, with 0.2-closeness (equal distance) on
  occupation, and with k alone under a 2 % and a 5 % suppression limit (for ARX, what a limit
  means there: :mod:`.arx_live`).
- ``safepub`` (issue 60): SafePub, (ε, δ)-differential privacy at ε = 0.5, 1, 2 and δ = 1e-5
  (:data:`DP_EPSILONS`), the QIs alone published (occupation dropped), each tool at its own
  defaults (ours: :mod:`anonymizer.families.generalized.lattice.safepub`; ARX: its
  ``EDDifferentialPrivacy`` with a search epsilon of 0.1 over 300 steps). Each run is a fresh
  random release, so the loss is the median of the runs' (``losses``: each run's), and the
  verdict gives our whole process as a share of ARX's (issue 60's target, :data:`DP_TIME`).

Our side of the local groups is :data:`OURS_LOCAL`: top-down specialization
(:mod:`anonymizer.families.generalized.top_down`), whose classes are labelled by nodes of the
hierarchies, the form ARX publishes.

ARX's side: with ``--arx-jar`` (``arx_jar``), ARX runs live, each run interleaved with one of
ours (:mod:`.arx_live`); without it, ARX's figures are the ones stored in :data:`ARX`, measured
on this 2-core machine on 2026-11-24, and the table says so. Loss is one measure for both
tools' published tables (:func:`.published_loss.published_loss`: per cell ``(values covered -
1) / (values - 1)``, a suppressed cell costing 1, ARX's loss metric), which on our output is
the release's ``utility["loss"]`` (``release_loss``; the verdict says when they differ). The
verdict compares the whole process (ours against ARX's JVM), our algorithm's seconds against
twice ARX's in-JVM seconds, and the loss.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from anonymizer.demo import data_path

QIS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass", "salary-class")
GROUPS = ("optimal", "t-closeness", "local", "local-models", "safepub")
#: the SafePub group's epsilons, each with delta :data:`DP_DELTA` (issue 60's table)
DP_EPSILONS = (0.5, 1.0, 2.0)
DP_DELTA = 1e-5
#: issue 60's target for SafePub: our whole process at most this share of ARX's
DP_TIME = 0.25
#: our side of the local groups: the algorithm of the spec (swap it here)
OURS_LOCAL = {"name": "top-down"}
#: when the stored figures (:data:`ARX`) were measured, unless an entry's ``measured`` says
STORED_ON = "2026-11-24"

#: ARX 3.9.2 (tag v3.9.2, built from source) on this machine, same data, hierarchies and
#: limits, one JVM per run, each run interleaved with one of ours, medians of 3, on a quiet
#: machine (2026-11-24, or the entry's ``measured``): config name -> ``whole`` (seconds of the
#: JVM process: start, load, anonymize, export), ``jvm`` (seconds of anonymize + output + local recoding inside it),
#: ``loss`` (our ``utility["loss"]`` re-measured on ARX's exported output), ``suppressed``
#: rows, ``checked`` (ARX's ``getTransformationsChecked``). Local recoding is ARX's GUI
#: default (``optimizeIterativeFast(output, 0.01)`` after an optimal step with suppression
#: limit 0.99 and the loss metric with gs factor 0; 0 rows suppressed at the end).
ARX: dict[str, dict] = {
    "t-closeness t=0.2 s=2%": {"whole": 3.47, "jvm": 3.18, "loss": 0.839694, "suppressed": 235, "checked": 4320},
    "optimal k=2 s=0%": {"whole": 1.79, "jvm": 1.35, "loss": 0.554145, "suppressed": 0, "checked": 148},
    "optimal k=2 s=2%": {"whole": 2.03, "jvm": 1.75, "loss": 0.166793, "suppressed": 481, "checked": 356},
    "optimal k=2 s=5%": {"whole": 1.98, "jvm": 1.71, "loss": 0.126421, "suppressed": 1218, "checked": 313},
    "optimal k=5 s=0%": {"whole": 1.8, "jvm": 1.5, "loss": 0.625, "suppressed": 0, "checked": 122},
    "optimal k=5 s=2%": {"whole": 2.39, "jvm": 2.04, "loss": 0.290472, "suppressed": 506, "checked": 538},
    "optimal k=5 s=5%": {"whole": 1.94, "jvm": 1.67, "loss": 0.191258, "suppressed": 1346, "checked": 447},
    "optimal k=10 s=0%": {"whole": 1.66, "jvm": 1.4, "loss": 0.679145, "suppressed": 0, "checked": 107},
    "optimal k=10 s=2%": {"whole": 2.15, "jvm": 1.83, "loss": 0.314727, "suppressed": 592, "checked": 513},
    "optimal k=10 s=5%": {"whole": 1.95, "jvm": 1.68, "loss": 0.245492, "suppressed": 1437, "checked": 515},
    "optimal k=50 s=0%": {"whole": 1.44, "jvm": 1.18, "loss": 0.679145, "suppressed": 0, "checked": 69},
    "optimal k=50 s=2%": {"whole": 1.99, "jvm": 1.71, "loss": 0.480128, "suppressed": 527, "checked": 414},
    "optimal k=50 s=5%": {"whole": 2.19, "jvm": 1.89, "loss": 0.401273, "suppressed": 1022, "checked": 481},
    "local k=2": {"whole": 1.98, "jvm": 1.7, "loss": 0.019158},
    "local k=5": {"whole": 2.84, "jvm": 2.46, "loss": 0.035744},
    "local k=10": {"whole": 3.09, "jvm": 2.78, "loss": 0.052174},
    "local k=20": {"whole": 3.86, "jvm": 3.43, "loss": 0.070856},
    "local k=50": {"whole": 4.19, "jvm": 3.83, "loss": 0.107226},
    "local k=100": {"whole": 6.13, "jvm": 5.77, "loss": 0.13896},
    "local k=2 l=3": {"whole": 2.95, "jvm": 2.6, "loss": 0.036921},
    "local k=5 l=3": {"whole": 3.95, "jvm": 3.54, "loss": 0.039618},
    "local k=10 l=3": {"whole": 4.7, "jvm": 4.27, "loss": 0.052388},
    "local k=20 l=3": {"whole": 4.43, "jvm": 4.07, "loss": 0.071411},
    "local k=50 l=3": {"whole": 5.87, "jvm": 5.6, "loss": 0.105972},
    "local k=100 l=3": {"whole": 7.5, "jvm": 7.11, "loss": 0.13896},
    # SafePub (EDDifferentialPrivacy at ARX's defaults: search epsilon 0.1, 300 steps), random:
    # medians of 7 runs, each interleaved with one of ours (bench arx-grid --group safepub)
    "safepub eps=0.5": {"whole": 2.43, "jvm": 0.62, "loss": 0.842663, "suppressed": 21686, "measured": "2026-12-01"},
    "safepub eps=1": {"whole": 2.42, "jvm": 0.63, "loss": 0.714835, "suppressed": 15462, "measured": "2026-12-01"},
    "safepub eps=2": {"whole": 2.9, "jvm": 1.02, "loss": 0.58931, "suppressed": 6713, "measured": "2026-12-01"},
}


@dataclass(frozen=True)
class Config:
    """One release of the grid: a name, its group, models, algorithm and suppression limit."""

    name: str
    group: str
    models: list = field(hash=False)
    algorithm: dict = field(hash=False)
    suppression: float = 0.0

    @property
    def local(self) -> bool:
        """Local recoding (the ``local`` groups), else the optimal global node."""
        return self.group.startswith("local")

    @property
    def dp(self) -> bool:
        """A SafePub release (the ``safepub`` group): each run a fresh random one."""
        return self.algorithm.get("name") == "safepub"

    @property
    def view(self) -> str:
        """The release's view (in schema ``published``)."""
        return "arx_" + "".join(c if c.isalnum() else "_" for c in self.name)

    def spec(self) -> dict:
        """The release spec over the bundled ARX Adult."""
        columns: dict = {q: {"role": "quasi", "hierarchy": {"csv": str(_data(f"adult_hierarchy_{q}.csv"))}}
                         for q in QIS}
        columns["age"]["type"] = "numeric"
        columns["occupation"] = {"role": "sensitive" if any(m.get("sensitive") for m in self.models)
                                 else "insensitive"}
        view = self.view
        spec = {"release": view, "source": {"path": str(_data("adult.csv.gz")), "delimiter": ";", "table": "adult"},
                "columns": columns, "models": self.models, "algorithm": self.algorithm,
                "suppression_limit": self.suppression, "output": {"view": view}}
        if self.dp:   # SafePub publishes its QIs only; each run a fresh database, its budget one release's
            columns["occupation"] = {"role": "identifier"}
            spec.update(default_role="identifier", models=None, suppression_limit=None,
                        budget={"epsilon": self.algorithm["epsilon"], "delta": self.algorithm["delta"]})
        return {key: value for key, value in spec.items() if value is not None}


def _data(name: str) -> Path:
    return data_path(f"arx_adult/{name}")


def configs(groups: tuple[str, ...] = GROUPS) -> list[Config]:
    """The grid's configurations, group by group (see the module docstring)."""
    out = []
    if "optimal" in groups:
        out += [Config(f"optimal k={k} s={s}%", "optimal", [{"type": "k-anonymity", "k": k}], {"name": "optimal"},
                       s / 100) for k in (2, 5, 10, 50) for s in (0, 2, 5)]
    if "t-closeness" in groups:
        out.append(Config("t-closeness t=0.2 s=2%", "t-closeness",
                          [{"type": "t-closeness", "t": 0.2, "distance": "equal", "sensitive": "occupation"}],
                          {"name": "optimal"}, 0.02))
    if "local" in groups:
        for l_div in (False, True):
            for k in (2, 5, 10, 20, 50, 100):
                models = [{"type": "k-anonymity", "k": k}]
                if l_div:
                    models.append({"type": "distinct-l-diversity", "l": 3, "sensitive": "occupation"})
                out.append(Config(f"local k={k}" + (" l=3" if l_div else ""), "local", models, OURS_LOCAL))
    if "local-models" in groups:
        more = (("l=2", [{"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"}], 0.0),
                ("entropy-l=2", [{"type": "entropy-l-diversity", "l": 2, "sensitive": "occupation"}], 0.0),
                ("t=0.2", [{"type": "t-closeness", "t": 0.2, "distance": "equal", "sensitive": "occupation"}], 0.0),
                ("s=2%", [], 0.02), ("s=5%", [], 0.05))
        for suffix, models, limit in more:
            out += [Config(f"local k={k} {suffix}", "local-models", [{"type": "k-anonymity", "k": k}, *models],
                           OURS_LOCAL, limit) for k in (2, 5, 10, 50)]
    if "safepub" in groups:
        out += [Config(f"safepub eps={e:g}", "safepub", [], {"name": "safepub", "epsilon": e, "delta": DP_DELTA})
                for e in DP_EPSILONS]
    return out


def run_config(config: Config, workdir: Path) -> dict:
    """One run in a fresh process: the whole process's seconds and the release's figures, and
    its published table exported (untimed) to ``workdir/ours.csv`` (``published``); ``error``
    instead when the run fails."""
    spec = workdir / "spec.json"                  # JSON is YAML: the spec loader reads it
    spec.write_text(json.dumps(config.spec()))
    db = workdir / "bench.duckdb"
    db.unlink(missing_ok=True)
    # as a user's install runs: Python reads the package's compiled bytecode (pip compiles it at
    # install; an editable install writes it on first import) unless told not to
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "anonymizer.cli", "run", str(spec), "--db", str(db), "--json"],
                          capture_output=True, text=True, env=env)
    whole = time.perf_counter() - start
    if done.returncode != 0:
        said = done.stderr.strip().splitlines() or [f"exit {done.returncode}"]
        return {"whole": whole, "error": f"anonymizer run exited {done.returncode}: {said[-1][:300]}"}
    out = json.loads(done.stdout)
    algorithm = out.get("algorithm", {})
    return {"whole": whole, "in_process": out["timings"]["total"], "algorithm_seconds": out["timings"]["algorithm"],
            "release_loss": out["utility"]["loss"], "suppressed": out["suppressed"], "classes": out["classes"],
            "node": algorithm.get("levels") or algorithm.get("safepub", {}).get("levels"),
            "checks": algorithm.get("checks"),
            "published": export_published(db, config.view, workdir / "ours.csv")}


def export_published(db: Path, view: str, path: Path) -> Path:
    """Copy the view ``published.<view>`` of database file ``db`` to the CSV file ``path``."""
    import duckdb

    from anonymizer.engine.names import in_catalog
    from anonymizer.engine.session import Engine
    con = duckdb.connect(str(db), read_only=True)
    try:
        Engine(con).run("publish/export.sql.j2", {"path": str(path)}, relation=in_catalog(None, "published", view),
                        order=None, format="csv", compression="", tab=False)
    finally:
        con.close()
    return path


def run_arx_grid(groups: tuple[str, ...] = GROUPS, repeat: int = 3, say: Callable[[str], None] | None = None,
                 arx_jar: str | Path | None = None, driver: Path | None = None,
                 names: tuple[str, ...] = ()) -> Iterator[dict]:
    """Run every configuration of ``groups`` (only those called ``names``, when given) ``repeat``
    times; yield one line per configuration (medians).

    With ``arx_jar``, ARX runs live beside ours, one JVM per run, the two taking turns (ours,
    ARX, ours, ARX, ...; :mod:`.arx_live`; ``driver``: another driver source, for tests); without
    it, ``arx`` holds the stored figures (:data:`ARX`). ``arx_source`` says which.
    """
    from anonymizer.bench.arx_live import LiveArx, arx_args, summarize
    from anonymizer.bench.published_loss import published_loss
    with tempfile.TemporaryDirectory(prefix="anon_arx_grid_") as tmp:
        work = Path(tmp)
        hierarchies = {q: _data(f"adult_hierarchy_{q}.csv") for q in QIS}
        live = None
        if arx_jar is not None:
            live = LiveArx.prepare(arx_jar, work, _data("adult.csv.gz"), _data("adult.csv.gz").parent, QIS,
                                   driver)

        def measure(published: Path, delimiter: str = ";") -> dict:
            return published_loss(published, _data("adult.csv.gz"), hierarchies, delimiter=delimiter)

        for config in configs(groups):
            if names and config.name not in names:
                continue
            ours, theirs = [], []
            for i in range(repeat):   # each run's table measured before the next overwrites it
                ours.append(_measured(run_config(config, work), lambda path: measure(path, ",")))
                if say:
                    say(f"{config.name}: ours {i + 1}/{repeat} {ours[-1]['whole']:.2f} s")
                if live is not None:
                    theirs.append(_measured(live.run(config.name, arx_args(config.models, config.suppression,
                                                                           config.local, config.algorithm),
                                                     work / "arx.csv"), measure))
                    if say:
                        say(f"{config.name}: ARX {i + 1}/{repeat} {theirs[-1]['whole']:.2f} s")
            line = {"bench": "arx-grid", "config": config.name, "group": config.group, "runs": repeat,
                    "form": FORMS[config.algorithm.get("labels", "hierarchy")]}
            line.update(_ours(ours))
            line["arx_source"] = "stored" if live is None else "live"
            line["arx"] = ARX.get(config.name) if live is None else summarize(theirs)
            yield line


def _measured(run: dict, measure: Callable[[Path], dict]) -> dict:
    """``run`` with its published table's loss (``loss``) in place of the table's path."""
    published = run.pop("published", None)
    if published is not None:
        run["loss"] = measure(published)["loss"]
    return run


def _ours(runs: list[dict]) -> dict:
    """Our side of a line: medians of the runs' seconds, of their tables' loss (a SafePub
    release is random: ``losses`` holds every run's) and of the releases' own, the last run's
    other figures."""
    failed = [r["error"] for r in runs if "error" in r]
    if failed:
        return {"error": failed[0]}
    out = {key: statistics.median(r[key] for r in runs)
           for key in ("whole", "in_process", "algorithm_seconds", "loss", "release_loss")}
    out["losses"] = [r["loss"] for r in runs]
    out.update({key: runs[-1][key] for key in ("suppressed", "classes", "node", "checks")})
    return out


#: what our side publishes (``form`` in a line), by the spec's ``algorithm.labels``; ARX
#: publishes hierarchy nodes in every configuration
FORMS = {"hierarchy": "hierarchy nodes", "values": "value sets and ranges"}


def format_arx_grid(lines: list[dict]) -> str:
    """The table of issues 21 and 57: ours next to ARX's, a verdict per row; its heading says
    whether ARX's column was measured live or is the stored figures."""
    live = [x["arx"].get("tool") for x in lines if x.get("arx_source") == "live" and x["arx"]]
    stored = sorted({(x["arx"] or {}).get("measured", STORED_ON) for x in lines})
    said = (f"{(live[0] if live and live[0] else 'ARX')}: live, interleaved (seconds: medians)" if live else
            f"ARX 3.9.2: stored figures measured {' and '.join(stored)} (not live)")
    head = (f"{'configuration':<24} {'whole':>6} {'in-proc':>7} {'algo':>6} {'loss':>8} {'supp':>5} | "
            f"{'ARX whole':>9} {'in-JVM':>6} {'loss':>8} {'supp':>5} | verdict")
    rows = ["ours (seconds: medians)".ljust(59) + "| " + said, head, "-" * len(head)]
    for x in lines:
        arx = x["arx"] or {}
        if "error" in x:
            ours = f"{'ours failed':>38}"
        else:
            ours = (f"{x['whole']:>6.2f} {x['in_process']:>7.2f} {x['algorithm_seconds']:>6.2f} "
                    f"{x['loss']:>8.6f} {x['suppressed']:>5}")
        rows.append(f"{x['config']:<24} {ours} | {_num(arx.get('whole'), '.2f'):>9} "
                    f"{_num(arx.get('jvm'), '.2f'):>6} {_num(arx.get('loss'), '.6f'):>8} "
                    f"{_num(arx.get('suppressed'), 'd'):>5} | {_verdict(x, arx)}")
    failures = [f"{x['config']}: {side} {failed['error']}" for x in lines
                for side, failed in (("ours:", x), ("ARX:", x["arx"] or {})) if "error" in failed]
    other = sorted({x["group"] for x in lines if x.get("form", FORMS["hierarchy"]) != FORMS["hierarchy"]})
    forms = [f"{', '.join(other)}: ours publishes each class's {FORMS['values']}, ARX hierarchy nodes; "
             "the loss columns compare different published forms"] if other else []
    return "\n".join(rows + failures + forms)


def _verdict(x: dict, arx: dict) -> str:
    """Per row: the whole process against ARX's JVM process and our algorithm against twice
    ARX's in-JVM time (issue 21's targets; for SafePub, issue 60's: the whole process at most
    :data:`DP_TIME` of ARX's), the loss against ARX's (to its 6 printed digits), and whether our
    tables' measured loss is the releases' own."""
    parts = []
    if "error" in x or "error" in arx:
        parts.append("FAILED")
    elif arx:
        if x.get("group") == "safepub":
            ratio = x["whole"] / arx["whole"]
            parts.append(f"time {ratio:.2f}x ARX" if ratio <= DP_TIME else f"TIME {ratio:.2f}x ARX > {DP_TIME}x")
        else:
            parts += ["faster" if x["whole"] <= arx["whole"] else "SLOWER",
                      "algo <= 2x JVM" if x["algorithm_seconds"] <= 2 * arx["jvm"] else "ALGO > 2x JVM"]
        if arx.get("loss") is not None:
            parts.append(("loss <= ARX" if x["loss"] <= arx["loss"] + 5e-7 else "LOSS > ARX") +
                         (" (other form)" if x.get("form", FORMS["hierarchy"]) != FORMS["hierarchy"] else ""))
    if x.get("release_loss") is not None and abs(x["loss"] - x["release_loss"]) > 1e-9:
        parts.append(f"LOSS MEASURES DIFFER (release: {x['release_loss']:.6f})")
    return ", ".join(parts) or "-"


def _num(value, form: str) -> str:
    return "-" if value is None else format(value, form)
