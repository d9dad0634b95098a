"""``anonymizer bench``: the benchmarks (each compares with a plain GROUP BY scan of the same
data); :mod:`.harness` holds the shared timing and memory helpers."""
