"""Paper 001 (hierarchies CGH/DBGH/CBGH against IOTF): the lattice experiment, Table 4 and
Figures 5-6 (:mod:`.figures`), the findings, the plots and the worked examples (:mod:`.examples`)."""
