"""Paper 003 (PrivacyFrost2): the grid of its Table 2."""
