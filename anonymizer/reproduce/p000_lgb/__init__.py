"""Paper 000 (LGB): Figs. 1-4 worked example, Section 6 experiment, query error, plots."""
