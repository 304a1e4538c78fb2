"""An entity's three shapes: its SQL table, the JSON Schemas of its rows and arguments, and the
believable values its seeded rows take."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from agentworld.servers import schema as s
from agentworld.servers.envs._people import people

from .data import Region, pool
from .spec import Entity, Field

__all__ = ["table_sql", "field_schema", "row_schema", "row_out", "SeedValues", "id_prefix",
           "make_code", "EPOCH"]

EPOCH = dt.date(2026, 3, 2)
_DATE_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"


def id_prefix(entity: Entity) -> str:
    return entity.name[:3]


def _quote(values: tuple[str, ...]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _column(entity: Entity, f: Field, tables: dict[str, str]) -> str:
    null = " NOT NULL" if f.required else ""
    unique = " UNIQUE" if f.unique or f.kind == "code" else ""
    n = f.name
    if f.kind in ("int", "money"):
        low = 0 if f.kind == "money" and f.min is None else f.min
        check = " AND ".join(part for part in (
            f"{n} >= {int(low)}" if low is not None else "",
            f"{n} <= {int(f.max)}" if f.max is not None else "") if part)
        return f"{n} INTEGER{null}{unique}" + (f" CHECK ({check})" if check else "")
    if f.kind == "float":
        return f"{n} REAL{null}{unique}"
    if f.kind == "bool":
        return f"{n} INTEGER{null} CHECK ({n} IN (0, 1))"
    if f.kind == "date":
        return f"{n} TEXT{null} CHECK ({n} GLOB '{_DATE_GLOB}')"
    if f.kind == "enum":
        return f"{n} TEXT{null} CHECK ({n} IN ({_quote(f.values)}))"
    if f.kind == "ref":
        return f"{n} TEXT{null} REFERENCES {tables[f.ref]}(id)"
    return f"{n} TEXT{null}{unique} CHECK (length({n}) <= 500)"


def table_sql(entity: Entity, tables: dict[str, str]) -> str:
    columns = ["id TEXT PRIMARY KEY"] + [_column(entity, f, tables) for f in entity.fields]
    if entity.lifecycle:
        states = _quote(entity.lifecycle.states)
        columns.append(f"status TEXT NOT NULL CHECK (status IN ({states}))")
    columns += ["created_at TEXT NOT NULL", "updated_at TEXT NOT NULL"]
    ddl = f"CREATE TABLE {entity.plural} (\n    " + ",\n    ".join(columns) + "\n);"
    indexes = [f"CREATE INDEX ix_{entity.plural}_{f.name} ON {entity.plural}({f.name});"
               for f in entity.fields if f.kind == "ref" or f.filterable]
    if entity.lifecycle:
        indexes.append(f"CREATE INDEX ix_{entity.plural}_status ON {entity.plural}(status);")
    return "\n".join([ddl, *indexes])


def field_schema(f: Field) -> dict[str, Any]:
    desc = f.description or f.name.replace("_", " ")
    if f.kind == "int":
        return s.integer(desc, minimum=None if f.min is None else int(f.min),
                         maximum=None if f.max is None else int(f.max))
    if f.kind == "money":
        return s.integer(f"{desc} (in cents)", minimum=int(f.min or 0),
                         maximum=None if f.max is None else int(f.max))
    if f.kind == "float":
        return s.number(desc, minimum=f.min, maximum=f.max)
    if f.kind == "bool":
        return s.boolean(desc)
    if f.kind == "date":
        return s.date(desc)
    if f.kind == "enum":
        return s.enum(f.values, desc)
    if f.kind == "ref":
        return s.identifier(desc)
    if f.kind == "email":
        return s.string(desc, max_length=200, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    return s.string(desc, max_length=500 if f.kind == "text" else 200, min_length=1)


def row_schema(entity: Entity) -> dict[str, Any]:
    props: dict[str, Any] = {"id": s.string(f"The {entity.name} id.")}
    for f in entity.fields:
        props[f.name] = field_schema(f) if f.required else s.nullable(field_schema(f))
    if entity.lifecycle:
        props["status"] = s.enum(entity.lifecycle.states, f"Lifecycle state of the {entity.name}.")
    props["created_at"] = s.string()
    props["updated_at"] = s.string()
    return s.obj(props, description=entity.description or None)


def row_out(entity: Entity, row: dict[str, Any]) -> dict[str, Any]:
    """A database row as the tools return it (booleans as booleans)."""
    out = dict(row)
    for f in entity.fields:
        if f.kind == "bool" and out.get(f.name) is not None:
            out[f.name] = bool(out[f.name])
    return out


_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def make_code(f: Field, bits: int) -> str:
    """A reference code such as ``RSV-4F7K2Q``: the field's prefix and six unambiguous symbols."""
    chars = []
    for _ in range(6):
        bits, digit = divmod(bits, len(_CODE_ALPHABET))
        chars.append(_CODE_ALPHABET[digit])
    prefix = f.vocab[0] if f.vocab else f.name[:3].upper()
    return f"{prefix}-{''.join(chars)}"


class SeedValues:
    """Draws believable values for an environment's seeded rows, from one seeded RNG."""

    def __init__(self, region: Region, rng: random.Random, seed: int) -> None:
        self.region, self.rng = region, rng
        self.people = people(400, seed=seed, domain=region.email_domain)
        self._used: dict[tuple[str, str], set[Any]] = {}

    def date(self, f: Field) -> str:
        low = int(f.min if f.min is not None else -180)
        high = int(f.max if f.max is not None else 60)
        return (EPOCH + dt.timedelta(days=self.rng.randint(low, high))).isoformat()

    def value(self, entity: Entity, f: Field, person_index: int) -> Any:
        rng = self.rng
        if f.kind == "name":
            value: Any = self.people[person_index % len(self.people)].name
        elif f.kind == "email":
            value = self.people[person_index % len(self.people)].email
        elif f.kind == "int":
            value = rng.randint(int(f.min if f.min is not None else 0), int(f.max or 100))
        elif f.kind == "money":
            low, high = int(f.min or 100), int(f.max or 100_000)
            # Whole currency units, as prices usually are.
            value = (rng.randint(low // 100, high // 100) * 100 if high >= 100
                     else rng.randint(low, high))
            value = max(low, min(high, value))
        elif f.kind == "float":
            low = f.min if f.min is not None else 0.0
            high = f.max if f.max is not None else 100.0
            value = min(high, max(low, round(rng.uniform(low, high), 2)))
        elif f.kind == "bool":
            value = int(rng.random() < 0.5)
        elif f.kind == "date":
            value = self.date(f)
        elif f.kind == "enum":
            value = rng.choice(f.values)
        elif f.kind == "pool":
            value = rng.choice(pool(f.source, self.region.code))
        elif f.kind == "code":
            value = make_code(f, rng.getrandbits(40))
        else:
            value = rng.choice(f.vocab) if f.vocab else f"{entity.name.title()} {person_index}"
        if f.unique:
            value = self._make_unique(entity, f, value)
        return value

    def _make_unique(self, entity: Entity, f: Field, value: Any) -> Any:
        used = self._used.setdefault((entity.name, f.name), set())
        candidate, n = value, 2
        while candidate in used:
            if isinstance(value, str):
                if f.kind == "email":
                    local, _, domain = value.partition("@")
                    candidate = f"{local}{n}@{domain}"
                else:
                    candidate = f"{value} {n}"
            else:
                candidate = value + n
            n += 1
        used.add(candidate)
        return candidate
