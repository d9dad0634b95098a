"""A release's versions read together (issue 55): what every family's re-publication shares.

- :mod:`.combination`: the cross-version gate (the difference and intersection checks), the
  memory of what was published and the private per-person state;
- :mod:`.difference`: the gate's difference check;
- :mod:`.released`: what a family hands the gate of its candidate (:class:`.released.Released`);
- :mod:`.invariance`: m-invariance's steps (Xiao and Tao 2007), the same for every family;
- :mod:`.repair`: m-invariance's repair of groups whose box repeats an earlier version's
  with another multiset, run by the driver for every family;
- :mod:`.continuation`: where a version continues from, decided by the pipeline once for
  every family (:class:`.continuation.Continuation`);
- :mod:`.keys`: the person key across versions: before any work, ``history.person`` must
  still name the people it named when the previous version published (its type, the share
  of people who return under their key, the people found again under another key), or
  ``history.key_map`` says how the keys changed.

The pipeline (:func:`anonymizer.release.run.verified`) continues from the last version and
runs the repair and the gate for every family; a family states what it published
(:meth:`~anonymizer.release.candidate.FamilySteps.released`) and how it keeps signatures.
Templates: ``templates/versions/``.
"""
