"""``algorithm.seed`` (anonymizer.spec.seed): a secret key from the environment or a key file
replays a release for its holder alone; a public seed in the spec is allowed with a warning."""

from __future__ import annotations

import json
import logging

import pytest

from anonymizer import anonymize
from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec

KEY = "3f9c2a7e41d8b05c6e1f9a2d7b3c8e40"


def _spec(release, seed):
    return {"release": release, "source": {"table": "t"}, "default_role": "identifier",
            "columns": {"a": {"role": "quasi", "type": "numeric"}, "s": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 4}], "algorithm": {"name": "mondrian", "seed": seed}}


def _published(con, view):
    return con.execute(f"SELECT * FROM {view}").fetchall()   # in the view's order: the keyed row order


def test_a_key_from_the_environment_replays_for_its_holder_alone(con, monkeypatch):
    con.execute("CREATE TABLE t AS SELECT (i * 7919 % 97)::INT AS a, (i % 5)::VARCHAR AS s FROM range(400) AS r(i)")
    monkeypatch.setenv("RELEASE_KEY", KEY)
    first = anonymize(_spec("one", {"env": "RELEASE_KEY"}), con)
    again = anonymize(_spec("two", {"env": "RELEASE_KEY"}), con)
    monkeypatch.setenv("RELEASE_KEY", KEY[::-1])
    other = anonymize(_spec("three", {"env": "RELEASE_KEY"}), con)
    assert _published(con, first.view) == _published(con, again.view) != _published(con, other.view)
    audit = con.execute("SELECT parameters, spec_text FROM _anon_releases._audit WHERE release = 'one'").fetchone()
    assert json.loads(audit[0])["randomness"] == "keyed"
    assert KEY not in audit[0] + audit[1] and "seed" not in audit[1]


def test_a_key_file_is_read_beside_the_spec(tmp_path):
    (tmp_path / "release.key").write_text(KEY + "\n")
    spec = load_spec(_spec("r", {"file": "release.key"}), base_dir=tmp_path)
    assert spec.algorithm.secret == KEY and KEY not in repr(spec)


@pytest.mark.parametrize("seed,env,problem", [
    ({"env": "NO_SUCH_KEY"}, None, "the environment variable NO_SUCH_KEY is not set"),
    ({"env": "RELEASE_KEY"}, "12345", r"guessable key \(5 characters"),
    ({"env": "RELEASE_KEY"}, "0" * 40, r"guessable key \(40 characters, 1 distinct"),
    ({"file": "missing.key"}, None, "cannot read the key file"),
    ({"vault": "x"}, None, r"must be \{env: NAME\} or \{file: PATH\}"),
])
def test_a_missing_or_guessable_key_is_refused(monkeypatch, tmp_path, seed, env, problem):
    if env is not None:
        monkeypatch.setenv("RELEASE_KEY", env)
    with pytest.raises(SpecError, match=problem):
        load_spec(_spec("r", seed), base_dir=tmp_path)


def test_a_public_seed_warns(caplog):
    """Before: a seed in the spec was taken silently (a spec in git replays every draw)."""
    with caplog.at_level(logging.WARNING, logger="anonymizer"):
        assert load_spec(_spec("r", 0)).algorithm.seed == 0
    assert "anyone who reads the spec can replay every random draw" in caplog.text
