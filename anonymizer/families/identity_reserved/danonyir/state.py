"""DAnonyIR's working state: the tables D (remaining individuals) and D* (formed classes), the
growing class Q, and the one-statement steps of Algorithm 1 on them (paper 004, section 4.3).

D, D* and the members of D*'s classes are work tables; Python holds Q (its identity element,
its members' Id_num and the model's incremental check, Algorithms 5 and 6), the rows each
statement returns, and the (Id_num, |R(p)|, S(p)) of the classes' members it formed (rows
that came into Python once, when they joined Q).

Statements are few per step: Algorithm 1's lines 7-8 are one statement (or none, :mod:`.search`),
the individuals that join Q leave D's table in one DELETE (:meth:`Tables.flush`: before the
next statement that reads D, each Id_num sent once), the classes stored reach D*'s tables
in two INSERTs and the classes merged (line 12) leave them in two DELETEs (:meth:`Tables.sync`:
before the next statement that reads D*, however many classes); a merged class's members come
from Python (:attr:`Tables.kept`: they were Q's when it was stored), not from the tables;
rendered SQL is cached per template and context, so a step costs one statement plan, not a
template render.

What crosses between DuckDB and Python is counted (:attr:`Tables.fetched_by` statement,
:attr:`Tables.sent`, in the run's figures): the rows each statement returns, and the rows its
list parameters carry (issue 40; README, "Rows that cross into Python").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from anonymizer.engine.session import Engine
from anonymizer.models.check import used_params
from anonymizer.families.identity_reserved.danonyir.element import Attr, Element

#: Line 9's comparison Dist(p', Q) <= Dist(Q', Q) forgives this much float rounding, relative.
TIE = 1e-9


def carried(row: Mapping[str, Any]) -> int:
    """How many rows of D or D* a fetched row brings: one per struct it holds, and per struct or
    id (Id_num, class id) in a list it holds (a scan's candidates and bounds), or itself when
    it holds none (a class member: Id_num, |R(p)| and S(p), whose list of values is its own).

    Example:
        >>> carried({"pid": 3, "nrec": 2, "sens": [1, 2]}), carried({"p": {"pid": 3}, "q": None})
        (1, 1)
        >>> carried({"people": [{"pid": 3}, {"pid": 4}], "floor": [{"nrec": 1, "u": 0.5}], "pids": [5]})
        4
    """
    nested = sum(1 if isinstance(v, dict) else sum(isinstance(x, (dict, int)) for x in v)
                 for n, v in row.items() if isinstance(v, (dict, list)) and n != "sens")
    return nested or 1


@dataclass
class Growing:
    """The class Q being formed (Algorithm 1, lines 3-15)."""

    element: Element
    tracker: Any                      # the model's incremental check (SatPriIRInc_*)
    members: list[int] = field(default_factory=list)
    rows: list[tuple[int, int, list[str]]] = field(default_factory=list)   # (pid, |R(p)|, S(p))
    nrec: int = 0
    satisfied: bool = False
    home: int = 0                     # its seed's cell (:mod:`.cells`), which groups D*'s classes

    def add(self, pid: int, nrec: int, sens: Iterable[str], element: Element | None = None) -> None:
        """R(p) joins Q: r̄_q = δ(r̄_q, r̄_p) (line 10), and the incremental check sees p."""
        if element is not None:
            self.element.merge(element)
        self.members.append(pid)
        self.rows.append((pid, nrec, list(sens)))
        self.nrec += nrec
        self.satisfied = self.tracker.add(nrec, Counter(sens))

    def params(self) -> dict[str, Any]:
        """Q as the distance statements bind it: its element, the increments of its categorical
        sets, $nq = |Q| and $sq = the sum of its normalized spans."""
        return {**self.element.params(), **self.element.increments(), "nq": self.nrec, "sq": self.element.span()}


@dataclass
class Tables:
    """The work tables of one DAnonyIR run and the statements that change them."""

    engine: Engine
    attrs: list[Attr]
    people: str       # every individual: pid, nrec, draw, sens, v<i>, c<i>
    rest: str         # D: the individuals not yet in a class
    classes: str      # D*: cid, nrec, nind, sn, element
    members: str      # (pid, cid) of D*'s classes
    remaining: int
    taken: list[int] = field(default_factory=list)      # out of D since the last batch (:meth:`forget`)
    deleted: int = 0                                    # taken[:deleted] are out of D's table too
    stored: list[tuple] = field(default_factory=list)   # into D*, not yet in its tables
    dropped: list[int] = field(default_factory=list)    # out of D*, still in its tables (:meth:`unstore`)
    kept: dict = field(default_factory=dict)            # class id -> its members' (pid, |R(p)|, S(p)), by Id_num
    fetched_by: Counter = field(default_factory=Counter)   # rows read into Python, by template (:meth:`read`)
    sent: int = 0                                       # rows bound as list parameters (:meth:`run`)
    batch: str = field(init=False)                      # a batch's seeds and candidates (:mod:`.batch`)
    cells: str = field(init=False)                      # D's cells when the batch was chosen (:mod:`.cells`)
    live: dict = field(default_factory=lambda: dict.fromkeys(("cells", "individuals", "groups", "classes"), 0))
    #: ^ that table's cells and individuals, D*'s groups and classes (cell_sizes.sql.j2)
    grid: bool = False                                  # the individuals are in cells (:func:`.cells.assign`)
    div: int = 1                                        # a class's group: its seed's cell // div (:mod:`.cells`)
    _sql: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.batch = self.engine.work("dn_batch")
        self.cells = self.engine.work("dn_cells")

    @property
    def fetched(self) -> int:
        """The rows read into Python (:func:`carried`)."""
        return sum(self.fetched_by.values())

    def read(self, template: str, rows: int) -> None:
        """Count ``rows`` read into Python by a statement of ``template``."""
        self.fetched_by[template.rsplit("/", 1)[-1].removesuffix(".sql.j2")] += rows

    @property
    def ctx(self) -> list[dict]:
        return [a.context() for a in self.attrs]

    def run(self, template: str, params: Mapping[str, Any] | None = None, **context: Any):
        """Run ``template`` with ``params``; a list parameter carries one row a item (Id_num,
        classes stored), counted in :attr:`sent`, but for Q's increments (``inc<i>``: a number
        per code of a QI's domain, whatever the rows)."""
        key = (template, tuple(sorted((k, str(v)) for k, v in context.items())))
        given = params or {}
        if key not in self._sql:
            text = self.engine.sql(template, attrs=self.ctx, **context)
            self._sql[key] = (text, list(used_params(text, {k: 0 for k in given})))
        text, names = self._sql[key]
        self.sent += max((len(v) for n, v in given.items() if isinstance(v, list) and not n.startswith("inc")),
                         default=0)
        return self.engine.execute(text, {n: given[n] for n in names} if names else None, template=template)

    def rows(self, template: str, params: Mapping[str, Any] | None = None, **context: Any) -> list[dict]:
        """The statement's rows as dicts, counted in :attr:`fetched` (:func:`carried`)."""
        cur = self.run(template, params, **context)
        names = [d[0] for d in cur.description]
        out = [dict(zip(names, r)) for r in cur.fetchall()]
        self.read(template, sum(carried(r) for r in out))
        return out

    def draw(self) -> dict | None:
        """Line 3: a random remaining individual (the release's draw order), taken out of D."""
        self.forget()
        found = self.rows("families/identity_reserved/danonyir/draw.sql.j2", rest=self.rest)
        if not found:
            return None
        self.take(found[0]["pid"])
        return found[0]

    def take(self, pid: int) -> None:
        """D = D - R(p) (the row leaves D's table at the next :meth:`flush`)."""
        self.taken.append(pid)
        self.remaining -= 1

    def flush(self) -> None:
        """Delete the individuals taken since the last call from D's table, in one statement
        (each Id_num is sent once); they stay in :attr:`taken`."""
        if len(self.taken) > self.deleted:
            self.run("families/identity_reserved/danonyir/take.sql.j2", {"pids": self.taken[self.deleted:]},
                     rest=self.rest)
            self.deleted = len(self.taken)

    def forget(self) -> None:
        """:meth:`flush`, then start :attr:`taken` again (a new batch's statement sees D as it is)."""
        self.flush()
        self.taken, self.deleted = [], 0

    def nearest(self, q: Growing) -> tuple[dict | None, dict | None]:
        """Lines 7-8: the nearest remaining individual and the nearest formed class, with their
        distances to Q (Eqs. 17 and 18), in one statement (one scan of D and D*)."""
        self.flush()
        self.sync()
        found = self.rows("families/identity_reserved/danonyir/nearest.sql.j2", q.params(), rest=self.rest,
                          classes=self.classes)[0]
        return found["p"], found["q"]

    def store(self, cid: int, q: Growing) -> None:
        """Line 17: D* = D* + {Q} (its rows reach D*'s tables at the next :meth:`sync`)."""
        self.put(cid, q.element, q.nrec, len(q.members), q.members, q.rows, q.home)

    def put(self, cid: int, element: Element, nrec: int, nind: int, members: list[int],
            rows: list[tuple[int, int, list[str]]] | None = None, home: int = 0) -> None:
        """Class ``cid`` with ``element``, |Q| = ``nrec`` and n_Q = ``nind`` joins D* at the next
        :meth:`sync`, and the individuals ``members`` join its members (``rows``: all of its
        members' (pid, |R(p)|, S(p)), when they are known; ``home``: its seed's cell)."""
        self.stored.append((cid, element, nrec, nind, list(members), rows, home))
        if rows is not None:
            self.kept[cid] = sorted(rows)

    def sync(self) -> None:
        """The classes merged since the last call leave D*'s tables and the classes stored since
        reach them: two statements each, however many classes."""
        if self.dropped:
            self.run("families/identity_reserved/danonyir/class_drop.sql.j2", {"cids": self.dropped},
                     classes=self.classes)
            self.run("families/identity_reserved/danonyir/members_take.sql.j2", {"cids": self.dropped},
                     members=self.members)
            self.dropped = []
        if not self.stored:
            return
        params: dict[str, list] = {"cid": [], "nrec": [], "nind": [], "sn": [], "home": []}
        pids, cids = [], []
        for cid, element, nrec, nind, members, _, home in self.stored:
            for name, value in [("cid", cid), ("nrec", nrec), ("nind", nind), ("sn", element.span()), ("home", home),
                                *element.params().items()]:
                params.setdefault(name, []).append(value)
            pids += members
            cids += [cid] * len(members)
        self.run("families/identity_reserved/danonyir/class_add.sql.j2", params, classes=self.classes)
        self.run("families/identity_reserved/danonyir/members_add.sql.j2", {"pids": pids, "cids": cids},
                 members=self.members)
        self.stored = []

    def unstore(self, cid: int) -> list[tuple[int, int, list[str]]]:
        """Line 12: D* = D* - {Q'}; returns Q''s members (pid, |R(p)|, S(p)) for Q, by Id_num.
        Its members come from :attr:`kept` (they were Q's members when it was stored: no
        statement reads them back). A class stored since the last :meth:`sync` leaves without
        a statement; one already in D*'s tables leaves them at the next :meth:`sync` (with the
        others merged since: two statements, however many)."""
        for i, (stored, *_, rows, _home) in enumerate(self.stored):
            if stored == cid and rows is not None:
                del self.stored[i]
                return self.kept.pop(cid)
        self.dropped.append(cid)
        return self.kept.pop(cid)   # every class line 12 merges was stored with its rows (store)
