"""Tables and seeded rows for a mined entity model.

Values are drawn per column kind from one seeded RNG: people from the generated people pool,
cities, countries, currencies and companies from the real-data pools, labels and notes from a
domain pack's vocabulary where one matched (``packs.py``) and from a plain business vocabulary
otherwise. Every row of one entity that refers to people refers to different people in
different roles; timestamps are never after the environment's clock.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from typing import Any

from agentworld.servers.envs._people import people
from agentworld.servers.world.data import Region, pool
from agentworld.servers.world.entity_schema import EPOCH

from .columns import Column
from .model import MinedEntity
from .ops import Table, q

__all__ = ["table_ddl", "seed_tables", "KEY_POOL_SIZE"]

KEY_POOL_SIZE = 40
_THEMES = ("Atlas", "Beacon", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris",
           "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz",
           "Redwood", "Summit", "Tundra", "Vertex", "Willow", "Zenith", "Aurora", "Bramble",
           "Cobalt", "Drift", "Evergreen", "Falcon", "Horizon", "Indigo", "Lagoon", "Maple",
           "Northstar", "Onyx", "Prairie", "Sierra", "Tidal", "Umber", "Vista")
_QUALIFIERS = ("quarterly", "annual", "onboarding", "regional", "pilot", "customer", "internal",
               "partner", "spring", "migration", "compliance", "launch", "renewal", "support",
               "platform", "retail", "field", "finance", "product", "growth")
_NOTES = ("Follow up with the owner before Friday.", "Waiting on sign-off from finance.",
          "Moved up after the last review.", "Needs a second pair of eyes.",
          "Blocked on the vendor's reply.", "Agreed in the weekly sync.",
          "Priority raised by the account team.", "Low risk; can wait until next cycle.",
          "Scope trimmed to fit the deadline.", "Details confirmed on the call.")
_LONG_TEXT = frozenset("description body content message text comment notes note summary "
                       "details reason bio about instructions feedback answer question "
                       "response".split())
_TICKER_SYLLABLES = ("AR", "BO", "CE", "DA", "EX", "FI", "GO", "HE", "IN", "JU", "KA", "LO",
                     "MI", "NO", "OR", "PA", "QU", "RI", "SO", "TE", "UL", "VI", "WA", "ZE")


def _sql_type(col: Column) -> str:
    if col.kind in ("int", "bool"):
        return "INTEGER"
    if col.kind == "float":
        return "REAL"
    if col.kind in ("ref", "key") and col.json_type == "integer":
        return "INTEGER"
    return "TEXT"


def table_ddl(table: Table, tables: dict[str, Table]) -> str:
    e = table.entity
    columns = ["id INTEGER PRIMARY KEY" if e.integer_ids else "id TEXT PRIMARY KEY"]
    for name, col in e.columns.items():
        sql = f"{q(name)} {_sql_type(col)}"
        if col.unique:
            sql += " UNIQUE"
        if col.kind == "ref":
            sql += f" REFERENCES {tables[col.ref].name}(id)"
        elif col.kind == "enum":
            sql += f" CHECK ({q(name)} IS NULL OR {q(name)} IN (" + ", ".join(
                "'" + v.replace("'", "''") + "'" for v in col.values) + "))"
        elif col.kind == "bool":
            sql += f" CHECK ({q(name)} IS NULL OR {q(name)} IN (0, 1))"
        elif _sql_type(col) == "TEXT":
            sql += f" CHECK ({q(name)} IS NULL OR length({q(name)}) <= 20000)"
        columns.append(sql)
    if e.states:
        columns.append("status TEXT NOT NULL CHECK (status IN (" + ", ".join(
            "'" + v.replace("'", "''") + "'" for v in e.states) + "))")
    columns += ["created_at TEXT NOT NULL", "updated_at TEXT NOT NULL"]
    ddl = f"CREATE TABLE {table.name} (\n    " + ",\n    ".join(columns) + "\n);"
    indexes = [f"CREATE INDEX ix_{e.plural}_{i} ON {table.name}({q(n)});"
               for i, (n, c) in enumerate(e.columns.items()) if c.kind == "ref"]
    return "\n".join([ddl, *indexes])


class _Values:
    def __init__(self, region: Region, rng: random.Random, seed: int) -> None:
        self.region, self.rng = region, rng
        self.people = people(300, seed=seed, domain=region.email_domain)
        self.keys: dict[str, list[Any]] = {}
        self.key_names: set[str] = set()

    def key_pool(self, col: Column) -> list[Any]:
        """Values shared by every entity keyed by the same parameter (get_price(symbol) and
        get_order_book(symbol) find the same symbols)."""
        if col.name not in self.keys:
            rng = random.Random(col.name)
            if col.json_type == "integer":
                values: list[Any] = rng.sample(range(1000, 99999), KEY_POOL_SIZE)
            elif "symbol" in col.name.lower() or "ticker" in col.name.lower():
                values = sorted({rng.choice(_TICKER_SYLLABLES) + rng.choice(_TICKER_SYLLABLES)
                                 for _ in range(KEY_POOL_SIZE * 2)})[:KEY_POOL_SIZE]
            elif "mail" in col.name.lower():
                values = [p.email for p in self.people[:KEY_POOL_SIZE]]
            elif "user" in col.name.lower():
                values = [p.email.split("@")[0] for p in self.people[:KEY_POOL_SIZE]]
            else:
                values = [f"{t.lower()}-{q}" for t, q in zip(_THEMES, _QUALIFIERS * 2)]
            self.keys[col.name] = values
        return self.keys[col.name]

    def label(self, e: MinedEntity, col: Column, i: int) -> str:
        if col.vocab:
            base = col.vocab[i % len(col.vocab)]
            return base if i < len(col.vocab) else f"{base} ({_THEMES[i // len(col.vocab) % 40]})"
        noun = e.name.replace("_", " ")
        return f"{_THEMES[i % len(_THEMES)]} {_QUALIFIERS[(i * 7) % len(_QUALIFIERS)]} {noun}"

    def value(self, e: MinedEntity, col: Column, i: int, role: int, ids) -> Any:
        rng = self.rng
        kind = col.kind
        if kind == "ref":
            # The last fifth of each table is referred to by nothing, so some rows can go.
            pool_ = ids.get(col.ref) or [None]
            return rng.choice(pool_[: max(1, len(pool_) * 4 // 5)])
        if kind == "key":
            keys = self.key_pool(col)
            return keys[i % len(keys)]
        if col.name in self.key_names and kind == "text":
            return rng.choice(self.key_pool(col))     # list_orders(symbol) finds real symbols
        if kind == "name":
            return self.people[(i * 3 + role * 101) % len(self.people)].name
        if kind == "email":
            return self.people[(i * 3 + role * 101) % len(self.people)].email
        if kind == "url":
            return f"https://{e.plural.replace('_', '-')}.example.com/{i + 1}"
        if kind == "phone":
            return f"+1 555 01{i % 100:02d}"
        if kind in ("int", "float") and col.values:
            return rng.choice(col.values)
        if kind == "int":
            return rng.randint(int(col.minimum or 0), int(col.maximum or 100))
        if kind == "float":
            return round(rng.uniform(col.minimum or 0.0, col.maximum or 100.0), 2)
        if kind == "bool":
            return int(rng.random() < 0.4)
        if kind == "date":
            return (EPOCH + dt.timedelta(days=rng.randint(-120, 60))).isoformat()
        if kind == "datetime":
            day = EPOCH - dt.timedelta(days=rng.randint(0, 120), minutes=rng.randint(0, 1439))
            return day.isoformat() + "T" + f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:00Z"
        if kind == "enum":
            return rng.choice(col.values)
        if kind == "json":
            words = list(col.vocab or _QUALIFIERS)
            if col.json_type == "object":
                return json.dumps({"source": rng.choice(words)}, sort_keys=True)
            return json.dumps(sorted(rng.sample(words, rng.randint(1, 3))))
        if kind in ("city", "country", "currency", "company"):
            return rng.choice(pool(kind, self.region.code))
        if col.vocab:
            return rng.choice(col.vocab)
        if col.name.lower().split("_")[-1] in _LONG_TEXT:
            return rng.choice(_NOTES)
        return self.label(e, col, i)


def _timestamps(rng: random.Random) -> tuple[str, str]:
    created = EPOCH - dt.timedelta(days=rng.randint(3, 400))
    updated = min(created + dt.timedelta(days=rng.randint(0, 20)), EPOCH - dt.timedelta(days=1))
    updated = max(updated, created)
    minute = rng.randint(0, 599)
    clock = f"T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"
    return created.isoformat() + clock, updated.isoformat() + clock


def seed_tables(conn: sqlite3.Connection, order: list[Table], region: Region, seed: int) -> None:
    rng = random.Random(seed)
    values = _Values(region, rng, seed)
    values.key_names = {n for t in order for n, c in t.entity.columns.items() if c.kind == "key"}
    ids: dict[str, list[Any]] = {}
    for table in order:
        e = table.entity
        keyed = [c for c in e.columns.values() if c.kind == "key"]
        count = min(e.count, *(len(values.key_pool(c)) for c in keyed)) if keyed else e.count
        rows = []
        for i in range(count):
            row: dict[str, Any] = {"id": i + 1 if e.integer_ids else f"{table.prefix}_{i + 1:06d}"}
            for role, (name, col) in enumerate(e.columns.items()):
                row[name] = (values.label(e, col, i) if name == e.label and col.kind == "text"
                             else values.value(e, col, i, role, ids))
            if e.states:
                row["status"] = e.states[i] if i < len(e.states) else rng.choice(
                    [e.initial] * 3 + e.states)
            row["created_at"], row["updated_at"] = _timestamps(rng)
            rows.append(row)
        if rows:
            cols = list(rows[0])
            conn.executemany(
                f"INSERT INTO {table.name} ({', '.join(q(c) for c in cols)}) VALUES "
                f"({', '.join('?' for _ in cols)})", [tuple(r[c] for c in cols) for r in rows])
        ids[e.name] = [r["id"] for r in rows]
