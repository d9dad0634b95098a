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


#: a stop was asked for while a statement ran, and not yet delivered (:func:`stopped`)
_stopping = False


def interrupt_running() -> int:
    """Stop every statement in flight; returns how many engines were asked (0: none ran, and
    the caller stops the Python work instead). The stop is then delivered once, as
    ``KeyboardInterrupt``, by the engine's statement (:func:`stopped`, :func:`check`)."""
    global _stopping
    engines = list(_running.values())
    if engines:
        _stopping = True
    for engine in engines:
        engine.interrupt()
    return len(engines)


def stopped() -> bool:
    """Whether a stop is pending, taking it (it is delivered once: the statements that clean up
    after it run)."""
    global _stopping
    pending, _stopping = _stopping, False
    return pending


def check() -> None:
    """Deliver a pending stop as ``KeyboardInterrupt``: called before and after each statement,
    so that a stop is not lost where the interrupted statement ended before the interrupt
    reached it, or where its error was caught and passed over (a setting restored in a
    ``finally``)."""
    if stopped():
        raise KeyboardInterrupt
