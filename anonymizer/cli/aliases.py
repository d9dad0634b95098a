"""The old spellings of the command line, turned into the new ones (kept for one release
cycle, hidden from ``--help``).

Each old spelling is a rule that rewrites the arguments; the group that meets the old
spelling parses the rewritten ones, so the new command runs with its own options, and once
it is done a note on stderr names the new spelling (:func:`note`; a failing command's
stderr stays its one error line). No command is declared twice.

    =========================================  =============================================
    old                                        new
    =========================================  =============================================
    lgb --flag-adult ...                       reproduce data flagged-adult ...
    lgb --experiment 000 ...                   reproduce p000 ...
    lattice --experiment 001 ...               reproduce p001 ...
    lattice SPEC ...                           hierarchy lattice SPEC ...
    msb --experiment 002 ...                   reproduce p002 ...
    ir --patients N ...                        reproduce data patients --individuals N ...
    ir --table2 ...                            reproduce data table2 ...
    ir --experiment 004 ...                    reproduce p004 ...
    bench [--bench KIND] ...                   bench KIND ... (KIND mondrian by default)
    hierarchy [SPEC] --column C ...            hierarchy show [SPEC] --column C ...
    hierarchy ... --export FILE                hierarchy export ... --output FILE
    =========================================  =============================================

Example:
    >>> rewrite(["lgb", "--experiment", "000", "--ks", "5"])
    ['reproduce', 'p000', '--ks', '5']
    >>> rewrite(["bench", "--rows", "1000", "--bench=k-check"])
    ['bench', 'k-check', '--rows', '1000']
"""

from __future__ import annotations

import click

#: old command -> its selectors: option -> (value it must have, or None for a flag; the new
#: command; the option the selector's value becomes, if any). Without a selector, an old
#: spelling without one of them is an error; ``lattice`` without one is ``hierarchy lattice``.
SELECTORS = {
    "lgb": {"--flag-adult": (None, ["reproduce", "data", "flagged-adult"], None),
            "--experiment": ("000", ["reproduce", "p000"], None)},
    "lattice": {"--experiment": ("001", ["reproduce", "p001"], None)},
    "msb": {"--experiment": ("002", ["reproduce", "p002"], None)},
    "ir": {"--patients": ("*", ["reproduce", "data", "patients"], "--individuals"),
           "--table2": (None, ["reproduce", "data", "table2"], None),
           "--experiment": ("004", ["reproduce", "p004"], None)},
}
HELP = ("-h", "--help")


def rewrite(argv: list[str]) -> list[str] | None:
    """``argv`` (below ``anonymizer``) in the new spelling, or ``None`` if it is not an
    old spelling. Raises :class:`click.UsageError` for an old spelling that names no
    command (``lgb`` without ``--flag-adult`` or ``--experiment 000``)."""
    if not argv:
        return None
    head, rest = argv[0], list(argv[1:])
    if head == "bench" and rest and rest[0].startswith("-"):
        kind, rest = _take(rest, "--bench", True)
        new = ["bench", kind or "mondrian", *rest]
    elif head == "hierarchy" and rest:
        output, rest = _take(rest, "--export", True)
        new = ["hierarchy", "export", *rest, "--output", output] if output else ["hierarchy", "show", *rest]
    elif head in SELECTORS:
        new = _selected(head, rest)
    else:
        return None
    return new


def note(old: list[str], new: list[str]) -> str:
    """What a command run by its old spelling says on stderr once it is done."""
    return f"note: `anonymizer {_shown(old)}` is now `anonymizer {_shown(new)}`"


def _selected(head: str, rest: list[str]) -> list[str]:
    """The new command chosen by the one selector option of ``rest``."""
    chosen = []
    for option, (value, command, becomes) in SELECTORS[head].items():
        given, rest = _take(rest, option, value is not None)
        if given is None:
            continue
        if value not in (None, "*", given):
            raise click.UsageError(f"{option}: must be {value} (got {given!r})")
        chosen.append([*command, *([becomes, given] if becomes else [])])
    names = " and ".join(f"{o} {v}" if v and v != "*" else o for o, (v, _, _) in SELECTORS[head].items())
    if head == "lattice" and not chosen:
        chosen.append(["hierarchy", "lattice"])
    if len(chosen) != 1:
        if not chosen and any(a in HELP for a in rest):   # the new command's help, or the new commands'
            commands = [command for _, command, _ in SELECTORS[head].values()]
            return [*(commands[0] if len(commands) == 1 else ["reproduce"]), "--help"]
        raise click.UsageError(f"anonymizer {head}: give exactly one of {names}")
    return [*chosen[0], *rest]


def _take(args: list[str], option: str, has_value: bool) -> tuple[str | None, list[str]]:
    """The value of ``option`` in ``args`` (``""`` for a flag, ``None`` if absent) and the
    other arguments; ``--option value`` and ``--option=value`` are both read."""
    for i, arg in enumerate(args):
        if arg == option:
            if not has_value:
                return "", args[:i] + args[i + 1:]
            if i + 1 == len(args):
                raise click.UsageError(f"Option '{option}' requires an argument.")
            return args[i + 1], args[:i] + args[i + 2:]
        if has_value and arg.startswith(option + "="):
            return arg[len(option) + 1:], args[:i] + args[i + 1:]
    return None, args


def _shown(argv: list[str]) -> str:
    return " ".join(a if a and " " not in a else repr(a) for a in argv)
