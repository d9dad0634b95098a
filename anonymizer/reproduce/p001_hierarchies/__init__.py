"""Paper 001 (hierarchies CGH/DBGH/CBGH): the lattice experiment and its plots."""
