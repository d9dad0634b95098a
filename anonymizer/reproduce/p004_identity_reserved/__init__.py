"""Paper 004 (identity-reserved anonymity): Tables 2-4 worked example, experiment, query error, plots."""
