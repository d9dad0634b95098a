"""The wheel carries what a release needs outside the source tree: the top-level
``templates/`` and ``sql/`` folders (as ``anonymizer/templates`` and ``anonymizer/sql``) and
the bundled data; ``pyproject.toml`` lists the packages, and the list matches the tree."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_listed_packages_are_the_tree():
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    code = [".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "anonymizer").rglob("__init__.py")]
    data = [".".join(p.relative_to(ROOT).parts) for p in (ROOT / "anonymizer" / "data").rglob("*") if p.is_dir()]
    assert sorted(listed) == sorted(code + ["anonymizer.data"] + data + ["anonymizer.templates", "anonymizer.sql"])


@pytest.mark.slow
def test_the_wheel_works_outside_the_source_tree(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("anonymizer-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    templates = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "templates").rglob("*.sql.j2"))
    assert sorted(n[len("anonymizer/"):] for n in names if n.endswith(".sql.j2")) == templates
    assert "anonymizer/sql/anonymizer_macros.sql" in names and "anonymizer/data/adult.data.gz" in names
    assert "anonymizer/bench/ArxBench.java" in names   # bench arx-grid --arx-jar compiles it
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # without site processing (-S), so the editable install's finder cannot serve the tree;
    # the dependencies come from this environment's site-packages
    probe = ("import anonymizer, anonymizer.engine.session as e, anonymizer.macros as m, anonymizer.resources as r;"
             "print(anonymizer.__file__); print(r.resource_dir('templates'));"
             "print('count(*)' in e.render('models/class_sizes.sql.j2', source='t', qis=['a']));"
             "print(m.macros_sql().count('CREATE OR REPLACE MACRO') > 10)")
    out = subprocess.run([sys.executable, "-S", "-c", probe], cwd="/", check=True, capture_output=True, text=True,
                         env={"PYTHONPATH": f"{site}:{sysconfig.get_paths()['purelib']}"}).stdout.split()
    assert out[0].startswith(str(site)) and out[1] == str(site / "anonymizer" / "templates")
    assert out[2:] == ["True", "True"]
