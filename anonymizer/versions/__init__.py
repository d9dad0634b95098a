"""A release's versions read as one person's over time: what the person key must keep.

:mod:`anonymizer.versions.keys` checks, before any work, that ``history.person`` still names
the people it named when the previous version published (its type, the share of people who
return under their key, the people found again under another key), and reads the private
state under new keys where ``history.key_map`` says how they changed.
"""
