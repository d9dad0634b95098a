"""Progress while one statement runs long: a release's algorithm may be a single statement (a
Mondrian run as one recursive query, a lattice's frequency set) or Python work between two
(compiling or running MSB's greedy), and a phase must not look stalled. A :class:`Heartbeat`
watches what the engine is running (a statement's template, or a label
:meth:`~anonymizer.engine.session.Engine.watch` gives) and, every :data:`EVERY` seconds it is
still running, reports ``"<what>: still running, N s"`` to the progress callback. One daemon thread per engine with a progress callback, started on its
first statement; it reads no rows and touches no connection, and ends with its engine.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Callable

#: seconds between two reports on one running statement (the first after as many)
EVERY = 3.0


class Heartbeat:
    """The statement running now (:meth:`running`), reported while it lasts."""

    def __init__(self, owner: object, say: Callable[[str], None], every: float = EVERY):
        self.say, self.every = say, every
        self.current: tuple[str, float] | None = None
        self.lock = threading.Lock()
        alive = weakref.ref(owner)
        threading.Thread(target=self._watch, args=(alive,), name="anonymizer-heartbeat", daemon=True).start()

    def running(self, template: str | None) -> None:
        """``template`` starts now (``None``: the statement ended)."""
        with self.lock:
            self.current = None if template is None else (template, time.monotonic())

    def _watch(self, alive: "weakref.ref[object]") -> None:
        said: tuple[str, float] | None = None
        last = 0.0
        while alive() is not None:
            time.sleep(self.every / 3)
            with self.lock:
                current = self.current
            if current is None:
                continue
            now = time.monotonic()
            if now - current[1] >= self.every and (said != current or now - last >= self.every):
                self.say(f"{current[0]}: still running, {now - current[1]:.0f} s")
                said, last = current, now
