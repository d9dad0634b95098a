"""Ctrl-C and SIGTERM stop a command at once (issue 56).

Python runs a signal's handler in the main thread between two bytecodes, so a Ctrl-C that
arrives while DuckDB runs a long statement waits for the statement's end (a minute or more
on a large table). :func:`stoppable` blocks SIGINT and SIGTERM in the main thread for the
command and waits for them in a thread of its own, which stops the statements in flight
(:func:`anonymizer.engine.interrupts.interrupt_running`: the interrupted statement raises
``KeyboardInterrupt``), or, when no statement runs, raises it in the main thread; the command
then unwinds as it does on any error: the release's transaction rolls
back, its work tables are dropped, and the command exits 130 (SIGINT) or 143 (SIGTERM)
(:func:`anonymizer.cli.failure.interrupted`). Outside the main thread (a caller's own
thread) or where the platform has no ``pthread_sigmask``, signals are left as they are.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

#: the signals that stop a command
STOPS = (signal.SIGINT, signal.SIGTERM)
#: tells the waiting thread that the command ended
_ENDED = signal.SIGUSR1


@dataclass
class Stop:
    """The signal that stopped the command (``None``: none came)."""

    signum: int | None = None


_current: Stop | None = None
#: the main thread waits at a prompt with SIGINT unblocked (:func:`at_a_prompt`)
_prompting = False


def requested() -> int | None:
    """The signal that is stopping the running command, if one came."""
    return _current.signum if _current is not None else None


@contextmanager
def stoppable() -> Iterator[Stop]:
    """The block stops at once on SIGINT or SIGTERM (module docstring)."""
    global _current
    stop = Stop()
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield stop
        return
    waited = {*STOPS, _ENDED}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, waited)

    def wait() -> None:
        while (signum := signal.sigwait(waited)) != _ENDED:
            if _prompting and signum == signal.SIGINT:   # the kernel gave it here, not to the prompt: pass it on
                signal.pthread_kill(threading.main_thread().ident, signum)   # type: ignore[arg-type]
                continue
            if stop.signum is None:
                stop.signum = signum
            engines = sys.modules.get("anonymizer.engine.interrupts")   # not loaded: no statement runs
            if engines is None or not engines.interrupt_running():   # the statement delivers the stop
                _thread.interrupt_main()   # Python work: KeyboardInterrupt, whichever signal came

    _current, waiter = stop, threading.Thread(target=wait, name="anonymizer-interrupts", daemon=True)
    waiter.start()
    try:
        yield stop
    finally:
        signal.pthread_kill(waiter.ident, _ENDED)   # type: ignore[arg-type]
        waiter.join()
        _current = None
        engines = sys.modules.get("anonymizer.engine.interrupts")
        if engines is not None:
            engines.stopped()   # a stop the command ended before delivering stays with it
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def at_a_prompt() -> Iterator[None]:
    """Ctrl-C reaches the main thread as Python's own ``KeyboardInterrupt`` for the block (a
    prompt waiting in ``input()``, which only a real signal wakes): SIGINT unblocked there, and
    one the kernel gives the waiting thread instead is sent on to the main thread."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    global _prompting
    before = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _prompting = True
    try:
        yield
    finally:
        _prompting = False
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
