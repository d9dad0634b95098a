"""Progress while one statement runs long: a release's algorithm may be a single statement (a
Mondrian run as one recursive query, a lattice's frequency set) or Python work between two
(compiling or running MSB's greedy), and a phase must not look stalled. A :class:`Heartbeat`
watches what the engine is running (a statement's template, or a label
:meth:`~anonymizer.engine.session.Engine.watch` gives) and, every :data:`EVERY` seconds it is
still running, reports ``"<what>: still running, N s"`` to the progress callback, ``<what>``
in the user's words (:func:`in_words`: a template's folder says what the work is). One daemon
thread per engine with a progress callback, started on its first statement; it reads no rows
and touches no connection, and ends with its engine.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Callable

#: seconds between two reports on one running statement (the first after as many)
EVERY = 3.0

#: what the statements of a template folder do, in a user's words (the longest folder that
#: holds a template names it; ``templates/`` is laid out by operation)
WORDS = {
    "families/generalized/mondrian": "partitioning the rows (Mondrian)",
    "families/generalized/lattice": "searching the generalization lattice",
    "families/generalized/full_domain": "generalizing to the chosen levels",
    "families/generalized/invariance": "keeping the earlier versions' groups",
    "families/generalized/safepub": "sampling and scoring the lattice (SafePub)",
    "families/generalized": "generalizing the quasi-identifiers",
    "families/anatomy": "forming the buckets (anatomy)",
    "families/lgb": "forming the groups (LGB)",
    "families/identity_reserved/invariance": "keeping the earlier versions' groups",
    "families/identity_reserved": "forming the groups of individuals",
    "families/aggregates": "bounding each person's rows and counting the cells",
    "versions/combination": "checking against the earlier versions",
    "versions/invariance": "keeping the earlier versions' groups",
    "versions": "checking against the earlier versions",
    "models": "checking the privacy models",
    "metrics": "measuring the loss and the privacy achieved",
    "prepare": "reading and coding the source",
    "publish": "publishing the version",
    "hierarchy": "building the hierarchies",
    "demo": "loading the Adult data",
    "datasets": "generating the data",
    "bench": "running the benchmark's query",
    "reproduce": "running the paper's experiment",
    "report": "computing the report's figures",
    "dbt": "computing dbt's test rows",
}


def in_words(what: str) -> str:
    """What a running statement does, for the user: a template's path (``.j2``, a Spark
    dialect's own too) by its folder in :data:`WORDS`; a label (``Engine.watch``) as given."""
    if not what.endswith(".j2"):
        return what if not what.startswith("<") else "running a statement"
    path = what.removeprefix("dialects/spark/")
    folder = max((f for f in WORDS if path.startswith(f + "/")), key=len, default=None)
    return WORDS[folder] if folder else "running a statement"


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
                self.say(f"{in_words(current[0])}: still running, {now - current[1]:.0f} s")
                said, last = current, now
