"""One conformance suite every release family passes (dbt's adapter-test pattern).

:class:`BaseFamilyTests` holds the tests; each family's ``tests/families/<family>/test_conformance.py``
subclasses it with a class named ``Test*`` (pytest collects only those) and sets two class
attributes:

- ``form``: the family's published form (:data:`GENERALIZED`, :data:`ANATOMY`, :data:`LGB`,
  :data:`IDENTITY_RESERVED`): its data (a few hundred rows), an oracle that re-checks the
  published tables, and the declared parameters a failing run pushes out of reach;
- ``spec``: a factory returning the release spec (a dict) over the form's table.

The tests use the public surface only: :func:`anonymizer.anonymize`, the ``anonymizer`` console
script, the published views and the audit table in DuckDB, and :mod:`anonymizer.errors`. The
one exception is :func:`damage_before_verification`, which must reach inside a running release.

The oracles are not the product's code: pycanon 1.3.6 where the published form is a table of
generalized rows (its traps, DESIGN.md: a frame with a 0..n-1 index, ``sens_att`` a list), and
pandas computations of the property the family promises otherwise. Reading the published views
into pandas is the test's business, not the product's.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import random
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable

import duckdb
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from pycanon import anonymity

from anonymizer import anonymize
from anonymizer.errors import AnonymizerError, DataError, PrivacyCheckFailed, SpecError
from tests.conftest import ARX

PUBLISHED, SNAPSHOTS = "published", "_anon_releases"
AUDIT = f"{SNAPSHOTS}._audit"
EPS = 1e-9


# -- names and catalog ------------------------------------------------------------------------
def q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def view_name(spec: dict, part: str | None = None) -> str:
    """The quoted ``published.<view>`` (or ``<view>_<part>``) of a release spec."""
    view = (spec.get("output") or {}).get("view", spec["release"])
    return f"{q(PUBLISHED)}.{q(view if part is None else f'{view}_{part}')}"


def read(con, relation: str) -> pd.DataFrame:
    return con.execute(f"SELECT * FROM {relation}").df().reset_index(drop=True)


def catalog(con) -> list:
    """Every database, schema, table and view the connection sees, temporary ones included
    (what a run may touch): a view with its SQL, tables and views with their row count and an
    order-free hash of their rows."""
    objects = con.execute("""
        SELECT database_name, '', '', 'database', '' FROM duckdb_databases() WHERE NOT internal
        UNION ALL SELECT database_name, schema_name, '', 'schema', '' FROM duckdb_schemas() WHERE NOT internal
        UNION ALL SELECT database_name, schema_name, table_name, 'table', '' FROM duckdb_tables()
        UNION ALL SELECT database_name, schema_name, view_name, 'view', sql FROM duckdb_views() WHERE NOT internal
        """).fetchall()
    out = []
    for db, schema, name, kind, sql in sorted(objects):
        content = None
        if kind in ("table", "view"):
            content = con.execute(f"SELECT count(*), sum(hash(t)) FROM {q(db)}.{q(schema)}.{q(name)} AS t").fetchone()
        out.append((db, schema, name, kind, sql, content))
    return out


def audit(con) -> list[tuple]:
    """The audit rows (release, version, view, snapshot, rows in/out, suppressed), or [] without the table."""
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = $s AND table_name = '_audit'",
                       {"s": SNAPSHOTS}).fetchone()[0]:
        return []
    return con.execute(f"SELECT release, version, view_name, snapshot, rows_in, rows_out, suppressed FROM {AUDIT} "
                       "ORDER BY release, version").fetchall()


def load(con, table: str, frame: pd.DataFrame) -> None:
    """Create ``table`` in ``con`` holding ``frame``."""
    con.register("__conformance_frame", frame)
    con.execute(f"CREATE TABLE {q(table)} AS SELECT * FROM __conformance_frame")
    con.unregister("__conformance_frame")


# -- data ---------------------------------------------------------------------------------------
@functools.cache
def _adult(rows: int) -> pd.DataFrame:
    with duckdb.connect() as con:
        frame = con.execute(f"SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)").df()
    sample = frame.iloc[:: len(frame) // rows].head(rows).reset_index(drop=True)
    # per-cell sensitivity for LGB (paper 000): fixed, about a fifth of ages and a seventh of sexes
    sample["age_flag"] = [(i * 7919) % 5 == 0 for i in range(rows)]
    sample["sex_flag"] = [(i * 104729) % 7 == 0 for i in range(rows)]
    return sample


def adult_sample(rows: int = 400) -> pd.DataFrame:
    """Every (30162 // rows)-th row of ARX's Adult, with two BOOLEAN flag columns for LGB."""
    return _adult(rows).copy()


@functools.cache
def _patients(persons: int) -> pd.DataFrame:
    rng = random.Random(2)
    rows = []
    for p in range(persons):
        age, zip_ = rng.randint(20, 60), f"z{rng.randint(0, 5)}"
        for _ in range(rng.randint(1, 3)):
            rows.append((f"p{p:04d}", age, zip_, rng.choice(["flu", "hiv", "cold", "ulcer", "gout", "acne"])))
    return pd.DataFrame(rows, columns=["name", "age", "zip", "disease"])


def patients(persons: int = 100) -> pd.DataFrame:
    """Paper 004's setting in small: persons with one to three records each (about 200), the
    same age and zip on every record of a person, one of six diseases per record."""
    return _patients(persons).copy()


# -- spec factories -------------------------------------------------------------------------------
ADULT_QIS = ("age", "sex", "race", "marital-status", "education")


def generalized_spec(algorithm: dict, suppression_limit: float = 0.0) -> dict:
    """Adult's five QIs with ARX's hierarchies, occupation sensitive: k = 5, distinct 2-diversity
    and 0.6-closeness (equal distance)."""
    columns: dict[str, Any] = {c: {"role": "quasi", "hierarchy": {"csv": str(ARX / f"adult_hierarchy_{c}.csv")}}
                               for c in ADULT_QIS}
    columns["age"]["type"] = "numeric"
    columns.update({"occupation": "sensitive", "salary-class": "insensitive"})
    return {"release": "conf", "source": {"table": "adult"}, "default_role": "identifier", "columns": columns,
            "models": [{"type": "k-anonymity", "k": 5},
                       {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"},
                       {"type": "t-closeness", "t": 0.6, "sensitive": "occupation"}],
            "algorithm": algorithm, "suppression_limit": suppression_limit}


def anatomy_spec(algorithm: dict) -> dict:
    """Adult, three QIs, occupation and education sensitive: multi 3-diversity (paper 002)."""
    return {"release": "conf", "source": {"table": "adult"}, "default_role": "identifier",
            "columns": {"age": "quasi", "sex": "quasi", "race": "quasi", "salary-class": "insensitive",
                        "occupation": "sensitive", "education": "sensitive"},
            "models": [{"type": "multi-l-diversity", "l": 3}], "algorithm": algorithm, "suppression_limit": 0.1}


def lgb_spec(algorithm: dict) -> dict:
    """Adult with per-cell flags on age and sex (paper 000): k = 4, l-unique 3 on the buckets of
    age and occupation, 0.3-closeness on sex's (two values: no 3-unique bucket exists)."""
    return {"release": "conf", "source": {"table": "adult"}, "default_role": "identifier",
            "columns": {"age": {"role": "quasi", "type": "numeric", "flag": "age_flag"},
                        "sex": {"role": "quasi", "flag": "sex_flag"}, "race": "quasi", "education": "quasi",
                        "salary-class": "insensitive", "occupation": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 4}, {"type": "l-unique", "l": 3},
                       {"type": "t-closeness", "t": 0.3, "sensitive": "sex"}],
            "algorithm": algorithm, "suppression_limit": 0.2}


def ir_spec(algorithm: dict, model: dict) -> dict:
    """The patients table (paper 004): ``name`` identifies individuals, age and zip QIs."""
    return {"release": "conf", "source": {"table": "patients"},
            "columns": {"name": "individual", "age": {"role": "quasi", "type": "numeric"}, "zip": "quasi",
                        "disease": "sensitive"},
            "models": [model], "algorithm": algorithm, "suppression_limit": 0.1}


def columns_of(spec: dict, role: str) -> list[str]:
    """The spec's columns with ``role``, in order."""
    return [c for c, e in spec["columns"].items() if (e if isinstance(e, str) else e["role"]) == role]


def model_of(spec: dict, kind: str) -> dict | None:
    return next((m for m in spec["models"] if m["type"] == kind), None)


# -- weird identifiers ------------------------------------------------------------------------------
def weird(name: str) -> str:
    """A name needing every kind of quoting: spaces, double quotes, mixed case, SQL keywords."""
    return f'Select "{name.title()}" From'


def renamed(spec: dict, name: Callable[[str], str]) -> dict:
    """``spec`` over a source whose table and columns are renamed by ``name`` (release and view
    too): every place a spec names a column follows."""
    out = copy.deepcopy(spec)
    out["release"] = name(spec["release"])
    out["source"]["table"] = name(spec["source"]["table"])
    out["columns"] = {}
    for col, entry in spec["columns"].items():
        if isinstance(entry, dict) and "flag" in entry:
            entry = {**entry, "flag": name(entry["flag"])}
        out["columns"][name(col)] = entry
    for model in out["models"]:
        if "sensitive" in model:
            model["sensitive"] = name(model["sensitive"])
    for option in ("levels", "min_level", "priorities"):
        if option in out["algorithm"]:
            out["algorithm"][option] = {name(c): v for c, v in out["algorithm"][option].items()}
    return out


# -- oracles: each re-checks a published release against the spec's models ------------------------
def check_generalized(con, spec: dict, source: pd.DataFrame) -> None:
    """A table of generalized rows: pycanon's k, distinct l and t on the QI labels a reader sees
    (and on eq_class with them, the finer grouping the view also publishes), and t-closeness
    against the input's distribution (the product's reference, which pycanon cannot take) in
    pandas on every class."""
    frame = read(con, view_name(spec))
    qis, sens = columns_of(spec, "quasi"), columns_of(spec, "sensitive")
    dropped = set(source.columns) - set(spec["columns"]) if spec.get("default_role") == "identifier" else set()
    assert not (set(frame.columns) & (set(columns_of(spec, "identifier")) | dropped)), "an identifier was published"
    assert len(frame) > 0
    for seen in (qis, ["eq_class", *qis]):
        for model in spec["models"]:
            kind = model["type"]
            if kind == "k-anonymity":
                assert anonymity.k_anonymity(frame, seen) >= model["k"], (seen, model)
            elif kind == "distinct-l-diversity":
                assert anonymity.l_diversity(frame, seen, [model["sensitive"]]) >= model["l"], (seen, model)
            elif kind == "t-closeness" and model.get("distance", "equal") == "equal":
                s = model["sensitive"]
                reference = source[s].value_counts(normalize=True)
                for _, part in frame.groupby(seen, dropna=False):
                    share = part[s].value_counts(normalize=True).reindex(reference.index, fill_value=0.0)
                    assert set(part[s]) <= set(reference.index)
                    assert 0.5 * (share - reference).abs().sum() <= model["t"] + EPS, (seen, model)
                if len(frame) == len(source):   # nothing suppressed: pycanon's reference is the input's
                    assert anonymity.t_closeness(frame, seen, [s]) <= model["t"] + EPS
            else:
                raise NotImplementedError(f"the generalized oracle does not know {model}")
    assert set(sens) <= set(frame.columns)


def check_anatomy(con, spec: dict, source: pd.DataFrame) -> None:
    """Anatomy (paper 002): the QI table holds no sensitive column; each group's QI rows are as
    many as its sensitive counts; per group and sensitive attribute no value exceeds 1/l of the
    group (Definition 7: pycanon's alpha of the group-by-group sensitive rows), so each group
    shows at least l values (pycanon's distinct l)."""
    qi, sens = read(con, view_name(spec)), read(con, view_name(spec, "sensitive"))
    sensitive = columns_of(spec, "sensitive")
    assert not set(qi.columns) & set(sensitive), "the QI table shows a sensitive column"
    assert qi["row_id"].is_unique and len(qi) > 0
    sizes = qi.groupby("group_id").size().sort_index()
    counted = sens.groupby("group_id")["count"].sum().sort_index()
    assert sizes.index.equals(counted.index) and (sizes.to_numpy() == counted.to_numpy()).all()
    model = spec["models"][0]
    if model["type"] != "multi-l-diversity":
        raise NotImplementedError(f"the anatomy oracle does not know {model}")
    rows = sens.loc[sens.index.repeat(sens["count"])].drop(columns="count").reset_index(drop=True)
    for s in sensitive:
        alpha, _ = anonymity.alpha_k_anonymity(rows, ["group_id"], [s])
        assert alpha <= 1 / model["l"] + EPS, s
        assert anonymity.l_diversity(rows, ["group_id"], [s]) >= model["l"], s
        # and by hand: c(v) * l <= |G| for every value of every group
        per_value = rows.groupby(["group_id", s]).size()
        assert (per_value * model["l"] <= sizes.reindex(per_value.index.get_level_values(0)).to_numpy()).all(), s


def check_lgb(con, spec: dict, source: pd.DataFrame) -> None:
    """The LGB table (paper 000, Fig. 2): local groups of at least k rows (pandas, and pycanon's k
    on the QI side with each bucketized cell masked), one form per group (Definition 9), and
    every local bucket meeting its attribute's principle: l-unique (each value once, at least l
    values: pycanon's distinct l) or t-close (pycanon's t on the attribute's bucketed cells)."""
    frame = read(con, view_name(spec))
    attrs = [c[: -len("_bid")] for c in frame.columns if c.endswith("_bid")]
    k = model_of(spec, "k-anonymity")["k"]
    assert len(frame) > 0 and frame.groupby("gid").size().min() >= k
    masked = pd.DataFrame({a: frame[a].where(frame[f"{a}_bid"].isna(), "<bucket>") for a in attrs})
    assert anonymity.k_anonymity(masked, attrs) >= k
    for _, group in masked.groupby(frame["gid"]):
        assert len(group.drop_duplicates()) == 1, "a local group mixes forms"
    default = model_of(spec, "l-unique")
    checked = 0
    for a in attrs:
        cells = frame.loc[frame[f"{a}_bid"].notna(), [f"{a}_bid", a]].reset_index(drop=True)
        if cells.empty:
            continue
        cells[f"{a}_bid"] = cells[f"{a}_bid"].astype("int64")
        model = next((m for m in spec["models"] if m.get("sensitive") == a), default)
        if model["type"] == "l-unique":
            assert cells.groupby(f"{a}_bid")[a].agg(lambda v: v.is_unique).all(), a
            assert anonymity.l_diversity(cells, [f"{a}_bid"], [a]) >= model["l"], a
        elif model["type"] == "t-closeness":
            assert anonymity.t_closeness(cells, [f"{a}_bid"], [a]) <= model["t"] + EPS, a
        else:
            raise NotImplementedError(f"the LGB oracle does not know {model}")
        checked += 1
    assert checked >= 2, "the release bucketized fewer attributes than its spec protects"


def check_identity_reserved(con, spec: dict, source: pd.DataFrame) -> None:
    """The identity-reserved table (paper 004, Table 4): the individual column is not published,
    every individual (id_num) sits in one class, every class shows one value per QI, and the
    declared model holds per class: EIR l-diversity as a minimum hitting set of the
    individuals' value sets of size >= l, found by brute force (no set of fewer than l values
    meets every individual); IR (k, l)-anonymity as >= k individuals (pycanon's k on one row
    per individual) and >= l values (pycanon's distinct l)."""
    frame = read(con, view_name(spec))
    s, = columns_of(spec, "sensitive")
    individual, = columns_of(spec, "individual")
    assert individual not in frame.columns and len(frame) > 0
    assert (frame.groupby("id_num")["ec_id"].nunique() == 1).all(), "an individual in two classes"
    for qi in columns_of(spec, "quasi"):
        assert (frame.groupby("ec_id")[qi].nunique(dropna=False) == 1).all(), qi
    model = spec["models"][0]
    if model["type"] == "eir-l-diversity":
        for ec, part in frame.groupby("ec_id"):
            sets = [set(v) for v in part.groupby("id_num")[s].agg(set)]
            values = sorted(set().union(*sets))
            small = any(all(set(h) & p for p in sets)
                        for size in range(1, model["l"]) for h in itertools.combinations(values, size))
            assert not small, f"class {ec} has a hitting set of fewer than {model['l']} values"
    elif model["type"] == "ir-kl-anonymity":
        people = frame[["ec_id", "id_num"]].drop_duplicates().reset_index(drop=True)
        assert anonymity.k_anonymity(people, ["ec_id"]) >= model["k"]
        assert anonymity.l_diversity(frame, ["ec_id"], [s]) >= model["l"]
    else:
        raise NotImplementedError(f"the identity-reserved oracle does not know {model}")


# -- the published forms ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Form:
    """What the tests need to know about a family's published form: the table its data goes
    to, the oracle re-checking what it publishes, and ``beyond``: the model parameters a
    failing run pushes past the data (:func:`pushed_beyond`), with the error expected. How a
    candidate of the form is damaged is internal knowledge: :data:`_DAMAGE`, by ``name``."""

    name: str
    table: str
    data: Callable[[], pd.DataFrame]
    oracle: Callable[[Any, dict, pd.DataFrame], None]
    beyond: tuple[tuple[str, type], ...]


GENERALIZED = Form("generalized", "adult", adult_sample, check_generalized, (("k", SpecError), ("l", PrivacyCheckFailed)))
ANATOMY = Form("anatomy", "adult", adult_sample, check_anatomy, (("l", PrivacyCheckFailed),))
LGB = Form("lgb", "adult", adult_sample, check_lgb, (("k", SpecError), ("l", PrivacyCheckFailed)))
IDENTITY_RESERVED = Form("identity-reserved", "patients", patients, check_identity_reserved, (("l", PrivacyCheckFailed),))


def pushed_beyond(spec: dict, source: pd.DataFrame, param: str) -> dict:
    """``spec`` with every model's ``param`` past what the data allows: ``k`` above the rows,
    ``l`` above the distinct values of every sensitive column (and of every flagged one)."""
    out = copy.deepcopy(spec)
    protected = columns_of(spec, "sensitive") + [c for c, e in spec["columns"].items() if isinstance(e, dict) and "flag" in e]
    value = len(source) + 1 if param == "k" else int(source[protected].nunique().max()) + 1
    pushed = [m for m in out["models"] if param in m]
    assert pushed, f"no model of the spec has a parameter {param!r} to push"
    for m in pushed:
        m[param] = [value] * len(m[param]) if isinstance(m[param], list) else value
    return out


# -- the one hook into the engine: everything internal the suite knows is in this block --------------
_FIRST = "(SELECT min(rowid) FROM {table})"


def _one_vector(spec: dict) -> str:
    """Anatomy: every record of one group gets the sensitive vector of one of them."""
    sets = ", ".join(f"{q(s)} = (SELECT {q(s)} FROM {{table}} WHERE rowid = {_FIRST})"
                     for s in columns_of(spec, "sensitive"))
    return f"UPDATE {{table}} SET {sets} WHERE group_id = (SELECT group_id FROM {{table}} WHERE rowid = {_FIRST})"


#: per form: the template of the first statement verifying a candidate, the candidate work
#: table, and the statement (``{table}``: its quoted name) making it violate the spec's models
#: (a row or an individual moved to a class of its own, or a group given one sensitive vector).
_DAMAGE: dict[str, tuple[str, str, Callable[[dict], str]]] = {
    "generalized": ("metrics/row_counts.sql.j2", "candidate", lambda spec:
                    f"UPDATE {{table}} SET eq_class = (SELECT max(eq_class) + 1 FROM {{table}}) WHERE rowid = {_FIRST}"),
    "anatomy": ("families/anatomy/judge.sql.j2", "candidate_sensitive", _one_vector),
    "lgb": ("families/lgb/judge.sql.j2", "candidate", lambda spec:
            "UPDATE {table} SET __gid = (SELECT max(__gid) + 1 FROM {table}), gid = (SELECT max(gid) + 1 FROM {table}) "
            f"WHERE rowid = {_FIRST}"),
    "identity-reserved": ("families/identity_reserved/judge.sql.j2", "ir_candidate", lambda spec:
                          "UPDATE {table} SET ec_id = (SELECT max(ec_id) + 1 FROM {table}) "
                          "WHERE id_num = (SELECT min(id_num) FROM {table})"),
}


def damage_before_verification(monkeypatch, form: Form, spec: dict) -> list[str]:
    """Make the candidate of a run of ``spec`` violate its models after the algorithm ran and
    just before the first statement verifying it executes; returns the list that receives
    the damaging statement when it runs (empty: the seam never fired).

    The only place the suite reaches into the product, so that it is re-pointed here when the
    engine moves: it wraps the engine's ``execute`` (through which every statement of a run
    goes, named by its template) and names the work table with the engine's ``work`` (the
    quoted name of a table in the run's private work database). The templates, work tables
    and their columns in :data:`_DAMAGE` are the seam's other internal names; they stay when
    modules move. ``monkeypatch`` undoes the wrapping at the end of the test.
    """
    from anonymizer.engine import Engine   # internal: re-point here when the engine moves

    template, table, damage = _DAMAGE[form.name]
    original, ran = Engine.execute, []

    def execute(self, text, *args, **kwargs):
        if not ran and kwargs.get("template") == template:
            ran.append(damage(spec).format(table=self.work(table)))
            self.con.execute(ran[-1])
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(Engine, "execute", execute)
    return ran


def anonymizer_cli():
    """The ``anonymizer`` console script as installed (its click command), wherever it lives."""
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "anonymizer"]
    return script.load()


# -- the suite ----------------------------------------------------------------------------------------
class BaseFamilyTests:
    """The conformance tests; subclass as ``Test<Family>`` with ``form`` and ``spec`` set."""

    form: Form
    spec: Callable[[], dict]

    @pytest.fixture
    def db(self, con):
        """The test's connection with the form's table loaded."""
        load(con, self.form.table, self.form.data())
        return con

    def make_spec(self) -> dict:
        return copy.deepcopy(type(self).spec())

    def test_verified_publish(self, db):
        spec = self.make_spec()
        r = anonymize(spec, db)
        assert (r.version, r.unchanged, r.dry_run) == (1, False, False)
        assert r.models and all(m["holds"] for m in r.models)
        views = {v for (v,) in db.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = $s",
                                          {"s": PUBLISHED}).fetchall()}
        assert spec["release"] in views
        shown = db.execute(f"SELECT count(*) FROM {view_name(spec)}").fetchone()[0]
        rows = len(self.form.data())
        assert audit(db) == [(spec["release"], 1, f"{PUBLISHED}.{spec['release']}",
                              f"{SNAPSHOTS}.{spec['release']}__v1", rows, shown, rows - shown)]
        assert (r.rows_in, r.rows_out, r.suppressed) == (rows, shown, rows - shown)
        assert r.suppressed <= spec.get("suppression_limit", 0.0) * rows
        self.form.oracle(db, spec, self.form.data())
        for param, _ in self.form.beyond:   # the oracle can fail: it refuses these rows for a stricter spec
            with pytest.raises(AssertionError):
                self.form.oracle(db, pushed_beyond(spec, self.form.data(), param), self.form.data())

    def test_dry_run_publishes_nothing(self, db):
        spec = self.make_spec()
        before = catalog(db)
        said: list[str] = []
        dry = anonymize(spec, db, publish=False, progress=said.append)
        assert catalog(db) == before, "a dry run changed the database"
        assert not db.execute("SELECT count(*) FROM duckdb_schemas() WHERE schema_name IN ($a, $b)",
                              {"a": PUBLISHED, "b": SNAPSHOTS}).fetchone()[0]
        assert dry.dry_run and dry.version is None and dry.snapshot is None and not dry.unchanged
        assert dry.models and all(m["holds"] for m in dry.models)
        assert dry.rows_in == len(self.form.data()) and dry.rows_out > 0 and dry.classes > 0
        assert dry.utility, "a dry run returns the release's figures"
        assert said[-1].endswith("nothing published")

    def test_rerun_is_idempotent_and_force_publishes(self, db):
        spec = self.make_spec()
        first = anonymize(spec, db)
        state = catalog(db)
        said: list[str] = []
        again = anonymize(spec, db, progress=said.append)
        assert again.unchanged and again.version == first.version == 1
        assert any("unchanged" in m for m in said)
        assert catalog(db) == state, "an unchanged rerun wrote to the database"
        # forced: other random draws, so other groups of the same people (anatomy): read with
        # v1 they disclose, which only history: independent publishes (issue 36)
        forced = anonymize(dict(spec, history="independent"), db, force=True)
        assert not forced.unchanged and forced.version == 2
        assert [row[1] for row in audit(db)] == [1, 2]
        view_sql = db.execute("SELECT sql FROM duckdb_views() WHERE schema_name = $s AND view_name = $v",
                              {"s": PUBLISHED, "v": spec["release"]}).fetchone()[0]
        assert f"{spec['release']}__v2" in view_sql and f"{spec['release']}__v1" not in view_sql
        assert db.execute(f"SELECT count(*) FROM {view_name(spec)}").fetchone()[0] == forced.rows_out
        self.form.oracle(db, spec, self.form.data())

    def test_failure_leaves_the_published_release(self, db):
        spec = self.make_spec()
        anonymize(spec, db)
        state = catalog(db)
        data = self.form.data()
        for param, error in self.form.beyond:
            with pytest.raises(AnonymizerError) as err:
                anonymize(pushed_beyond(spec, data, param), db)
            assert type(err.value) is error, f"{param}: {err.value!r}"
            if error is PrivacyCheckFailed:
                assert "nothing was published" in str(err.value)
            else:
                assert err.value.field == "models" and "larger than the table" in str(err.value)
            assert catalog(db) == state, f"a failing release ({param} out of reach) changed the database"
        with pytest.raises(DataError) as err:   # a source that is gone
            anonymize({**spec, "source": {"table": "no such table"}}, db)
        assert "no such table" in str(err.value) and catalog(db) == state

    def test_gate_refuses_a_damaged_candidate(self, db, monkeypatch):
        spec = self.make_spec()
        before = catalog(db)
        ran = damage_before_verification(monkeypatch, self.form, spec)
        with pytest.raises(PrivacyCheckFailed) as err:
            anonymize(spec, db)
            assert ran, "the seam never fired: no statement verified a candidate (re-point _DAMAGE)"
        assert ran
        assert "nothing was published" in str(err.value) and err.value.classes >= 1
        # a declared model fails, not the suppression limit or the form of the table
        assert not any(word in err.value.model for word in ("suppression", "form")), err.value.model
        assert catalog(db) == before and audit(db) == []

    def test_a_refused_first_release_leaves_no_trace(self, db):
        """Nothing is created in a database a release never published to (reading the audit
        table used to create it, schema and all)."""
        before = catalog(db)
        with pytest.raises(PrivacyCheckFailed):
            anonymize(pushed_beyond(self.make_spec(), self.form.data(), "l"), db)
        assert catalog(db) == before

    def test_weird_identifiers(self, tmp_path):
        spec = renamed(self.make_spec(), weird)
        data = self.form.data()
        data.columns = [weird(c) for c in data.columns]
        path, database = tmp_path / "spec.yml", tmp_path / "weird.duckdb"
        path.write_text(yaml.safe_dump(spec, sort_keys=False))
        with duckdb.connect(str(database)) as con:
            load(con, spec["source"]["table"], data)
        res = CliRunner().invoke(anonymizer_cli(), ["run", str(path), "--db", str(database), "--json", "--quiet"])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        assert out["version"] == 1 and out["view"] == f"{PUBLISHED}.{spec['release']}"
        with duckdb.connect(str(database), read_only=True) as con:
            (release, version, *_), = audit(con)
            assert (release, version) == (spec["release"], 1)
            self.form.oracle(con, spec, data)
