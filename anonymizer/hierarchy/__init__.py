"""Generalization hierarchies as mapping tables in the database.

A hierarchy maps every value of a column to its node at every level (level 0 the value,
the top ``*``); builders produce it in SQL, one module per kind:

==============  ===========================================  ===============================
kind            spec (``columns.<name>.hierarchy``)          module
==============  ===========================================  ===============================
ARX file        ``ages.csv`` or ``{csv: f, delimiter: ;}``   :mod:`.csv_file`
intervals       ``{intervals: [5, 10, 20]}``                 :mod:`.intervals`
masking         ``{masking: true}`` / ``{masking: 3}``       :mod:`.masking`
ordered groups  ``{ordered: [a, b, c, d], sizes: [2]}``      :mod:`.ordered`
dates           ``{dates: [month, year, decade]}``           :mod:`.dates`
CGH             ``{cgh: {min_width: 10, range: [1, 100]}}``  :mod:`.cgh` (paper 001 sec. III.A)
DBGH            ``{dbgh: {min_width: 10}}``                  :mod:`.dbgh` (paper 001 Alg. 1)
CBGH            ``{cbgh: {min_width: 10}}``                  :mod:`.cbgh` (paper 001 Alg. 2)
IOTF            ``{iotf: {nodes: [24, 16, 4]}}``             :mod:`.iotf` (paper 001's baseline)
none            (no ``hierarchy``)                           :mod:`.flat`
==============  ===========================================  ===============================

:func:`build_hierarchy` codes a column and builds its tables; :func:`level_summary` and
:func:`export_arx` describe and write them (the ``anonymizer hierarchy`` command).
"""

from anonymizer.hierarchy.build import BUILDERS, Coded, build_hierarchy
from anonymizer.hierarchy.levels import Level, level_summary
from anonymizer.hierarchy.export import export_arx
from anonymizer.hierarchy.spec import KINDS, Hierarchy, column_type, parse_hierarchy

__all__ = ["BUILDERS", "KINDS", "Coded", "Hierarchy", "Level", "build_hierarchy", "column_type", "export_arx",
           "level_summary", "parse_hierarchy"]
