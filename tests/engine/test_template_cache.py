"""The compiled templates kept between processes (anonymizer.engine.rendering._bytecode_cache)."""

from __future__ import annotations

import os
import stat

import jinja2

from anonymizer.engine import rendering as session


def _fresh_env(folder) -> jinja2.Environment:
    """A new environment, as a new process would have, over ``folder`` and our cache."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), bytecode_cache=session._bytecode_cache())


def test_release_templates_are_cached_in_a_private_directory():
    cache = session._ENV.bytecode_cache
    assert isinstance(cache, jinja2.FileSystemBytecodeCache)
    info = os.lstat(cache.directory)
    assert info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700   # its files are code
    session.render("models/class_sizes.sql.j2", source='"t"', qis=['"a"'])
    key = cache.get_cache_key("models/class_sizes.sql.j2", session._ENV.loader.get_source(
        session._ENV, "models/class_sizes.sql.j2")[1])
    assert os.path.exists(os.path.join(cache.directory, cache.pattern % key))


def test_a_changed_template_is_compiled_again(tmp_path):
    (tmp_path / "t.sql.j2").write_text("SELECT {{ x }}")
    assert _fresh_env(tmp_path).get_template("t.sql.j2").render(x=1) == "SELECT 1"
    (tmp_path / "t.sql.j2").write_text("SELECT {{ x }} + 1")
    assert _fresh_env(tmp_path).get_template("t.sql.j2").render(x=1) == "SELECT 1 + 1"


def test_no_cache_when_its_directory_cannot_be_had(monkeypatch):
    def refused(self, directory=None, pattern=""):
        raise RuntimeError("Cannot determine safe temp directory.")
    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "__init__", refused)
    assert session._bytecode_cache() is None
