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
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

#: the signals that stop a command
STOPS = (signal.SIGINT, signal.SIGTERM)
#: tells the waiting thread that the command ended
_ENDED = signal.SIGUSR1
#: wakes the main thread waiting at a prompt (:func:`at_a_prompt`)
_WAKE = signal.SIGUSR2


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
            if _prompting:   # the main thread waits at a prompt: wake it until the prompt has ended
                if signum != signal.SIGINT and stop.signum is None:
                    stop.signum = signum
                while _prompting:   # a wake that lands before input() waits is lost (at_a_prompt)
                    signal.pthread_kill(threading.main_thread().ident, _WAKE)   # type: ignore[arg-type]
                    time.sleep(0.2)
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


def _woken(signum: int, frame: object) -> None:
    """At a prompt, a wake from the waiting thread is a Ctrl-C (once: later wakes do nothing)."""
    global _prompting
    if _prompting:
        _prompting = False
        raise KeyboardInterrupt


@contextmanager
def at_a_prompt() -> Iterator[None]:
    """Ctrl-C ends a prompt waiting in ``input()``. Only a signal delivered to the main thread
    wakes that wait, and only once it waits: CPython's readline handles one that lands between
    printing the prompt and its ``select()`` and goes on waiting (one Ctrl-C in four was lost
    so on a loaded machine). So SIGINT stays with :func:`stoppable`'s thread, which sends the
    main thread :data:`_WAKE` every 0.2 s until the prompt has ended; :func:`_woken` turns the
    first into ``KeyboardInterrupt``."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    global _prompting
    signal.signal(_WAKE, _woken)   # kept after the prompt: a wake sent as it ended does nothing (SIG_DFL would kill)
    before = signal.pthread_sigmask(signal.SIG_UNBLOCK, {_WAKE})
    _prompting = True
    try:
        yield
    finally:
        _prompting = False
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
