"""Template databases and the per-session copies cloned from them.

A template is built once per process from the environment's schema and seed function, kept as an
in-memory SQLite database, and serialized to bytes. Every session gets its own private copy by
``Connection.deserialize`` of those bytes: about 50-70 us for templates under 500 KB (FACTS.md),
with no file and no subprocess. A session can never reach the template or another session,
because each copy is a separate in-memory database and ATTACH is refused.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable

__all__ = ["Template", "open_session_db", "database_hash"]

# Statements that could reach outside the session's own database.
_DENIED_ACTIONS = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH}


def _authorizer(action: int, *_: object) -> int:
    return sqlite3.SQLITE_DENY if action in _DENIED_ACTIONS else sqlite3.SQLITE_OK


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.set_authorizer(_authorizer)
    return conn


def open_session_db(image: bytes) -> sqlite3.Connection:
    """A private, writable in-memory copy of a serialized template.

    Autocommit mode (``isolation_level=None``): the runtime brackets each tool call in its own
    SAVEPOINT, so a failed call rolls back exactly its own writes.
    """
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.deserialize(image)
    return _configure(conn)


class Template:
    """An environment's initial database, built once and cloned per session."""

    def __init__(self, schema_sql: str, seed: Callable[[sqlite3.Connection], None]) -> None:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(schema_sql)
        conn.execute("BEGIN")
        seed(conn)
        conn.execute("COMMIT")
        violations = conn.execute("PRAGMA foreign_key_check").fetchall()
        if violations:
            raise ValueError(f"seed data breaks foreign keys: {[tuple(v) for v in violations[:5]]}")
        self._adopt(conn)

    def _adopt(self, conn: sqlite3.Connection) -> None:
        self.image: bytes = conn.serialize()
        self.hash: str = database_hash(conn)
        self.size_bytes = len(self.image)
        conn.close()

    @classmethod
    def from_image(cls, image: bytes) -> Template:
        """A template from a serialized database (a cached build)."""
        template = cls.__new__(cls)
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.deserialize(image)
        template._adopt(conn)
        return template

    def clone(self) -> sqlite3.Connection:
        return open_session_db(self.image)


def database_hash(conn: sqlite3.Connection) -> str:
    """A digest of every user table's name and rows, in rowid order.

    Two databases with the same hash hold the same data; used to prove that a failed call changed
    nothing, that sessions start at the template state, and that replays are identical.
    """
    digest = hashlib.blake2b(digest_size=16)
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    for table in tables:
        digest.update(f"\x00table:{table}\x00".encode())
        for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid'):
            digest.update(repr(tuple(row)).encode())
            digest.update(b"\n")
    return digest.hexdigest()
