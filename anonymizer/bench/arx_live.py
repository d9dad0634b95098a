"""ARX run live beside ours: ``anonymizer bench arx-grid --arx-jar JAR`` (issue 57).

The bench's driver, ``ArxBench.java`` (package data beside this module), is compiled with
``javac`` into a temporary folder against the jar the user gives (ARX's library jar with its
dependencies, as ARX releases ``libarx-3.9.2.jar``), and each ARX run is one JVM
(``java -cp JAR:DIR ArxBench ...``) on the same data and hierarchies as our release: timed
whole from outside (start, load, anonymize, write the published table), with the driver's JSON
line giving the seconds inside the JVM (``cold_ms``: anonymize, and for local recoding the
iterations). The grid runs ours and ARX's in turn (ours, ARX, ours, ARX, ...) so that both see
the same load, and measures both published tables with one function
(:func:`anonymizer.bench.published_loss.published_loss`).

ARX's set-ups (``ArxBench.java``): global recoding is Flash's optimal node under ARX's loss
metric (gs factor 0.5, geometric mean) and the configuration's suppression limit. Local
recoding is the GUI's (``WorkerAnonymize``): the loss metric with gs factor 0, a first
(global) step under the suppression limit ``1 - 1/100``, then
``ARXResult.optimizeIterativeFast(output, 1/100)``, which re-anonymizes the rows still
suppressed, 1 % of the table at a time, until a step recodes none.

A suppression limit with local recoding: ARX's GUI does not combine them. ``WorkerAnonymize``
(ARX 3.9.2, ``src/gui/.../worker/WorkerAnonymize.java``) saves the user's limit, overwrites it
with ``1 - 1/iterations`` for local recoding and restores it afterwards, so in the GUI a 2 %
limit gives exactly the output without it; and ``optimizeIterativeFast`` recodes every row it
can, whatever limit the first step had (a row it recodes costs less than a suppressed one, so
stopping early to use a suppression budget only adds loss). What the API offers is the limit
on the first step: ``ARXConfiguration.setSuppressionLimit`` bounds the rows the optimal global
node may suppress, and ``optimizeFast`` only ever works on those rows (``ARXResult``). So a
local configuration with a limit (``local k=K s=2%`` or ``s=5%``) runs ARX with the first
step's limit at 2 % (5 %) instead of 99 %, then the same iterations: local recoding of what a
2 %-limited (5 %-limited) optimal generalization suppressed. The driver's ``supp=`` argument
does this in ``mode=local``.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import statistics
import subprocess
import time
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from anonymizer.errors import SpecError, UnsupportedError

#: the driver's source, package data of :mod:`anonymizer.bench`
DRIVER = "ArxBench.java"
#: the class a jar must hold to be ARX's library
ARX_CLASS = "org/deidentifier/arx/ARXAnonymizer.class"
OPTION = "--arx-jar"


def driver_source() -> Path:
    """The bundled ``ArxBench.java``."""
    return Path(str(resources.files("anonymizer.bench") / DRIVER))


def check_jar(jar: str | Path) -> Path:
    """``jar`` as a path, refused (one line, exit 2) unless it is a jar holding ARX's anonymizer."""
    path = Path(jar)
    if not path.is_file():
        raise SpecError(OPTION, "is no file", str(jar))
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        raise SpecError(OPTION, "is no jar (zip) file", str(jar)) from None
    if ARX_CLASS not in names:
        raise SpecError(OPTION, "holds no org.deidentifier.arx.ARXAnonymizer: give ARX's library jar with its "
                                "dependencies (libarx-3.9.2.jar)", str(jar))
    return path


def java_tools() -> tuple[str, str]:
    """``java`` and ``javac`` from PATH, or a one-line error naming the missing one."""
    found = {tool: shutil.which(tool) for tool in ("javac", "java")}
    missing = [tool for tool, where in found.items() if where is None]
    if missing:
        raise SpecError(OPTION, f"needs a Java JDK (11 or later): {' and '.join(missing)} not found on PATH")
    return found["java"], found["javac"]


@dataclass
class LiveArx:
    """ARX's side of the grid: the jar, the driver compiled against it, the data it reads."""

    jar: Path
    java: str
    classes: Path   # the folder holding ArxBench.class
    data: Path      # the source as ARX reads it: ';'-separated, a header, uncompressed
    hierarchies: Path
    qis: tuple[str, ...]

    @classmethod
    def prepare(cls, jar: str | Path, workdir: Path, source_gz: Path, hierarchies: Path, qis: tuple[str, ...],
                driver: Path | None = None) -> "LiveArx":
        """Check the jar and the JDK, compile the driver into ``workdir`` and uncompress the source
        there; every failure is one line (exit 2)."""
        path = check_jar(jar)
        java, javac = java_tools()
        classes = workdir / "arx_driver"
        classes.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-cp", str(path), "-d", str(classes),
                               str(driver or driver_source())], capture_output=True, text=True)
        if done.returncode != 0:
            first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
            raise SpecError(OPTION, f"the ARX driver does not compile against it: {first.strip()}", str(jar))
        data = workdir / "arx_source.csv"
        with gzip.open(source_gz, "rb") as packed, open(data, "wb") as plain:
            shutil.copyfileobj(packed, plain)
        return cls(path, java, classes, data, hierarchies, qis)

    def run(self, name: str, args: list[str], out: Path) -> dict:
        """One ARX run in its own JVM: ``whole`` (seconds, from outside), ``jvm`` (its anonymization
        inside), and the driver's figures; ``error`` instead when the JVM fails."""
        command = [self.java, "-cp", f"{self.jar}{os.pathsep}{self.classes}", "ArxBench", f"data={self.data}",
                   f"hier={self.hierarchies}", f"qis={','.join(self.qis)}", "reps=0", f"out={out}", f"label={name}",
                   *args]
        out.unlink(missing_ok=True)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        whole = time.perf_counter() - start
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            said = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])
            return {"whole": whole, "error": next((s for s in said if "Exception" in s), said[0]).strip()[:300]}
        figures = json.loads(lines[-1])
        published = out.with_name(figures["out"]) if figures.get("out") else None   # safepub: FILE-<run>
        return {"whole": whole, "jvm": (figures.get("cold_ms") or figures.get("anonymize_ms") or 0.0) / 1000,
                "figures": figures, "published": published if published and published.is_file() else None}


def arx_args(models: list[dict], suppression: float, local: bool, algorithm: dict | None = None) -> list[str]:
    """The driver's arguments for a configuration of the grid (its models, limit and recoding;
    SafePub's ε and δ when ``algorithm`` is SafePub's, ARX's other settings its own defaults)."""
    if algorithm is not None and algorithm.get("name") == "safepub":
        return ["mode=safepub", f"eps={algorithm['epsilon']}", f"delta={algorithm['delta']}"]
    args = [f"mode={'local' if local else 'global'}"]
    for m in models:
        if m["type"] == "k-anonymity":
            args.append(f"k={m['k']}")
        elif m["type"] in ("distinct-l-diversity", "entropy-l-diversity"):
            args += [f"ldiv={m['type'].split('-')[0]}:{m['l']}", f"sens={m['sensitive']}"]
        elif m["type"] == "t-closeness" and m.get("distance", "equal") == "equal":
            args += [f"tclose=equal:{m['t']}", f"sens={m['sensitive']}"]
        else:
            raise UnsupportedError(f"bench arx-grid: no ARX set-up for the model {m}")
    if not local or suppression:   # local: the GUI's 1 - 1/100 unless the configuration has a limit
        args.append(f"supp={suppression}")
    return args


def summarize(runs: list[dict]) -> dict:
    """ARX's figures of one configuration: medians of the runs' seconds and of their tables'
    loss (``loss`` of each run, :func:`anonymizer.bench.arx._measured`; ``losses`` every run's),
    the last run's other figures."""
    failed = [r["error"] for r in runs if "error" in r]
    if failed:
        return {"error": failed[0], "runs": len(runs)}
    last = runs[-1]["figures"]
    losses = [r["loss"] for r in runs if "loss" in r]
    return {"whole": statistics.median(r["whole"] for r in runs), "jvm": statistics.median(r["jvm"] for r in runs),
            "loss": statistics.median(losses) if len(losses) == len(runs) else None, "losses": losses,
            "suppressed": last.get("suppressed"), "checked": last.get("transformations_checked"),
            "classes": last.get("classes"), "tool": last.get("tool"), "runs": len(runs)}
