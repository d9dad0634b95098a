"""``python -m anonymizer.cli``: the ``anonymizer`` command."""

from anonymizer.cli import main

main(prog_name="anonymizer")
