"""Where the command line's messages go: ``anonymizer --log-format text|json COMMAND``.

The package logs through the standard :mod:`logging` module, on the ``anonymizer`` logger
(a public seed's warning: :mod:`anonymizer.spec.seed`); a command's progress messages
(:mod:`anonymizer.cli.progress`) and its failure line are this module's to route:

- ``text`` (the default): as a person reads them: progress as ``HH:MM:SS · message`` lines
  (a live bar in a terminal), ``error: ...``, warnings as Python prints them;
- ``json``: for pipelines: every one of them is a JSON object on its own line on stderr,
  ``{"time": ..., "level": ..., "logger": ..., "message": ...}`` (``time`` in UTC, ISO 8601;
  a progress line also ``phase``, ``seconds`` and ``rows`` where its message says them),
  through a :class:`logging.Handler` on the ``anonymizer`` logger (progress on
  ``anonymizer.progress``, failures on ``anonymizer.cli``).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

import click

#: the package's logger; progress and failures log on its children
LOGGER = "anonymizer"
FORMATS = ("text", "json")


class JsonLines(logging.Formatter):
    """A record as one JSON object: ``time``, ``level``, ``logger``, ``message``, and the
    fields a progress message carries (``phase``, ``seconds``, ``rows``:
    :func:`anonymizer.cli.progress.fields`).

    Example:
        >>> record = logging.LogRecord("anonymizer", logging.INFO, "", 0, "k is %d", (5,), None)
        >>> sorted((k, v) for k, v in json.loads(JsonLines().format(record)).items() if k != "time")
        [('level', 'INFO'), ('logger', 'anonymizer'), ('message', 'k is 5')]
    """

    def format(self, record: logging.LogRecord) -> str:
        time = datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")
        return json.dumps({"time": time, "level": record.levelname, "logger": record.name,
                           "message": record.getMessage(), **getattr(record, "fields", {})}, default=str)


class _Stderr(logging.StreamHandler):
    """A handler writing to the stderr of the moment (a test runner swaps ``sys.stderr``)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.setStream(sys.stderr)
        super().emit(record)


def configure(log_format: str) -> None:
    """Route the ``anonymizer`` logger's records for ``log_format`` (``text``: Python's own
    way, as without this module; ``json``: JSON lines on stderr from level INFO up). Calling
    it again replaces what an earlier call set."""
    logger = logging.getLogger(LOGGER)
    for handler in [h for h in logger.handlers if isinstance(h, _Stderr)]:
        logger.removeHandler(handler)
    structured = log_format == "json"
    if structured:
        handler = _Stderr()
        handler.setFormatter(JsonLines())
        logger.addHandler(handler)
    logger.setLevel(logging.INFO if structured else logging.NOTSET)
    logger.propagate = not structured


def structured() -> bool:
    """Whether messages go out as JSON lines (``--log-format json``)."""
    return any(isinstance(h, _Stderr) for h in logging.getLogger(LOGGER).handlers)


def option(command):
    """``--log-format text|json``, applied as soon as it is read."""
    return click.option("--log-format", type=click.Choice(FORMATS), default="text", show_default=True,
                        expose_value=False, is_eager=True, callback=lambda _ctx, _param, value: configure(value),
                        help="How progress, warnings and failures are written on stderr: text for people, json "
                             "for pipelines (one JSON object a line: time, level, logger, message).")(command)


def problem(message: str, level: int = logging.ERROR) -> None:
    """A command's failure (or warning, ``level``) on stderr: ``error: message``
    (``warning: ...``), or a JSON line of that level."""
    if structured():
        logging.getLogger(f"{LOGGER}.cli").log(level, message)
    else:
        click.echo(f"{logging.getLevelName(level).lower()}: {message}", err=True)


def step(message: str) -> None:
    """A progress message of a command without a bar (the benchmarks): ``· message``, or a JSON
    line of the ``anonymizer.progress`` logger."""
    if structured():
        logging.getLogger(f"{LOGGER}.progress").info(message)
    else:
        click.echo(f"· {message}", err=True)
