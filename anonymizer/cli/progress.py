"""A long command's progress on stderr: a live bar in a terminal, timestamped lines elsewhere.

The library reports progress as short messages (``engine.say``, ``progress=`` callbacks);
:class:`Progress` is such a callback. When stderr is a terminal it shows one live line
(rich's progress display): a spinner, the latest message, a bar over the steps it can
count, and the time elapsed; each finished step stays above it as a line. The steps are
the release's phases (``"<phase>: done in ..."`` messages, the names given) or an
experiment's ``"[i/n] ..."`` runs; algorithm rounds (``round 3: ...``) update the message.
Elsewhere (CI logs, pipes, files) every message is one line ``HH:MM:SS · message``. With
``--log-format json`` every message is a record of the ``anonymizer.progress`` logger, a JSON
line on stderr (:mod:`anonymizer.cli.logs`), and no bar is shown.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Mapping, Sequence

import click
from rich.console import Console
from rich.progress import (BarColumn, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.progress import Progress as Display

from anonymizer.cli import logs
from anonymizer.cli.interrupts import requested

#: ``[i/n] ...``: run i of n (the experiments' messages)
_RUN = re.compile(r"^\[(\d+)/(\d+)\]")
#: ``<name>: done in <seconds>s``: a phase ended (:func:`anonymizer.release.run.phase`)
_DONE = re.compile(r"^(\w+): done in ")
log = logging.getLogger(f"{logs.LOGGER}.progress")


#: ``on 30162 rows``, ``30,162 rows``: the rows a step works on
_ROWS = re.compile(r"\b(\d[\d,]*) rows\b")
_SECONDS = re.compile(r"^\w+: done in ([\d.]+)s")


def fields(message: str, phases: Sequence[str] = ()) -> dict:
    """What a progress message says, as fields of its JSON line: ``phase`` (a release's phase
    the message is about), ``seconds`` (a phase's, when it ended), ``rows`` (the rows a step
    works on).

    Example:
        >>> fields("algorithm: mondrian on 30162 rows, 8 QIs", ["algorithm"])
        {'phase': 'algorithm', 'rows': 30162}
        >>> fields("publish: done in 0.16s", ["publish"])
        {'phase': 'publish', 'seconds': 0.16}
    """
    found: dict = {}
    head = message.split(":", 1)[0]
    if head in phases:
        found["phase"] = head
    if seconds := _SECONDS.match(message):
        found["seconds"] = float(seconds.group(1))
    if rows := _ROWS.search(message):
        found["rows"] = int(rows.group(1).replace(",", ""))
    return found


#: ``round 3: 120000 rows in 40 partitions``: a round of an algorithm and the rows still at
#: work; ``rounds 1-8: 5200 cells active``: a batch of rounds (Mondrian's recursive loop) and
#: the cells still at work, after ``rounds: 215310 cells to split`` (the work at the start)
_ROUND = re.compile(r"^rounds?\b[^:]*: (\d+) (?:rows|cells)\b")
#: the units of a bar over phases (each phase its share of them)
_UNITS = 1000


class Progress:
    """A progress callback for ``with``: ``with Progress(phases=PHASE_SHARES) as say: ... say("...")``.

    The bar advances by the work done: each phase by its share of a release's time (``phases``:
    name -> share; a plain list shares equally), and inside a phase by the rounds' rows or cells
    still at work (``round r: N rows ...``, ``rounds 1-r: N cells ...``: the share of the
    first such message's that have finished), so
    that the time remaining it shows follows the work, not the count of phases.

    Args:
        console: where to show it (default: stderr); a terminal gets the live bar.
        phases: the steps a bar counts (``"<name>: done in"`` messages), with their shares.
    """

    def __init__(self, console: Console | None = None, phases: Sequence[str] | Mapping[str, float] = ()):
        self.console = console or Console(stderr=True)
        shares = dict(phases) if isinstance(phases, Mapping) else {p: 1.0 for p in phases}
        total = sum(shares.values()) or 1.0
        self.shares = {p: share / total for p, share in shares.items()}
        self.phases = tuple(self.shares)
        self.display: Display | None = None
        self.task = None
        self.done: set[str] = set()    # the phases done
        self.first: int | None = None  # the rows of the running phase's first round

    def __enter__(self) -> "Progress":
        if self.console.is_terminal and not logs.structured():
            self.display = Display(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                   TaskProgressColumn(), TimeRemainingColumn(), TimeElapsedColumn(),
                                   console=self.console, redirect_stdout=False, redirect_stderr=False)
            self.task = self.display.add_task("starting", total=_UNITS if self.phases else None)
            self.display.start()
        return self

    def __call__(self, message: str) -> None:
        if self.display is None:
            if logs.structured():
                log.info(message, extra={"fields": fields(message, self.phases)})
            else:
                click.echo(f"{datetime.now():%H:%M:%S} · {message}", err=True)
            return
        run, done, round_ = _RUN.match(message), _DONE.match(message), _ROUND.match(message)
        if run:
            self.display.update(self.task, completed=int(run.group(1)), total=int(run.group(2)))
        elif done and done.group(1) in self.shares:
            self.done.add(done.group(1))
            self.first = None
            self.display.update(self.task, completed=round(_UNITS * self._finished()))
        elif round_ and self.phases:
            rows = int(round_.group(1))
            self.first = self.first or rows
            running = next((p for p in self.phases if p not in self.done), None)
            inside = self.shares.get(running, 0.0) * (1 - rows / self.first)
            self.display.update(self.task, completed=round(_UNITS * (self._finished() + inside)))
        if run or done:
            self.display.console.print(f"· {message}", markup=False, highlight=False)
        self.display.update(self.task, description=message)
        self.display.refresh()

    def _finished(self) -> float:
        return sum(self.shares[p] for p in self.done)

    def __exit__(self, kind, *_) -> None:
        if self.display is None:
            return
        if kind is None and self.display.tasks[0].total is not None:
            self.display.update(self.task, completed=self.display.tasks[0].total, description="done")
        if kind is KeyboardInterrupt or requested() is not None:   # stopped: the bar goes, the line says why
            self.display.update(self.task, visible=False)
        self.display.stop()
