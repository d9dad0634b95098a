"""Where the package's resource folders are: ``templates/`` (the SQL templates, one
operation per file) and ``sql/`` (the analyst macro library) sit at the top of the
repository, next to ``anonymizer/``, and inside the wheel as ``anonymizer/templates`` and
``anonymizer/sql`` (``pyproject.toml`` maps them there).

An installed wheel has them as package data; an editable install (``pip install -e``) does
not (setuptools' editable finder maps no data-only folder), so the repository's folders
serve then.

Example:
    >>> (resource_dir("templates") / "models").is_dir(), (resource_dir("sql") / "anonymizer_macros.sql").is_file()
    (True, True)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: the resource folders
TEMPLATES, SQL = "templates", "sql"


def resource_dir(name: str) -> Path:
    """The folder ``name`` (:data:`TEMPLATES` or :data:`SQL`): the wheel's, else the
    repository's."""
    installed = resources.files("anonymizer") / name
    if installed.is_dir():
        return Path(str(installed))
    return Path(__file__).resolve().parents[1] / name
