"""What a tool sees while it runs: its session's database, a clock and an id generator.

Both the clock and the ids are derived from the session seed and the number of calls made so far,
never from the wall clock or ``uuid4``, so replaying the same calls with the same seed gives the
same outputs and the same database hash.
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from .errors import not_found

__all__ = ["DeterministicClock", "IdGenerator", "ToolContext"]


@dataclass
class DeterministicClock:
    """A clock that starts at the environment's epoch and moves one ``tick`` per tool call.

    Within one call ``now()`` is stable, so a tool that stamps two rows gives both the same time.
    """

    start: datetime
    tick: timedelta = timedelta(seconds=30)
    calls: int = 0

    def now(self) -> datetime:
        return self.start + self.tick * self.calls

    def iso(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    def today(self) -> str:
        return self.now().strftime("%Y-%m-%d")

    def advance(self) -> None:
        self.calls += 1


@dataclass
class IdGenerator:
    """Short, stable, unguessable-looking ids: ``prefix_`` plus 10 hex digits of a keyed hash."""

    seed: int
    counter: int = 0

    def new(self, prefix: str) -> str:
        self.counter += 1
        digest = hashlib.blake2b(f"{self.seed}:{self.counter}".encode(), digest_size=5).hexdigest()
        return f"{prefix}_{digest}"


@dataclass
class ToolContext:
    """Passed to every tool implementation as its first argument."""

    db: sqlite3.Connection
    clock: DeterministicClock
    ids: IdGenerator
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    # Per-session state of the environment's session hooks (e.g. the folder where an
    # out-of-process backend keeps this session's data); empty for in-process environments.
    extra: dict[str, Any] = field(default_factory=dict)

    # Thin query helpers: every one binds parameters, none formats values into SQL.
    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        row = self.db.execute(sql, params).fetchone()
        return dict(row) if row is not None else None

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return [dict(row) for row in self.db.execute(sql, params).fetchall()]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.db.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def require(self, table: str, key: Any, *, kind: str | None = None,
                column: str = "id") -> dict[str, Any]:
        """The row of ``table`` whose ``column`` equals ``key``, else a NOT_FOUND tool error.

        ``table`` and ``column`` come from the environment's code, never from the agent.
        """
        row = self.one(f"SELECT * FROM {table} WHERE {column} = ?", (key,))
        if row is None:
            raise not_found(kind or table.rstrip("s"), key)
        return row

    def insert(self, table: str, values: dict[str, Any]) -> None:
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        self.db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", tuple(values.values()))

    def update(self, table: str, key: Any, values: dict[str, Any], *, column: str = "id") -> None:
        sets = ", ".join(f"{name} = ?" for name in values)
        self.db.execute(f"UPDATE {table} SET {sets} WHERE {column} = ?", (*values.values(), key))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)


def parse_epoch(value: str) -> datetime:
    """An environment epoch such as ``2026-03-02T09:00:00Z`` as an aware datetime."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
