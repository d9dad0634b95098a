"""The cross-version gate's difference check (:mod:`anonymizer.versions.combination`, its
module docstring): for every earlier version, the multiset difference of each class both
publish, each side judged by the declared models (``difference.sql.j2``); for a form whose
classes publish no box (:attr:`~anonymizer.versions.combination.Released.private`), each new
class against the previous version's groups of the people who stood in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonymizer.engine.session import Engine
from anonymizer.target import Target

if TYPE_CHECKING:
    from anonymizer.versions.released import Released


def check(engine: Engine, target: Target, rules: list[dict], params: dict, figures: dict, **tables) -> None:
    """The difference check (``difference.sql.j2``) into ``figures``: per earlier version,
    the boxes both publish, those that changed, and the failing sides per model."""
    for row in engine.rows("versions/combination/difference.sql.j2", {"release": target.release, **params},
                           rules=rules, boxes=False, target=None, **tables):
        failing = [{"model": r["model"], "sides": row[3 + 2 * n], "people": int(row[4 + 2 * n])}
                   for n, r in enumerate(rules) if row[3 + 2 * n]]
        figures["difference"].append({"version": row[0], "shared_boxes": row[1], "changed_boxes": row[2],
                                      "failing": failing})
        figures["isolated"] += max([f["people"] for f in failing], default=0)


def through_people(engine: Engine, target: Target, released: Released, previous: int | None,
                   rules: list[dict], params: dict, figures: dict, state: str, private: tuple[str, str]) -> None:
    """The difference check for classes with no box (:attr:`~anonymizer.versions.combination.Released.private`): each new class
    against the previous version's groups of the people who stood in it. Earlier versions
    are covered through the previous one where groups keep their multisets (m-invariance);
    under ``independent`` only the previous version is compared. ``state``: the people's
    state after this version (``people.sql.j2``), whose ``since`` says who stood; ``private``:
    the state tables (people, groups)."""
    if previous is None or released.people is None or released.members is None:
        return
    people, groups = private
    memory, current, links = engine.work("private_memory"), engine.work("private_current"), engine.work("private_links")
    bound = {"previous": previous, "release": target.release, "attr": released.followed}
    engine.run("versions/combination/private_memory.sql.j2", bound, target=memory, people=people, groups=groups)
    engine.run("versions/combination/private_current.sql.j2", {"attr": released.followed}, target=current,
               people=released.people, members=released.members)
    engine.run("versions/combination/private_links.sql.j2", target=links, people=released.people, current=current,
               state=state)
    figures["compared"] = [previous]
    check(engine, target, rules, params, figures, current=current, memory=memory, overlap=True, links=links)
    engine.release_tables(memory, current, links)
