"""The documentation's reference pages, generated from the code when the site is built
(mkdocs hook ``on_pre_build``): the command line from click's own help of every command
and subcommand, the release spec's fields from its JSON Schema
(:func:`anonymizer.spec.schema.spec_schema`), and the SQL macros from the header of
``sql/anonymizer_macros.sql``; and the changelog, ``CHANGELOG.md``. They are written under
``docs/`` (ignored by git), so the reference cannot drift from what the code says."""

from __future__ import annotations

from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reference"


def on_pre_build(config) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cli.md").write_text(cli_page(), encoding="utf-8")
    (OUT / "spec.md").write_text(spec_page(), encoding="utf-8")
    (OUT / "macros.md").write_text(macros_page(), encoding="utf-8")
    (ROOT / "docs" / "changelog.md").write_text((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), encoding="utf-8")


def cli_page() -> str:
    from anonymizer.cli import main
    parts = ["# The command line\n", "Every command's `--help`, as `anonymizer` prints it.\n"]

    def walk(command: click.Command, path: list[str]) -> None:
        with click.Context(command, info_name=" ".join(path)) as ctx:
            parts.append(f"\n## `{' '.join(path)}`\n\n```text\n{command.get_help(ctx)}\n```\n")
            if isinstance(command, click.Group):
                for name in command.list_commands(ctx):
                    sub = command.get_command(ctx, name)
                    if sub is not None and not sub.hidden:
                        walk(sub, path + [name])

    walk(main, ["anonymizer"])
    return "".join(parts)


def spec_page() -> str:
    from anonymizer.spec.schema import spec_schema
    schema = spec_schema()
    rows: list[str] = []

    def kind(node: dict) -> str:
        if "enum" in node:
            return " \\| ".join(f"`{v}`" for v in node["enum"])
        if "const" in node:
            return f"`{node['const']}`"
        options = node.get("anyOf") or node.get("oneOf")
        if options:
            return " or ".join(kind(o) for o in options)
        return str(node.get("type", "")).replace("'", "")

    def shapes(node: dict) -> list[dict]:
        """The node and the alternatives it allows (``anyOf``, ``oneOf``)."""
        return [node] + [o for o in (node.get("anyOf") or node.get("oneOf") or []) if isinstance(o, dict)]

    def walk(node: dict, path: str) -> None:
        for shape in shapes(node):
            required = set(shape.get("required") or [])
            for name, child in (shape.get("properties") or {}).items():
                field = f"{path}.{name}" if path else name
                need = "yes" if name in required else ""
                text = (child.get("description") or "").replace("|", "\\|").replace("\n", " ")
                rows.append(f"| `{field}` | {kind(child)} | {need} | {text} |")
                walk(child, field)
            extra = shape.get("additionalProperties")
            if isinstance(extra, dict):
                walk(extra, f"{path}.<name>")
            items = shape.get("items")
            if isinstance(items, dict):
                walk(items, f"{path}[]")

    walk(schema, "")
    return ("# The release spec\n\nEvery field of a release spec (YAML), from the JSON Schema that "
            "`anonymizer schema` prints and `anonymizer validate` checks.\n\n"
            "| field | type | required | what it is |\n|---|---|---|---|\n" + "\n".join(rows) + "\n")


def macros_page() -> str:
    text = (ROOT / "sql" / "anonymizer_macros.sql").read_text(encoding="utf-8")
    header = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        header.append(line[3:] if line.startswith("-- ") else line[2:])
    return ("# The SQL macros\n\nThe header of `sql/anonymizer_macros.sql` (`anonymizer macros path` "
            "prints where it is installed): every macro, its arguments and what it returns.\n\n```text\n"
            + "\n".join(header) + "\n```\n")
