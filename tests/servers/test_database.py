import sqlite3

import pytest

from agentworld.servers.database import Template, database_hash

SCHEMA = "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL CHECK (v <> ''));"


def test_clones_are_independent_copies_of_the_template():
    template = Template(SCHEMA, lambda c: c.execute("INSERT INTO t (v) VALUES ('a')"))
    one, two = template.clone(), template.clone()
    one.execute("INSERT INTO t (v) VALUES ('b')")
    assert database_hash(two) == template.hash != database_hash(one)
    assert template.clone().execute("SELECT count(*) FROM t").fetchone()[0] == 1


def test_clones_enforce_foreign_keys_and_checks():
    template = Template(SCHEMA + "CREATE TABLE u (t_id INTEGER NOT NULL REFERENCES t(id));",
                        lambda c: None)
    conn = template.clone()
    with pytest.raises(Exception, match="FOREIGN KEY"):
        conn.execute("INSERT INTO u VALUES (99)")
    with pytest.raises(Exception, match="CHECK"):
        conn.execute("INSERT INTO t (v) VALUES ('')")


def test_seed_that_breaks_foreign_keys_is_refused():
    schema = SCHEMA + (
        "CREATE TABLE u (t_id INTEGER REFERENCES t(id) DEFERRABLE INITIALLY DEFERRED);")
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        Template(schema, lambda c: c.execute("INSERT INTO u VALUES (42)"))
