"""Data generators shared by the demo, the benchmarks, the reproductions and the tests: the
synthetic Adult-like table, paper 000's flagged Adult, paper 004's multi-record patients.
A release never imports them."""
