"""Errors of the anonymizer, one class per phase, each building its message from fields.

Every error a user can cause derives from :class:`AnonymizerError`; input errors also
derive from ``ValueError`` so that generic callers can catch them as such. The command
line maps their :attr:`~AnonymizerError.kind` to its exit status (:mod:`anonymizer.cli`):
``privacy`` 1 (:class:`PrivacyCheckFailed`), ``input`` 2 (the rest), ``database`` 3
(:class:`DatabaseError`), ``internal`` 4 (:class:`TemplateError`, a bug of ours, unless the
database's environment caused it: then 3).
"""

from __future__ import annotations


class AnonymizerError(Exception):
    """Root of every error this package raises on purpose.

    Attributes:
        kind: who is to act: ``input`` (fix the spec, option or data), ``privacy`` (the
            release does not satisfy its models), ``database`` (the database or engine),
            ``internal`` (us: a bug to report).
    """

    kind = "input"


class SpecError(AnonymizerError, ValueError):
    """A release spec or a call's arguments are invalid.

    Args:
        field: dotted path of the offending field, e.g. ``columns.age.type``.
        problem: what is wrong, as a sentence fragment.
        value: the offending value, if any (shown with ``repr``).

    Attributes:
        errors: every error found at once (the spec's schema finds them all,
            :mod:`anonymizer.spec.validate`); this one alone unless made by :meth:`of`.
    """

    def __init__(self, field: str, problem: str, value: object = ...):
        self.field, self.problem, self.value = field, problem, value
        self._all: tuple[SpecError, ...] = (self,)
        shown = "" if value is ... else f" (got {value!r})"
        super().__init__(f"{field}: {problem}{shown}")

    @classmethod
    def of(cls, errors: list[SpecError]) -> SpecError:
        """One error standing for several: the first's ``field``, ``problem`` and ``value``, a
        message listing them all (on one line, ``; `` between them) and all as ``errors``.

        Example:
            >>> err = SpecError.of([SpecError("a", "is required"), SpecError("b.c", "must be >= 1", 0)])
            >>> err.field, str(err)
            ('a', '2 errors in the spec: a: is required; b.c: must be >= 1 (got 0)')
        """
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        err = cls(first.field, first.problem, first.value)
        err.args = (f"{len(errors)} errors in the spec: " + "; ".join(str(e) for e in errors),)
        err._all = tuple(errors)
        return err

    @property
    def errors(self) -> tuple[SpecError, ...]:
        return self._all


class DataError(AnonymizerError, ValueError):
    """The data does not fit the spec (missing table, NULLs, empty table, k above rows)."""

    def __init__(self, table: str, problem: str):
        self.table, self.problem = table, problem
        super().__init__(f"table {table}: {problem}")


class TemplateError(AnonymizerError):
    """A SQL template is missing, fails to render, or its statement fails in the engine: a
    bug of ours (the input is checked before any template runs), reported as one with its
    traceback, unless the engine's environment (I/O, memory, a lost connection) caused it."""

    kind = "internal"

    def __init__(self, template: str, problem: str):
        self.template, self.problem = template, problem
        super().__init__(f"template {template}: {problem}")


class UnsupportedError(AnonymizerError):
    """A combination the engine does not offer (e.g. an algorithm option for a model)."""


class DatabaseError(AnonymizerError):
    """The database or engine cannot do the work asked, through no fault of the spec: the
    file cannot be opened, another process holds it, it is read-only, I/O failed, memory ran
    out, the Spark session failed.

    Args:
        where: what failed, e.g. ``--db raw.duckdb`` or ``the database``.
        problem: why, as a sentence fragment.
    """

    kind = "database"

    def __init__(self, where: str, problem: str):
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


class PrivacyCheckFailed(AnonymizerError):
    """The candidate output does not satisfy a declared privacy model; nothing is published.

    Args:
        model: the model as text, e.g. ``5-anonymity``.
        achieved: the figure measured on the candidate.
        classes: how many equivalence classes fail.
        reason: why the model does not hold, as a sentence fragment, when a figure alone
            (``achieved X``) does not say it.
        achieved_is: what ``achieved`` counts or measures (a ``--json`` reader sees it beside
            the figure): the model's own figure (k's smallest class, l's fewest values, ...)
            unless said, e.g. ``rows that would need suppression``.
    """

    kind = "privacy"

    def __init__(self, model: str, achieved: object, classes: int, view: str | None = None, *,
                 reason: str | None = None, achieved_is: str = "the model's figure on the candidate"):
        self.model, self.achieved, self.classes, self.view = model, achieved, classes, view
        self.reason, self.achieved_is = reason, achieved_is
        where = f" for {view}" if view else ""
        why = f"): {reason}" if reason else f", achieved {achieved})"
        super().__init__(
            f"verification failed{where}: {model} does not hold "
            f"({classes} equivalence class(es) fail{why}; nothing was published"
        )


class ExportError(AnonymizerError):
    """A release's export file cannot be written (the published release itself stands).

    Args:
        path: the file that was to be written.
        problem: why not, as a sentence fragment.
    """

    def __init__(self, path: object, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"export {path}: {problem}")


class BudgetExhausted(AnonymizerError):
    """A differentially private run would spend more than its budget has left; refused before
    any work (:mod:`anonymizer.dp.ledger`).

    Args:
        account: the budget's account (the release, or the recipient the spec names).
        asked: the (epsilon, delta) the run would spend.
        left: the (epsilon, delta) the account has left.
        total: the account's total since its last refresh.
    """

    kind = "privacy"

    def __init__(self, account: str, asked: tuple[float, float], left: tuple[float, float],
                 total: tuple[float, float]):
        self.account, self.asked, self.left, self.total = account, asked, left, total
        super().__init__(f"budget {account}: this run would spend epsilon {asked[0]:g} and delta {asked[1]:g}, and "
                         f"only epsilon {left[0]:g} and delta {left[1]:g} are left of epsilon {total[0]:g} and delta "
                         f"{total[1]:g}; nothing was run. A budget is renewed only by `anonymizer budget refresh "
                         f"{account} --reason TEXT` (audited)")
