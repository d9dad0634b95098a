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

How many bins: the most (of :data:`BINS`) that leave at least :data:`PER_CELL` individuals a
cell on average (one statement counts the cells of every choice).
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


def live(t: Tables) -> None:
    """D's cells as they are now (``cell_live.sql.j2``: count, least |R(p)|, box), for the batch
    about to be chosen and the scans for Q until the next; their number and individuals kept
    in ``t.live``."""
    t.run("families/identity_reserved/danonyir/cell_live.sql.j2", target=t.cells, rest=t.rest)
    t.live = tuple(t.rows("families/identity_reserved/danonyir/cell_sizes.sql.j2", cells=t.cells)[0].values())


def near(t: Tables, scan: int) -> int:
    """How many cells a scan reads first (those of the least bound), to read about ``scan``
    individuals: as many cells as hold ``scan`` individuals on average."""
    count, people = t.live
    return max(1, min(count, math.ceil(scan * count / max(people, 1))))


def assign(t: Tables) -> int:
    """Put every individual of ``t.people`` in its cell (column ``cell``, in a new table that
    becomes ``t.people``); returns the bins."""
    counts = t.rows("families/identity_reserved/danonyir/cell_counts.sql.j2", people=t.people, choices=list(BINS))[0]
    most = max(1, t.remaining // PER_CELL)
    bins = next((b for j, b in enumerate(BINS) if counts[f"n{j}"] <= most), BINS[-1])
    target = t.engine.work("dn_people_cells")
    t.run("families/identity_reserved/danonyir/cell_assign.sql.j2", target=target, people=t.people, bins=bins)
    t.people, t.grid = target, True
    return bins
