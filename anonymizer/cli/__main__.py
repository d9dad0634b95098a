"""``python -m anonymizer.cli``: the ``anonymizer`` command."""

from . import main

main(prog_name="anonymizer")
