"""Information loss on ARX's Adult with its 8 QIs and hierarchies, against ARX's local recoding.

ARX 3.9.2 local recoding on this data (DESIGN.md): loss 0.036 at k=5 and 0.052 at k=10,
measured per cell as (distinct original values covered - 1) / (distinct values - 1),
averaged over rows and QIs, a suppressed cell counting 1.

- With ``labels: values`` (each class publishes its own range or value set) Mondrian must
  do at least as well.
- With the default ``labels: hierarchy`` every cell is a node of the declared hierarchy, as
  in ARX's output; Mondrian cuts along the nodes, and its loss (0.055 at k=5, 0.098 at k=10
  when this was written) is guarded here against regressions. It is above ARX's local
  recoding, which searches per class over the hierarchy's levels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anonymizer import anonymize, load_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adult_mondrian.yml"
HIERARCHIES = EXAMPLE.parent.parent / "anonymizer" / "data" / "arx_adult"


def release(con, k: int, labels: str):
    raw = load_spec(EXAMPLE).raw
    spec = load_spec(dict(raw, release=f"loss_k{k}_{labels}", output={"view": f"loss_k{k}_{labels}"},
                          models=[{"type": "k-anonymity", "k": k}], algorithm={"name": "mondrian", "labels": labels}),
                     base_dir=EXAMPLE.parent)
    r = anonymize(spec, con)
    assert r.rows_in == 30162 and r.suppressed == 0 and r.measures["k"] >= k
    return r


def nodes(con, name: str) -> str:
    """Every node of an ARX hierarchy file, as a SELECT of one column."""
    path = HIERARCHIES / f"adult_hierarchy_{name}.csv"
    width = len(path.read_text().splitlines()[0].split(";"))
    return " UNION ".join(f"SELECT column{i} FROM read_csv('{path}', header=false, delim=';', all_varchar=true)"
                          for i in range(width))


@pytest.mark.parametrize("k,arx_loss", [(5, 0.036), (10, 0.052)], ids=["k5", "k10"])
def test_value_labels_lose_no_more_than_arx_local_recoding(con, k, arx_loss):
    r = release(con, k, "values")
    assert r.utility["loss"] <= arx_loss, r.utility
    # A categorical cell lists only values its class holds, and the label says so.
    bad = con.execute(f"""SELECT count(*) FROM {r.view}_classes
        WHERE len("education_values") > 1 AND NOT ("education" LIKE '{{%' OR "education" = '*')""").fetchone()[0]
    assert bad == 0


@pytest.mark.parametrize("k,guard", [(5, 0.06), (10, 0.105)], ids=["k5", "k10"])
def test_hierarchy_labels_are_nodes_of_the_declared_hierarchies(con, k, guard):
    r = release(con, k, "hierarchy")
    assert r.utility["loss"] <= guard, r.utility
    for qi in ("age", "education", "native-country", "workclass", "marital-status"):
        bad = con.execute(f'SELECT count(*) FROM {r.view} WHERE "{qi}" NOT IN ({nodes(con, qi)}) '
                          f"AND \"{qi}\" <> '*'").fetchone()[0]
        assert bad == 0, qi
    levels = con.execute(f'SELECT count(DISTINCT "education_level") FROM {r.view}_classes').fetchone()[0]
    assert levels >= 2   # classes at different depths: a local recoding, not one level for all
