"""``anonymizer schema``: the release spec's JSON Schema, for editors and for tools that
check a spec before it runs (:mod:`anonymizer.spec.schema`)."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the schema to this file instead of stdout.")
def schema(output: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of a release spec.

    Editors complete and check a spec with it: write it to a file once, then name it on the
    spec's first line for VS Code's YAML extension (or any editor using yaml-language-server):

    \b
      anonymizer schema --output anonymizer.schema.json
      # yaml-language-server: $schema=anonymizer.schema.json
    \b
    `anonymizer run` and `anonymizer validate` check every spec against it first and report
    every error at once, with a suggestion for a misspelled key or value.
    """
    from anonymizer.spec.schema import spec_schema
    text = json.dumps(spec_schema(), indent=2) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    Path(output).write_text(text, encoding="utf-8")
    click.echo(f"wrote the spec's JSON Schema to {output}", err=True)
