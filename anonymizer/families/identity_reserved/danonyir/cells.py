"""A grid over the QI space for DAnonyIR's candidate search (paper 004, Algorithm 1 lines 7-8).

The batch statement (``batch.sql.j2``) and the scan for Q as it is now (``candidates.sql.j2``)
weigh every remaining individual: a batch costs its seeds times D, a scan D, so a run costs
O(n^2) (170 s at 64,000 patients, 600 s at 128,000). Each individual now lies in a cell
(:func:`assign`, once): a numeric QI cut into equal bins of its range, a categorical QI by its
code (exact up to 16 codes: a mismatch costs a whole 1/(|X| - 1), so a cell of another code
bounds its members far). When a batch is chosen, one statement reads D's cells (:func:`live`,
``cell_live.sql.j2``: each cell's individuals, least |R(p)| and box); until the next batch D
only loses individuals, so those boxes and least |R(p)| stay lower bounds of every member
left (the counts then overstate; they only choose which cells are read first).

``cell_batch.sql.j2`` (and ``cell_candidates.sql.j2`` for Q as it is now) bounds u, the
normalized spans (Eqs. 11, 12) of the union of Q with any member of a cell, by the union with
the nearest point of the cell's box (``cell.sql.j2``), reads the cells of least bound first
(:func:`near`: as many as hold about :data:`SCAN` individuals, :data:`RESCAN` for Q as it is
now), takes the k-th least distance among their individuals (an upper bound of D's k-th,
"reach"), then reads every other cell whose bound is not above it: a cell above it holds no
candidate. A cell not read joins the bounds of the individuals left out as one pair, (least
|R(p)|, the cell's bound of u): a lower bound of every member's Dist (Eq. 17 grows with |R(p)|
and u). The candidates and bounds then serve as before (:mod:`.search`): a step is certified
only below every bound, so the release is the plain scan's, row for row
(tests/families/identity_reserved/test_danonyir_batch.py: with most cells left unread, and
with the defaults). A seed costs D's cells and the individuals of the cells near it, not D.

Reading cells costs more operators than reading D, so small tables read D: the cells serve
the batches of a run over :data:`BATCH_FROM` individuals or more, and its scans for Q as it is
now while D holds :data:`RESCAN_FROM` or more (a scan's plan costs about the same at every
size, about 20 ms; the plain scan's grows with D and passes it near 40,000).

The formed classes D* are grouped the same way: a class's group is its seed's cell divided by
``t.div`` (the cells alike in their leading QIs, about :data:`GROUP` cells a group). A batch
bounds each seed's distance to every class of a group by the group's hull (the union of its
classes' boxes, their least |Q'| and least sum of spans: ``cell.sql.j2``, ``hulls`` and
``seed_bound``), reads the classes of the groups of least bound first (about :data:`CLASSES`
classes), takes the :data:`KC`-th least distance among them, then reads every group whose
bound is not above it; a group not read joins the classes' bounds as one (own, u) pair. A seed
then costs D*'s groups and the classes near it, not D*. The scans for Q as it is now read the
classes so too, with the bounds of a box Q (``q_classes``), in both candidates templates.

How many bins: the most (of :data:`BINS`) that leave at least :data:`PER_CELL` individuals a
cell on average (one statement counts the cells of every choice). How many cells a group: the
least trailing QIs whose cells, dropped, leave at most one group per :data:`GROUP` cells.
"""

from __future__ import annotations

import math

from anonymizer.families.identity_reserved.danonyir.state import Tables

#: A run over at least this many individuals puts them in cells (:func:`assign`) and its batches
#: read D's cells (``cell_batch.sql.j2``); a smaller run's batches read all of D (``batch.sql.j2``:
#: fewer, simpler operators; README, "Measurements behind the constants").
BATCH_FROM = 32_000
#: In such a run, a scan for Q as it is now reads D's cells (``cell_candidates.sql.j2``) while D
#: holds at least this many individuals, and all of D below (``candidates.sql.j2``).
RESCAN_FROM = 40_000
#: Numeric bins tried, most first (the cells grow with bins^numeric QIs).
BINS = (64, 32, 16, 8, 4, 2, 1)
#: Individuals a seed's scan reads first, about (whole cells, least bound first; then every cell
#: whose bound is not above the k-th distance found).
SCAN = 1024
#: Individuals a scan for Q as it is now reads first, about (then as :data:`SCAN`).
RESCAN = 256
#: Individuals a cell holds at least on average (fewer, tighter cells certify more steps).
PER_CELL = 16
#: Cells a group of classes spans, at least on average (:func:`assign`): small groups, whose
#: hulls stay tight (at 256,000 patients, groups of 2.5 cells read a fifth of the classes that
#: groups of 45 cells read, and the batch statement took half the time).
GROUP = 2
#: Classes a seed's scan reads first, about (whole groups, least bound first; then every group
#: whose bound is not above the :data:`KC`-th distance found).
CLASSES = 256
#: Candidate classes a seed of a batch keeps (at most as many as candidate individuals): 128
#: instead of 512 made the batch statement 14 % faster at 256,000 patients (one batch), and the
#: scans for Q as it is 2 % more at 64,000.
KC = 128


def live(t: Tables) -> None:
    """D's cells as they are now (``cell_live.sql.j2``: count, least |R(p)|, box), for the batch
    about to be chosen and the scans for Q until the next; their number and individuals kept
    in ``t.live``."""
    t.run("families/identity_reserved/danonyir/cell_live.sql.j2", target=t.cells, rest=t.rest)
    t.live = t.rows("families/identity_reserved/danonyir/cell_sizes.sql.j2", {"div": t.div}, cells=t.cells,
                    classes=t.classes)[0]


def _share(parts: int, items: int, scan: int) -> int:
    """How many of ``parts`` hold about ``scan`` of their ``items`` on average (at least one)."""
    return max(1, min(parts, math.ceil(scan * parts / max(items, 1))))


def near(t: Tables, scan: int) -> int:
    """How many cells a scan for Q as it is now reads first (those of the least bound), to read
    about ``scan`` individuals."""
    return _share(t.live["cells"], t.live["individuals"], scan)


def near_groups(t: Tables, scan: int) -> int:
    """How many groups of classes a seed's scan reads first, to read about ``scan`` classes."""
    return _share(t.live["groups"], t.live["classes"], scan)


def assign(t: Tables) -> int:
    """Put every individual of ``t.people`` in its cell (column ``cell``, in a new table that
    becomes ``t.people``); returns the bins."""
    counts = t.rows("families/identity_reserved/danonyir/cell_counts.sql.j2", people=t.people, choices=list(BINS))[0]
    most = max(1, t.remaining // PER_CELL)
    bins = next((b for j, b in enumerate(BINS) if counts[f"n{j}"] <= most), BINS[-1])
    target = t.engine.work("dn_people_cells")
    t.run("families/identity_reserved/danonyir/cell_assign.sql.j2", target=target, people=t.people, bins=bins)
    t.people, t.grid = target, True
    divs = [1]
    for a in reversed(t.attrs):                # the cell's radix of each QI (cell.sql.j2), last QI first
        divs.append(divs[-1] * (bins if a.numeric else min(a.m, 16)))
    groups = t.rows("families/identity_reserved/danonyir/cell_groups.sql.j2", people=t.people, choices=divs)[0]
    cells = counts[f"n{BINS.index(bins)}"]
    t.div = next((d for j, d in enumerate(divs) if groups[f"n{j}"] * GROUP <= cells), divs[-1])
    return bins
