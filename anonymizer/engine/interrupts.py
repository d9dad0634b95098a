"""Stopping the statement running now, from another thread: the command line's Ctrl-C and
SIGTERM (:mod:`anonymizer.cli.interrupts`) call :func:`interrupt_running`, which asks every
engine with a statement in flight to stop it (DuckDB's ``connection.interrupt()``, Spark's job
cancellation). The statement then fails at once instead of running to its end, as a signal
handled by Python alone would let it (Python runs its handlers only between statements)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Protocol


class Interruptible(Protocol):
    def interrupt(self) -> None: ...


#: the engines with a statement in flight, by identity (an engine is a dataclass, not hashable)
_running: dict[int, Interruptible] = {}


@contextmanager
def running(engine: Interruptible) -> Iterator[None]:
    """``engine`` has a statement in flight for the block."""
    _running[id(engine)] = engine
    try:
        yield
    finally:
        _running.pop(id(engine), None)


def interrupt_running() -> int:
    """Stop every statement in flight; returns how many engines were asked."""
    engines = list(_running.values())
    for engine in engines:
        engine.interrupt()
    return len(engines)
