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
from typing import Sequence

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Display

from anonymizer.cli import logs
from anonymizer.cli.interrupts import requested

#: ``[i/n] ...``: run i of n (the experiments' messages)
_RUN = re.compile(r"^\[(\d+)/(\d+)\]")
#: ``<name>: done in <seconds>s``: a phase ended (:func:`anonymizer.release.run.phase`)
_DONE = re.compile(r"^(\w+): done in ")
log = logging.getLogger(f"{logs.LOGGER}.progress")


class Progress:
    """A progress callback for ``with``: ``with Progress(phases=PHASES) as say: ... say("...")``.

    Args:
        console: where to show it (default: stderr); a terminal gets the live bar.
        phases: the names of the steps a bar counts (``"<name>: done in"`` messages).
    """

    def __init__(self, console: Console | None = None, phases: Sequence[str] = ()):
        self.console = console or Console(stderr=True)
        self.phases = tuple(phases)
        self.display: Display | None = None
        self.task = None

    def __enter__(self) -> "Progress":
        if self.console.is_terminal and not logs.structured():
            self.display = Display(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                   MofNCompleteColumn(), TimeElapsedColumn(), console=self.console,
                                   redirect_stdout=False, redirect_stderr=False)
            self.task = self.display.add_task("starting", total=len(self.phases) or None)
            self.display.start()
        return self

    def __call__(self, message: str) -> None:
        if self.display is None:
            if logs.structured():
                log.info(message)
            else:
                click.echo(f"{datetime.now():%H:%M:%S} · {message}", err=True)
            return
        run, done = _RUN.match(message), _DONE.match(message)
        if run:
            self.display.update(self.task, completed=int(run.group(1)), total=int(run.group(2)))
        if done and done.group(1) in self.phases:
            self.display.advance(self.task)
        if run or done:
            self.display.console.print(f"· {message}", markup=False, highlight=False)
        self.display.update(self.task, description=message)
        self.display.refresh()

    def __exit__(self, kind, *_) -> None:
        if self.display is None:
            return
        if kind is None and self.display.tasks[0].total is not None:
            self.display.update(self.task, completed=self.display.tasks[0].total, description="done")
        if kind is KeyboardInterrupt or requested() is not None:   # stopped: the bar goes, the line says why
            self.display.update(self.task, visible=False)
        self.display.stop()
