"""An entity's three shapes: its SQL table, the JSON Schemas of its rows and arguments, and the
believable values its seeded rows take."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from agentworld.servers import schema as s
from agentworld.servers.envs._people import people

from . import codes
from .data import POOLS, Region, pool_records
from .describe import describe_field
from .spec import Entity, Field

__all__ = ["table_sql", "field_schema", "row_schema", "row_out", "SeedValues", "id_prefix",
           "make_code", "EPOCH"]

EPOCH = dt.date(2026, 3, 2)
_DATE_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"


def id_prefix(entity: Entity) -> str:
    """The three-letter prefix of an entity's ids: declared, or read from its name (``package``
    -> ``pac``, ``package_version`` -> ``pav``, ``test_case_run`` -> ``tcr``), so two tables
    of one environment rarely share one (the archetype tests check they never do). Always
    three letters: task text recognises ids by that shape."""
    if entity.id_prefix:
        return entity.id_prefix
    words = entity.name.split("_")
    if len(words) == 1:
        return words[0][:3]
    if len(words) == 2:
        return words[0][:2] + words[1][:1]
    return "".join(w[:1] for w in words[:3])


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


def field_schema(f: Field, *, noun: str = "", currency: str = "") -> dict[str, Any]:
    """The JSON Schema of a field as an argument; ``noun`` (the entity) and ``currency`` (the
    environment's) make its description say what the value means, its format and an example."""
    desc = describe_field(f, noun=noun, currency=currency)
    if f.kind == "int":
        return s.integer(desc, minimum=None if f.min is None else int(f.min),
                         maximum=None if f.max is None else int(f.max))
    if f.kind == "money":
        return s.integer(desc, minimum=int(f.min or 0),
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
    if f.kind == "email" or f.format == "email":
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


def make_code(f: Field, bits: int, country: str = "") -> str:
    """A reference code: in the field's standard format when it declares one (an IBAN of
    ``country``, an EAN-13 with its check digit), else the field's prefix and six unambiguous
    symbols, such as ``RSV-4F7K2Q``."""
    if f.format in codes.ISSUED:
        return codes.issue(f.format, random.Random(bits), country)
    chars = []
    for _ in range(6):
        bits, digit = divmod(bits, len(_CODE_ALPHABET))
        chars.append(_CODE_ALPHABET[digit])
    prefix = f.vocab[0] if f.vocab else f.name[:3].upper()
    return f"{prefix}-{''.join(chars)}"


def _live_currencies() -> set[str]:
    from .features._base import ecb_rates  # currencies still fixed, not the euro's forerunners
    return set(ecb_rates())


# Fields named like this hold a person's handle, made from the row's person.
_HANDLES = ("username", "handle", "login", "screen_name", "nickname")


class SeedValues:
    """Draws believable values for an environment's seeded rows, from one seeded RNG.

    People: every entity takes its own block of distinct people, so row k of two people tables
    is never the same person; a row's first name and email belong to one person (the row's
    own), and further name fields (an ordering clinician, a collector) draw on a small staff
    block of their own, as the same few colleagues recur in real records.
    """

    def __init__(self, region: Region, rng: random.Random, seed: int) -> None:
        self.region, self.rng = region, rng
        everyone = people(3000, seed=seed, domain=region.email_domain)
        self.people = list({p.name: p for p in reversed(everyone)}.values())[::-1]
        self._used: dict[tuple[str, str], set[Any]] = {}
        self._blocks: dict[tuple[str, str], tuple[int, int]] = {}
        self._next_person = 0
        self._records: dict[str, dict[str, str]] = {}
        self._taken: dict[tuple[str, str], set[int]] = {}

    def start_row(self) -> None:
        """Forget the pool records of the previous row (see ``pool`` fields)."""
        self._records = {}

    def date(self, f: Field) -> str:
        low = int(f.min if f.min is not None else -180)
        high = int(f.max if f.max is not None else 60)
        return (EPOCH + dt.timedelta(days=self.rng.randint(low, high))).isoformat()

    def _block(self, key: tuple[str, str], size: int) -> tuple[int, int]:
        if key not in self._blocks:
            start = self._next_person
            self._next_person += size
            self._blocks[key] = (start, size)
        return self._blocks[key]

    def person(self, entity: Entity, f: Field | None, i: int):
        """The person a name or email field of row ``i`` names (see the class docstring);
        ``f=None`` asks for the row's own person."""
        persons = [g for g in entity.fields if g.kind in ("name", "email")]
        own = {next((g.name for g in persons if g.kind == "name"), ""),
               next((g.name for g in persons if g.kind == "email"), "")}
        if f is None or f.name in own:
            start, size = self._block((entity.name, ""), entity.count)
            index = start + i % size
        else:
            start, size = self._block((entity.name, f.name), max(6, entity.count // 8))
            index = start + self.rng.randrange(size)
        return self.people[index % len(self.people)]

    def _pool(self, entity: Entity, f: Field) -> str | None:
        table, column = POOLS[f.source]
        if f.source == "currency":
            # Accounts and prices are mostly in the local currency, else in one the ECB fixes.
            if self.rng.random() < 0.85:
                return self.region.currency
            return self.rng.choice(sorted(_live_currencies()))
        record = self._records.get(table)
        if record is None:
            records = pool_records(f.source, self.region.code)
            if any(g.unique and g.kind == "pool" and POOLS[g.source][0] == table
                   for g in entity.fields):
                # A unique field takes a record no earlier row took (each test once).
                taken = self._taken.setdefault((entity.name, table), set())
                free = [i for i in range(len(records)) if i not in taken]
                index = self.rng.choice(free) if free else self.rng.randrange(len(records))
                taken.add(index)
                record = records[index]
            else:
                record = self.rng.choice(records)
            self._records[table] = record
        return record[column] or (None if not f.required else record[column])

    def value(self, entity: Entity, f: Field, person_index: int) -> Any:
        rng = self.rng
        if f.kind == "name":
            value: Any = self.person(entity, f, person_index).name
        elif f.kind == "email":
            value = self.person(entity, f, person_index).email
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
            value = self._pool(entity, f)
        elif f.kind == "code":
            value = make_code(f, rng.getrandbits(40), self.region.code)
        elif f.format in codes.ISSUED:
            value = codes.issue(f.format, rng, self.region.code)
        elif f.name in _HANDLES or f.name.endswith("_handle"):
            person = self.person(entity, None, person_index)
            value = person.email.partition("@")[0]
        else:
            value = (self._vocab_value(entity, f) if f.vocab
                     else f"{entity.name.replace('_', ' ').title()} {person_index}")
        if f.unique and value is not None:
            value = self._make_unique(entity, f, value)
        return value

    def _vocab_value(self, entity: Entity, f: Field) -> str:
        """A phrase of the field's vocabulary; a unique field takes the unused ones first."""
        if not f.unique:
            return self.rng.choice(f.vocab)
        used = self._used.get((entity.name, f.name), set())
        fresh = [v for v in f.vocab if v not in used]
        return self.rng.choice(fresh) if fresh else self._combined(f, used)

    def _combined(self, f: Field, used: set[Any]) -> str:
        """A new phrase in the vocabulary's style once every phrase is taken: the head of one
        phrase with the tail of another ("Harbor" + "Grants DAO"), else a phrase with one of the
        region's cities."""
        split = [v.split() for v in f.vocab]
        heads = [w[: max(1, len(w) // 2)] for w in split if len(w) > 1]
        tails = [w[max(1, len(w) // 2):] for w in split if len(w) > 1]
        candidates = {" ".join(h + t) for h in heads for t in tails}
        fresh = sorted(c for c in candidates - used - set(f.vocab) if len(c) <= 120)
        if fresh:
            return self.rng.choice(fresh)
        cities = [c["name"] for c in self.region.cities] or ["Central"]
        joined = sorted({f"{v} {c}" for v in f.vocab for c in cities} - used)
        return self.rng.choice(joined) if joined else self.rng.choice(f.vocab)

    def _make_unique(self, entity: Entity, f: Field, value: Any) -> Any:
        used = self._used.setdefault((entity.name, f.name), set())
        candidate, n = value, 2
        while candidate in used:
            if isinstance(value, str):
                if f.kind == "email":
                    local, _, domain = value.partition("@")
                    candidate = f"{local}{n}@{domain}"
                elif f.kind == "code" or f.format in codes.ISSUED:
                    candidate = (make_code(f, self.rng.getrandbits(40), self.region.code)
                                 if f.kind == "code"
                                 else codes.issue(f.format, self.rng, self.region.code))
                elif f.vocab and n < 40:
                    candidate = self._combined(f, used)
                else:
                    candidate = f"{value} {n}"
            else:
                candidate = value + n
            n += 1
        used.add(candidate)
        return candidate
