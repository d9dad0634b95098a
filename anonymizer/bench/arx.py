"""Side by side with ARX 3.9.2 (``anonymizer bench arx-grid``): our side of issue 21's table.

Every configuration is a release of ARX's Adult (30,162 rows, its 8 QIs and hierarchies,
bundled in ``anonymizer/data/arx_adult``), run as ARX was timed: one fresh process per run
(``python -m anonymizer.cli run SPEC --db FILE --json``), timed from outside (``whole``, what
a user waits for at the shell), with the release's own ``timings.total`` (``in_process``,
the counterpart of ARX's in-JVM time) and the algorithm's seconds. Medians of ``repeat`` runs.

Groups:

- ``optimal``: the optimal full-domain node (ARX's loss), k = 2, 5, 10, 50 x suppression
  limits 0, 2 and 5 %;
- ``t-closeness``: the optimal node under 0.2-closeness (equal distance) on occupation, 2 %;
- ``local``: local recoding at k = 2, 5, 10, 20, 50, 100, with k-anonymity alone and with
  distinct 3-diversity on occupation.

ARX's figures (:data:`ARX`) were measured on this 2-core machine with ARX 3.9.2 on the same
data, hierarchies and limits (issue 21, medians of 3 to 6 runs); ``loss`` is ARX's loss
metric, per cell ``(values covered - 1) / (values - 1)``, a suppressed cell costing 1, which
is our ``utility["loss"]``.
"""

from __future__ import annotations

import json
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
GROUPS = ("optimal", "t-closeness", "local")

#: ARX 3.9.2 on this machine (issue 21): config name -> figures. ``whole``: seconds of the
#: whole JVM process; ``jvm``: seconds inside it; ``loss``; ``suppressed`` rows.
ARX: dict[str, dict] = {
    "t-closeness t=0.2 s=2%": {"whole": 17.9, "jvm": 6.0, "suppressed": 235},
    "local k=2": {"whole": 7.4, "loss": 0.019},
    "local k=5": {"whole": 9.9, "loss": 0.036},
    "local k=10": {"whole": 5.7, "loss": 0.052},
    "local k=50": {"whole": 17.0, "loss": 0.107},
}
#: the issue's figures for the 12 optimal configurations, as ranges (whole process, in-JVM)
ARX_OPTIMAL_RANGE = {"whole": (4.0, 9.3), "jvm": (0.060, 1.490)}


@dataclass(frozen=True)
class Config:
    """One release of the grid: a name, its group, models, algorithm and suppression limit."""

    name: str
    group: str
    models: list = field(hash=False)
    algorithm: dict = field(hash=False)
    suppression: float = 0.0

    def spec(self) -> dict:
        """The release spec over the bundled ARX Adult."""
        columns: dict = {q: {"role": "quasi", "hierarchy": {"csv": str(_data(f"adult_hierarchy_{q}.csv"))}}
                         for q in QIS}
        columns["age"]["type"] = "numeric"
        columns["occupation"] = {"role": "sensitive" if any(m.get("sensitive") for m in self.models)
                                 else "insensitive"}
        view = "arx_" + "".join(c if c.isalnum() else "_" for c in self.name)
        return {"release": view, "source": {"path": str(_data("adult.csv.gz")), "delimiter": ";", "table": "adult"},
                "columns": columns, "models": self.models, "algorithm": self.algorithm,
                "suppression_limit": self.suppression, "output": {"view": view}}


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
                out.append(Config(f"local k={k}" + (" l=3" if l_div else ""), "local", models,
                                  {"name": "mondrian", "labels": "values"}))
    return out


def run_config(config: Config, workdir: Path) -> dict:
    """One run in a fresh process: the whole process's seconds and the release's figures."""
    spec = workdir / "spec.json"                  # JSON is YAML: the spec loader reads it
    spec.write_text(json.dumps(config.spec()))
    db = workdir / "bench.duckdb"
    db.unlink(missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "anonymizer.cli", "run", str(spec), "--db", str(db), "--json"],
                          capture_output=True, text=True)
    whole = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{config.name}: anonymizer run exited {done.returncode}: {done.stderr.strip()[-400:]}")
    out = json.loads(done.stdout)
    algorithm = out.get("algorithm", {})
    return {"whole": whole, "in_process": out["timings"]["total"], "algorithm_seconds": out["timings"]["algorithm"],
            "loss": out["utility"]["loss"], "suppressed": out["suppressed"], "classes": out["classes"],
            "node": algorithm.get("levels"), "checks": algorithm.get("checks")}


def run_arx_grid(groups: tuple[str, ...] = GROUPS, repeat: int = 3,
                 say: Callable[[str], None] | None = None) -> Iterator[dict]:
    """Run every configuration ``repeat`` times; yield one line per configuration (medians)."""
    with tempfile.TemporaryDirectory(prefix="anon_arx_grid_") as tmp:
        for config in configs(groups):
            runs = []
            for i in range(repeat):
                runs.append(run_config(config, Path(tmp)))
                if say:
                    say(f"{config.name}: run {i + 1}/{repeat} {runs[-1]['whole']:.2f} s")
            line = {"bench": "arx-grid", "config": config.name, "group": config.group, "runs": repeat}
            line.update({key: statistics.median(r[key] for r in runs)
                         for key in ("whole", "in_process", "algorithm_seconds")})
            line.update({key: runs[-1][key] for key in ("loss", "suppressed", "classes", "node", "checks")})
            line["arx"] = ARX.get(config.name)
            yield line


def format_arx_grid(lines: list[dict]) -> str:
    """The table of issue 21: ours next to ARX's, a verdict per row."""
    head = f"{'configuration':<26} {'ours whole':>10} {'in-proc':>8} {'loss':>7} {'supp':>5} | " \
           f"{'ARX whole':>9} {'in-JVM':>7} {'loss':>6} {'supp':>5} | verdict"
    rows = [head, "-" * len(head)]
    for x in lines:
        arx = x["arx"] or {}
        if x["group"] == "optimal":
            lo, hi = ARX_OPTIMAL_RANGE["whole"]
            arx = {"whole": lo, "jvm": ARX_OPTIMAL_RANGE["jvm"][0]}
        verdict = _verdict(x, arx)
        rows.append(f"{x['config']:<26} {x['whole']:>9.2f}s {x['in_process']:>7.2f}s {x['loss']:>7.4f} "
                    f"{x['suppressed']:>5} | {_num(arx.get('whole'), 's'):>9} {_num(arx.get('jvm'), 's'):>7} "
                    f"{_num(arx.get('loss')):>6} {_num(arx.get('suppressed')):>5} | {verdict}")
    rows.append("ARX: 3.9.2 on this machine (issue 21); optimal rows compare with the fastest of ARX's 12 "
                "(4.0 s whole, 0.06 s in-JVM).")
    return "\n".join(rows)


def _verdict(x: dict, arx: dict) -> str:
    """``ahead``/``behind`` on time (whole process) and, where ARX's loss is known, on loss."""
    parts = []
    if arx.get("whole") is not None:
        parts.append("faster" if x["whole"] <= arx["whole"] else "SLOWER")
    if arx.get("loss") is not None:
        parts.append("loss <= ARX" if x["loss"] <= arx["loss"] + 5e-4 else "LOSS > ARX")
    return ", ".join(parts) or "-"


def _num(value, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) and value < 1 else f"{value}{unit}"
